// Package compress registers the message compressors (kind "compressor",
// fedlab.compressor.* in Lua): top-k, random-k, scaled sign and QSGD
// stochastic quantisation, each with optional error feedback, and the
// metrics bits_up, bits_down and bits that count what was actually sent.
//
// Bit accounting: an uncompressed float is 64 bits; an index into a vector
// of dimension d is ⌈log₂ d⌉ bits; a scale (norm) is one 64-bit float.
package compress

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/metrics"
	"github.com/fedlab/fedlab/registry"
)

// bitsPerFloat is the wire size of one value.
const bitsPerFloat = 64

// feedback is the error-feedback switch every compressor takes.
type feedback struct {
	EF bool `param:"error_feedback" doc:"keep the compression error per client and add it to the next message (uplink)"`
}

// sparsifierParams are the count and the feedback switch of a sparsifier.
type sparsifierParams struct {
	Count
	feedback
}

// TopKParams are the parameters of the compressor "top_k".
type TopKParams struct{ sparsifierParams }

// RandKParams are the parameters of the compressor "rand_k".
type RandKParams struct {
	sparsifierParams
	Unbiased bool `param:"unbiased" doc:"scale the kept values by d/k so that E[C(x)] = x"`
}

// SignParams are the parameters of the compressor "sign".
type SignParams struct{ feedback }

// QSGDParams are the parameters of the compressor "qsgd".
type QSGDParams struct {
	Levels int `param:"levels,required" min:"1" doc:"number of levels s ≥ 1"`
	feedback
}

func init() {
	registry.Define(registry.Compressor, "top_k", "keep the k largest coordinates in magnitude (ties: lower index); sends k values and k indices",
		TopKParams{}, func(p TopKParams) (core.Compressor, error) {
			return TopK{Count: p.Count, EF: p.EF}, p.Count.check()
		})
	registry.Define(registry.Compressor, "rand_k", "keep k coordinates drawn uniformly without replacement, scaled by d/k if unbiased; sends k values and the 64-bit seed of the draw",
		RandKParams{Unbiased: true}, func(p RandKParams) (core.Compressor, error) {
			return RandK{Count: p.Count, Unbiased: p.Unbiased, EF: p.EF}, p.Count.check()
		})
	registry.Define(registry.Compressor, "sign", "scaled sign (‖x‖₁/d)·sign(x), sign(0) = +1; sends d sign bits and one scale",
		SignParams{}, func(p SignParams) (core.Compressor, error) { return Sign{EF: p.EF}, nil })
	registry.Define(registry.Compressor, "qsgd", "QSGD stochastic quantisation with s levels (unbiased); sends the norm and, per coordinate, a sign bit and a level of ⌈log₂(s+1)⌉ bits",
		QSGDParams{}, func(p QSGDParams) (core.Compressor, error) { return QSGD{Levels: p.Levels, EF: p.EF}, nil })

	bitsMetric := func(name, doc string, f func(e *core.Eval) float64) {
		registry.Define(registry.Metric, name, doc, struct{}{},
			func(struct{}) (core.Metric, error) { return metrics.Func{Label: name, F: f}, nil })
	}
	bitsMetric("bits_up", "cumulative bits sent client → server (64 per float; compressed messages as encoded)",
		func(e *core.Eval) float64 { return float64(e.BitsUp) })
	bitsMetric("bits_down", "cumulative bits sent server → client (64 per float; compressed messages as encoded)",
		func(e *core.Eval) float64 { return float64(e.BitsDown) })
	bitsMetric("bits", "cumulative bits sent in both directions",
		func(e *core.Eval) float64 { return float64(e.BitsUp + e.BitsDown) })
}

// Count is how many coordinates a sparsifier keeps: K if set, otherwise
// max(1, round(Fraction·d)).
type Count struct {
	K        int     `param:"k" min:"0" doc:"coordinates kept (give k ≥ 1 or fraction)"`
	Fraction float64 `param:"fraction" min:"0" max:"1" doc:"fraction of the d coordinates kept, k = max(1, round(fraction·d)) (give k or fraction)"`
}

// check refuses a count that keeps nothing or gives both k and fraction.
func (c Count) check() error {
	switch {
	case c.K == 0 && c.Fraction == 0:
		return fmt.Errorf("give k ≥ 1 (coordinates kept) or fraction in (0, 1]; k = 0 keeps nothing")
	case c.K > 0 && c.Fraction > 0:
		return fmt.Errorf("give k or fraction, not both (k = %d, fraction = %g)", c.K, c.Fraction)
	}
	return nil
}

// checkDimension refuses a k above d, the dimension of the vectors
// compressed by the compressor name (a count it cannot keep, which a clamp
// to d would then charge as k values and indices).
func (c Count) checkDimension(name string, d int) error {
	if c.K > d {
		return fmt.Errorf("compressor %q: parameter \"k\" = %d is above the dimension d = %d of the vectors it compresses (valid: 1 ≤ k ≤ %d, or a fraction in (0, 1])",
			name, c.K, d, d)
	}
	return nil
}

// Of returns the number of coordinates kept of d (at most d; a K above d
// is refused by CheckDimension before any vector is compressed).
func (c Count) Of(d int) int {
	if c.K > 0 {
		return min(c.K, d)
	}
	return min(d, max(1, int(math.Round(c.Fraction*float64(d)))))
}

// IndexBits is the size of an index into a vector of dimension d, ⌈log₂ d⌉
// (at least 1).
func IndexBits(d int) int64 {
	if d <= 2 {
		return 1
	}
	return int64(bits.Len(uint(d - 1)))
}

