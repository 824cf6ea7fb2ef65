package gemm32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddTransposedMatchesLoop checks that addTransposed (AVX-512 where
// the CPU has it) adds the block transposed, bit for bit as the plain
// loop, for every block shape up to 16×16 and strides wider than the
// block, and writes nothing outside the block.
func TestAddTransposedMatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 1616))
	for npos := 1; npos <= 16; npos++ {
		for nch := 1; nch <= 16; nch++ {
			ldg, lds := npos+rng.IntN(5), nch+rng.IntN(20)
			s := randSlice(rng, (npos-1)*lds+16)
			want := randSlice(rng, 16*ldg+16)
			got := append([]float32(nil), want...)
			for q := range npos {
				for o := range nch {
					want[o*ldg+q] += s[q*lds+o]
				}
			}
			addTransposed(got, ldg, s, lds, npos, nch)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%d×%d block (strides %d, %d): gw[%d] = %g, the loop gives %g", npos, nch, ldg, lds, i, got[i], want[i])
				}
			}
		}
	}
}
