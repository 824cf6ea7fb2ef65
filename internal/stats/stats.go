// Package stats holds the summary statistics shared by tables, sweep
// selection and plots, so that all three report the same numbers.
package stats

import "math"

// MeanStd returns the mean and the sample standard deviation (n − 1 in the
// denominator; 0 for one value) of xs, which must not be empty. Both are
// computed on offsets from the first value, so identical values give exactly
// that value and a standard deviation of exactly 0.
func MeanStd(xs []float64) (mean, std float64) {
	first := xs[0]
	if math.IsInf(first, 0) {
		first = 0 // an infinite offset would make every difference NaN (ε = +Inf without noise)
	}
	off := 0.0
	for _, x := range xs {
		off += x - first
	}
	off /= float64(len(xs))
	if len(xs) < 2 {
		return first + off, 0
	}
	ss := 0.0
	for _, x := range xs {
		d := x - first - off
		ss += d * d
	}
	return first + off, math.Sqrt(ss / float64(len(xs)-1))
}
