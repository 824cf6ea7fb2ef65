package gemm32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvRowOneChannelMatchesDo forces each kernel set and checks that
// Conv.Row gives, bit for bit, Do's product on the im2col matrix for rows
// whose patches are one float apart (one input channel: the sixteen-pixel
// AVX-512 kernel) and at most 8 output channels: rows of 16 pixels and
// wider, not multiples of 16 (the last call overlapping the one before),
// 1–5 kernel rows of 1–40 values, an input that ends at the last patch's
// last value, and output rows wider than the channels, whose other values
// (NaN) Row must not write.
func TestConvRowOneChannelMatchesDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 16))
	for _, ks := range kernelSets() {
		for trial := range trials(100) {
			cout, kh, kc, n := 1+rng.IntN(8), 1+rng.IntN(5), 1+rng.IntN(40), 16+rng.IntN(50)
			switch trial % 4 {
			case 0: // LeNet-5's first layer
				cout, kh, kc, n = 6, 5, 5, 28
			case 1:
				n = []int{16, 17, 31, 32, 33}[trial/4%5]
			}
			line, ldo := kc+rng.IntN(40), cout+rng.IntN(3)
			patch := kh * kc
			src := randSlice(rng, (n-1)+(kh-1)*line+kc)
			w := randSlice(rng, cout*patch)
			col := make([]float32, n*patch)
			for x := range n {
				for i := range kh {
					copy(col[x*patch+i*kc:][:kc], src[x+i*line:])
				}
			}
			want, got := make([]float32, (n-1)*ldo+cout+2), make([]float32, (n-1)*ldo+cout+2)
			for i := range want {
				want[i] = float32(math.NaN())
				got[i] = want[i]
			}
			g := Gemm{own: &ks}
			g.Do(false, true, n, cout, patch, 1, col, patch, w, patch, 0, want, ldo)
			c := Conv{own: &ks}
			c.Load(w, cout, patch)
			c.Row(n, kh, kc, src, 1, line, got, ldo)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s kernels, %d channels, %d×%d patch, %d pixels (line %d, ldo %d): out[%d] = %g, Do gives %g",
						ks.name, cout, kh, kc, n, line, ldo, i, got[i], want[i])
				}
			}
		}
	}
}
