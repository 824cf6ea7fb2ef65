package core

import (
	"math/rand/v2"
	"testing"
)

// TestIndexedSlotsSurviveGrowthAndReset touches many coordinates (forcing
// the hash table to grow), checks that every coordinate keeps its slot and
// that Reset forgets them all.
func TestIndexedSlotsSurviveGrowthAndReset(t *testing.T) {
	v := NewIndexed()
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3 {
		want := map[int]int{}
		for range 5000 {
			j := rng.IntN(1 << 30)
			s := v.Touch(j)
			if old, ok := want[j]; ok && old != s {
				t.Fatalf("round %d: coordinate %d moved from slot %d to %d", round, j, old, s)
			}
			want[j] = s
		}
		if len(v.Idx) != len(want) || len(v.At) != len(want) || len(v.Val) != len(want) {
			t.Fatalf("%d slots for %d coordinates", len(v.Idx), len(want))
		}
		for j, s := range want {
			if v.Idx[s] != j || v.Slot(j) != s {
				t.Fatalf("coordinate %d: Idx[%d] = %d, Slot = %d", j, s, v.Idx[s], v.Slot(j))
			}
		}
		v.Reset()
		for j := range want {
			if v.Slot(j) != -1 {
				t.Fatalf("coordinate %d still touched after Reset", j)
			}
		}
	}
}
