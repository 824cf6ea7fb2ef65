package core

import (
	"slices"
	"testing"
)

// TestStampedVecGenerations checks that Load initializes an entry from the
// start vector only at its first load of a generation, that Touched lists
// each loaded coordinate once in order, and that Begin (also when the
// generation counter wraps around) makes every entry stale again.
func TestStampedVecGenerations(t *testing.T) {
	s := NewStampedVec(8)
	x0 := []float64{10, 11, 12, 13, 14, 15, 16, 17}
	for round, gen := range []uint32{0, ^uint32(0) - 1, ^uint32(0)} {
		s.gen = gen // the last two rounds cross the wrap-around
		s.Begin()
		if len(s.Touched) != 0 {
			t.Fatalf("round %d: Touched %v after Begin", round, s.Touched)
		}
		seen := map[int]bool{}
		for _, j := range []int{5, 2, 5, 7, 2} {
			e := s.Load(j, x0)
			want := Stamped{X: x0[j], gen: s.gen}
			if seen[j] {
				want = Stamped{X: -float64(j), Step: 3, gen: s.gen}
			}
			if *e != want {
				t.Fatalf("round %d: coordinate %d loaded as %+v, want %+v", round, j, *e, want)
			}
			seen[j] = true
			e.X, e.Step = -float64(j), 3 // a later Load in this generation must keep it
		}
		if !slices.Equal(s.Touched, []int{5, 2, 7}) {
			t.Fatalf("round %d: Touched = %v, want [5 2 7]", round, s.Touched)
		}
		for _, j := range s.Touched {
			if e := s.Load(j, x0); e.X != -float64(j) || e.Step != 3 {
				t.Fatalf("round %d: coordinate %d reloaded as %+v", round, j, *e)
			}
		}
		if len(s.Touched) != 3 {
			t.Fatalf("round %d: reloading changed Touched to %v", round, s.Touched)
		}
	}
}

// TestMarks checks that Mark reports only the first marking, that Touched
// lists marked coordinates once, and that Clear unmarks them all, also
// within one 64-bit word and across words.
func TestMarks(t *testing.T) {
	m := NewMarks(200)
	for round := range 2 {
		for _, j := range []int{3, 64, 3, 199, 65, 64} {
			first := !slices.Contains(m.Touched, j)
			if got := m.Mark(j); got != first {
				t.Fatalf("round %d: Mark(%d) = %v, want %v", round, j, got, first)
			}
		}
		if !slices.Equal(m.Touched, []int{3, 64, 199, 65}) {
			t.Fatalf("round %d: Touched = %v", round, m.Touched)
		}
		m.Clear()
		if len(m.Touched) != 0 || slices.ContainsFunc(m.bits, func(w uint64) bool { return w != 0 }) {
			t.Fatalf("round %d: marks left after Clear: %v %v", round, m.Touched, m.bits)
		}
	}
}
