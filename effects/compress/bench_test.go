package compress

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkCompress measures each compressor on a Fashion-MNIST-sized
// logistic model (d = 7850).
func BenchmarkCompress(b *testing.B) {
	const d = 7850
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, d)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	y := make([]float64, d)
	idx := make([]int, d)
	b.Run("top_k_1pct_by_sorting", func(b *testing.B) { // the simple alternative: a full sort
		for range b.N {
			copy(y, x)
			for i := range idx {
				idx[i] = i
			}
			slices.SortFunc(idx, func(a, b int) int {
				if c := cmp.Compare(math.Abs(y[b]), math.Abs(y[a])); c != 0 {
					return c
				}
				return cmp.Compare(a, b)
			})
			for _, i := range idx[d/100:] {
				y[i] = 0
			}
		}
	})
	for _, c := range []struct {
		name string
		c    interface {
			Compress([]float64, *rand.Rand, []int) int64
		}
	}{
		{"top_k_1pct", TopK{Count: Count{Fraction: 0.01}}},
		{"rand_k_1pct", RandK{Count: Count{Fraction: 0.01}, Unbiased: true}},
		{"sign", Sign{}},
		{"qsgd_4", QSGD{Levels: 4}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for range b.N {
				copy(y, x)
				c.c.Compress(y, rng, idx)
			}
		})
	}
}
