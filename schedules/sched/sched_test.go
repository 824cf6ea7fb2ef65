package sched_test

import (
	"math"
	"testing"

	"github.com/fedlab/fedlab/schedules/sched"
)

// Compile-time checks of which schedules are bounded.
var (
	_ sched.Bounded = sched.Constant(0)
	_ sched.Bounded = sched.Table{0}
)

func TestConstant(t *testing.T) {
	c := sched.Constant(0.25)
	for _, r := range []int{0, 1, 7, 1 << 30, -1} {
		if got := c.At(r); got != 0.25 {
			t.Errorf("At(%d) = %g, want 0.25", r, got)
		}
	}
	if lo, hi := c.Range(); lo != 0.25 || hi != 0.25 {
		t.Errorf("Range = %g, %g", lo, hi)
	}
	if s := sched.Constant(1e-3).String(); s != "0.001" {
		t.Errorf("String = %q", s)
	}
}

func TestTableAt(t *testing.T) {
	tab := sched.Table{3, 1, 4, 1.5}
	cases := map[int]float64{0: 3, 1: 1, 2: 4, 3: 1.5, 4: 1.5, 100: 1.5, -1: 3, -50: 3}
	for r, want := range cases {
		if got := tab.At(r); got != want {
			t.Errorf("At(%d) = %g, want %g", r, got, want)
		}
	}
	one := sched.Table{7}
	for _, r := range []int{-1, 0, 1, 9} {
		if one.At(r) != 7 {
			t.Errorf("one-entry table At(%d) = %g", r, one.At(r))
		}
	}
}

func TestTableRange(t *testing.T) {
	cases := []struct {
		tab    sched.Table
		lo, hi float64
	}{
		{sched.Table{2}, 2, 2},
		{sched.Table{3, 1, 4, 1.5}, 1, 4},
		{sched.Table{-1, 5, -7, 0}, -7, 5},
		{sched.Table{0.5, 0.25, 0.125}, 0.125, 0.5},
	}
	for _, c := range cases {
		if lo, hi := c.tab.Range(); lo != c.lo || hi != c.hi {
			t.Errorf("%v.Range() = %g, %g, want %g, %g", c.tab, lo, hi, c.lo, c.hi)
		}
	}
	// A NaN anywhere shows in the range, so parameter checks can reject it.
	lo, hi := sched.Table{1, math.NaN(), 2}.Range()
	if !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("Range with a NaN = %g, %g, want NaN, NaN", lo, hi)
	}
}