// TopK keeps the Count largest coordinates in magnitude.
type TopK struct {
	Count Count
	EF    bool
}

// Compress zeroes all but the k largest |x_i|; bits: k·(64 + ⌈log₂ d⌉).
func (t TopK) Compress(x []float64, _ *rand.Rand, idx []int) int64 {
	d := len(x)
	k := t.Count.Of(d)
	if k < d {
		for i := range idx {
			idx[i] = i
		}
		selectTop(x, idx, k)
		for _, i := range idx[k:] {
			x[i] = 0
		}
	}
	return int64(k) * (bitsPerFloat + IndexBits(d))
}

// selectTop reorders idx (a permutation of the indices of x) so that its
// first k entries are the k largest |x_i|, ties broken by the lower index:
// quickselect under that strict total order (expected O(d); the pivot is
// the median of three, so the result does not depend on any random draw).
func selectTop(x []float64, idx []int, k int) {
	before := func(a, b int) bool {
		xa, xb := math.Abs(x[a]), math.Abs(x[b])
		return xa > xb || (xa == xb && a < b)
	}
	lo, hi := 0, len(idx)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		if before(idx[mid], idx[lo]) {
			idx[mid], idx[lo] = idx[lo], idx[mid]
		}
		if before(idx[hi], idx[lo]) {
			idx[hi], idx[lo] = idx[lo], idx[hi]
		}
		if before(idx[hi], idx[mid]) {
			idx[hi], idx[mid] = idx[mid], idx[hi]
		}
		pivot := idx[mid]
		i, j := lo, hi
		for i <= j {
			for before(idx[i], pivot) {
				i++
			}
			for before(pivot, idx[j]) {
				j--
			}
			if i <= j {
				idx[i], idx[j] = idx[j], idx[i]
				i++
				j--
			}
		}
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// ErrorFeedback reports whether error feedback is on.
func (t TopK) ErrorFeedback() bool { return t.EF }

// CheckDimension refuses k > d (see core.DimensionChecker).
func (t TopK) CheckDimension(d int) error { return t.Count.checkDimension("top_k", d) }

// RandK keeps Count coordinates drawn uniformly without replacement.
type RandK struct {
	Count    Count
	Unbiased bool
	EF       bool
}

// Compress keeps k random coordinates (scaled by d/k if Unbiased); bits:
// k·64 plus the 64-bit seed from which the receiver draws the same indices.
func (t RandK) Compress(x []float64, rng *rand.Rand, idx []int) int64 {
	d := len(x)
	k := t.Count.Of(d)
	if k < d {
		for i := range idx {
			idx[i] = i
		}
		for i := 0; i < k; i++ {
			j := i + rng.IntN(d-i)
			idx[i], idx[j] = idx[j], idx[i]
		}
		scale := 1.0
		if t.Unbiased {
			scale = float64(d) / float64(k)
		}
		for _, i := range idx[:k] {
			x[i] *= scale
		}
		for _, i := range idx[k:] {
			x[i] = 0
		}
	}
	return int64(k)*bitsPerFloat + bitsPerFloat
}

// ErrorFeedback reports whether error feedback is on.
func (t RandK) ErrorFeedback() bool { return t.EF }

// CheckDimension refuses k > d (see core.DimensionChecker).
func (t RandK) CheckDimension(d int) error { return t.Count.checkDimension("rand_k", d) }

// Sign is the scaled sign compressor (‖x‖₁/d)·sign(x) (Karimireddy et al.,
// 2019), with sign(0) = +1 so that one bit per coordinate suffices.
type Sign struct{ EF bool }

// Compress replaces x by its scaled sign; bits: d + 64.
func (s Sign) Compress(x []float64, _ *rand.Rand, _ []int) int64 {
	l1 := 0.0
	for _, v := range x {
		l1 += math.Abs(v)
	}
	scale := l1 / float64(len(x))
	for i, v := range x {
		if v < 0 {
			x[i] = -scale
		} else {
			x[i] = scale
		}
	}
	return int64(len(x)) + bitsPerFloat
}

// ErrorFeedback reports whether error feedback is on.
func (s Sign) ErrorFeedback() bool { return s.EF }

// QSGD is stochastic quantisation with s = Levels levels (Alistarh et al.,
// 2017): Q(x)_i = ‖x‖₂·sign(x_i)·ξ_i/s, where ξ_i is ⌊s|x_i|/‖x‖₂⌋ or one
// more, with the probability that makes E[Q(x)] = x. Its variance is at
// most min(d/s², √d/s)·‖x‖₂² (their Lemma 3.1).
type QSGD struct {
	Levels int
	EF     bool
}

// Compress quantises x; bits: 64 for the norm and 1 + ⌈log₂(s+1)⌉ per
// coordinate (sign and level, fixed-width code).
func (q QSGD) Compress(x []float64, rng *rand.Rand, _ []int) int64 {
	norm := 0.0
	for _, v := range x {
		norm += v * v
	}
	norm = math.Sqrt(norm)
	s := float64(q.Levels)
	for i, v := range x {
		if norm == 0 {
			break
		}
		a := math.Abs(v) / norm * s
		l := math.Floor(a)
		if rng.Float64() < a-l {
			l++
		}
		x[i] = math.Copysign(norm*l/s, v)
	}
	return bitsPerFloat + int64(len(x))*(1+int64(bits.Len(uint(q.Levels))))
}

// ErrorFeedback reports whether error feedback is on.
func (q QSGD) ErrorFeedback() bool { return q.EF }
