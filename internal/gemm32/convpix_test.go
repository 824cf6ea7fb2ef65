package gemm32

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestConvPixelsMatchesDo forces each kernel set that computes Pixels (the
// AVX-512 one and the plain Go one) and checks that Conv.Pixels gives, bit
// for bit, the product Do computes on the im2col matrix of the same pixels
// with the same kernels: 17–70 output channels (one or several 32-channel
// blocks, partial ones), patches of one to four kernel rows up to 800
// values (one, two and three depth blocks, whose runs start inside a
// kernel row), pixels at arbitrary offsets (overlapping, out of order, 1
// to 40 of them: whole calls of six and a last partial one) and output
// rows wider than the channels, which Pixels must not write.
func TestConvPixelsMatchesDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 7))
	ran := 0
	for _, ks := range kernelSets() {
		if ks.convP32 == nil && ks.conv8 != nil {
			continue
		}
		ran++
		for trial := range trials(150) {
			cout, kh, kc := 17+rng.IntN(54), 1+rng.IntN(4), 1+rng.IntN(200)
			switch trial % 4 {
			case 0: // the 4-layer CNN's layers: 3×3×32 → 32 (one block), 3×3×64 → 64 (two)
				cout, kh, kc = []int{32, 64}[trial/4%2], 3, []int{96, 192}[trial/4%2]
			case 1: // three depth blocks
				kh, kc = 4, 200
			}
			line := kc + rng.IntN(40)
			n := 1 + rng.IntN(40)
			ldo := cout + rng.IntN(3)
			patch := kh * kc
			src := randSlice(rng, (kh-1)*line+kc+rng.IntN(200))
			at := make([]int, n)
			for r := range at {
				at[r] = rng.IntN(len(src) - (kh-1)*line - kc + 1)
			}
			w := randSlice(rng, cout*patch)
			col := make([]float32, n*patch)
			for r, a := range at {
				for i := range kh {
					copy(col[r*patch+i*kc:][:kc], src[a+i*line:])
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
			c.Pixels(at, kh, kc, src, line, got, ldo)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s kernels, %d channels, %d×%d patch, %d pixels (line %d, ldo %d): out[%d] = %g, Do gives %g",
						ks.name, cout, kh, kc, n, line, ldo, i, got[i], want[i])
				}
			}
		}
	}
	if ran == 0 {
		t.Fatal("no kernel set computes Pixels")
	}
}

// Pixels refuses a patch outside the input and a patch of another shape,
// naming the shape, and, with assembly kernels that have no pixel kernel
// (AVX2), says so instead of computing other bits than Do.
func TestConvPixelsPanics(t *testing.T) {
	for _, ks := range kernelSets() {
		c := Conv{own: &ks}
		c.Load(make([]float32, 32*27), 32, 27)
		cases := map[string]func(){
			"gemm32: convolution pixel 1's patch at 90": func() {
				c.Pixels([]int{0, 90}, 3, 9, make([]float32, 100), 10, make([]float32, 64), 32)
			},
			"gemm32: 1 convolution pixels of a 3×8 patch": func() {
				c.Pixels([]int{0}, 3, 8, make([]float32, 100), 10, make([]float32, 64), 32)
			},
		}
		if ks.convP32 == nil && ks.conv8 != nil {
			cases = map[string]func(){"gemm32: Conv.Pixels has no kernel for 32 channels with the " + ks.name + " kernels": func() {
				c.Pixels([]int{0}, 3, 9, make([]float32, 100), 10, make([]float32, 64), 32)
			}}
		}
		for want, f := range cases {
			func() {
				defer func() {
					if r, _ := recover().(string); !strings.HasPrefix(r, want) {
						t.Errorf("%s kernels: panic %q, want %q…", ks.name, r, want)
					}
				}()
				f()
			}()
		}
	}
}
