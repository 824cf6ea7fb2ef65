// Package sched defines schedules: values (step sizes, λ) that depend on the
// round. Schedules are evaluated by the coordinator once per round, never by
// client workers, so implementations need not be safe for concurrent use
// beyond being read-only.
package sched

import "fmt"

// Schedule gives a value for each round r = 0, 1, 2, ...
type Schedule interface {
	At(r int) float64
}

// Bounded is implemented by schedules whose range is known up front, so that
// parameter ranges can be checked before anything runs.
type Bounded interface {
	Range() (lo, hi float64)
}

// Constant is a schedule with the same value at every round.
type Constant float64

// At returns the constant.
func (c Constant) At(int) float64 { return float64(c) }

// Range returns the constant twice.
func (c Constant) Range() (float64, float64) { return float64(c), float64(c) }

// String renders the constant.
func (c Constant) String() string { return fmt.Sprintf("%g", float64(c)) }

// Table holds one value per round, as tabulated from a Lua function before a
// run starts; rounds past the end keep the last value.
type Table []float64

// At returns the value of round r.
func (t Table) At(r int) float64 {
	if r >= len(t) {
		r = len(t) - 1
	}
	if r < 0 {
		r = 0
	}
	return t[r]
}

// Range returns the smallest and largest tabulated values.
func (t Table) Range() (float64, float64) {
	lo, hi := t[0], t[0]
	for _, v := range t {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}
