package argmax32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFoldMatchesLoop compares Fold with a plain loop on lengths around
// the 8-lane blocks, with ties, NaNs and infinities among the values.
func TestFoldMatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() float32 {
		switch rng.IntN(10) {
		case 0:
			return float32(math.NaN())
		case 1:
			return float32(math.Inf(-1))
		case 2, 3:
			return 0.5 // ties
		}
		return float32(rng.NormFloat64())
	}
	for _, n := range []int{0, 1, 7, 8, 9, 16, 32, 33, 100} {
		for trial := range 20 {
			best := make([]float32, n)
			arg := make([]int32, n)
			for c := range best {
				best[c], arg[c] = pick(), int32(-c)
			}
			want, wantArg := append([]float32(nil), best...), append([]int32(nil), arg...)
			for step := range 4 {
				v := make([]float32, n)
				for c := range v {
					v[c] = pick()
				}
				a := int32(1000*step + trial)
				Fold(v, a, best, arg)
				for c, x := range v {
					if x > want[c] {
						want[c], wantArg[c] = x, a+int32(c)
					}
				}
				for c := range v {
					same := want[c] == best[c] || (want[c] != want[c] && best[c] != best[c])
					if !same || arg[c] != wantArg[c] {
						t.Fatalf("n=%d trial %d step %d lane %d: (%g, %d), want (%g, %d)", n, trial, step, c, best[c], arg[c], want[c], wantArg[c])
					}
				}
			}
		}
	}
}

// TestFoldPanicsOnShortBuffers checks the length check.
func TestFoldPanicsOnShortBuffers(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	Fold(make([]float32, 9), 0, make([]float32, 8), make([]int32, 9))
}
