package losses

import (
	"math"
	"math/rand/v2"
	"testing"
)

// col2im32 gives, bit for bit, the adjoint of im2col32 summed pixel by
// pixel: for each output pixel (s, y, x) in order, each kernel row and
// column inside the image, din += the patch value, from zero. On random
// geometries (padding, kernels wider than the image's edge, odd sides, 1–8
// channels and more) and on LeNet-5's and the 4-layer CNN's layers, with
// NaNs, infinities and signed zeros among the values, over stale din.
func TestCol2imMatchesPixelOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 4))
	fixed := []convGeom{
		{cin: 6, h: 14, w: 14, cout: 16, k: 5, p: 0},
		{cin: 32, h: 14, w: 14, cout: 32, k: 3, p: 1},
		{cin: 32, h: 7, w: 7, cout: 32, k: 3, p: 1},
	}
	for trial := range 300 {
		var g convGeom
		if trial < len(fixed) {
			g = fixed[trial]
			g.ho, g.wo = g.h+2*g.p-g.k+1, g.w+2*g.p-g.k+1
		} else {
			g = randGeom(rng)
			if trial%4 == 0 {
				g.cin = 9 + rng.IntN(30)
			}
		}
		m := 1 + rng.IntN(3)
		patch := g.patch()
		dcol := make([]float32, m*g.ho*g.wo*patch)
		for i := range dcol {
			switch rng.IntN(20) {
			case 0:
				dcol[i] = float32(math.NaN())
			case 1:
				dcol[i] = float32(math.Inf(1 - 2*rng.IntN(2)))
			case 2:
				dcol[i] = float32(math.Copysign(0, -1))
			default:
				dcol[i] = float32(rng.NormFloat64())
			}
		}
		want, got := make([]float32, m*g.inSize()+5), make([]float32, m*g.inSize()+5)
		for i := range got {
			got[i] = 3 // stale: col2im32 overwrites the m images
		}
		got[len(got)-5], want[len(want)-5] = 9, 9
		for s := range m {
			for y := range g.ho {
				for x := range g.wo {
					row := dcol[((s*g.ho+y)*g.wo+x)*patch:][:patch]
					for i := range g.k {
						for j := range g.k {
							iy, ix := y+i-g.p, x+j-g.p
							if iy < 0 || iy >= g.h || ix < 0 || ix >= g.w {
								continue
							}
							for c := range g.cin {
								want[s*g.inSize()+(iy*g.w+ix)*g.cin+c] += row[(i*g.k+j)*g.cin+c]
							}
						}
					}
				}
			}
		}
		col2im32(g, dcol, m, got)
		for i := range want[:len(want)-4] {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("trial %d, %s, cout %d, %d images: din[%d] = %g (%#x), want %g (%#x)",
					trial, geomName(g), g.cout, m, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			}
		}
	}
}
