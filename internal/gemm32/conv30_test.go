package gemm32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvGradFiveRowTilesMatchDo forces each kernel set and checks that
// AddGrad adds, bit for bit, what Do adds from the im2col matrix on the
// shapes of the five-row tiles (at most 8 output channels, patch rows of
// at most 6 values, 5, 9, 10 or 15 kernel rows, where the last tile
// overlaps the one before): odd pixel strides, groups spanning several
// depth blocks whose ends fall inside image rows, and the least input the
// kernels may read (ConvSlack past the last patch row). With AVX-512 the
// five-row tiles must be the ones in use.
func TestConvGradFiveRowTilesMatchDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 30))
	for _, ks := range kernelSets() {
		ks.gradZ25 = nil // the 5×5 patches' own tiles: conv25_test.go
		for trial := range trials(60) {
			cout, kh, rl := 1+rng.IntN(8), []int{5, 9, 10, 15}[trial%4], 1+rng.IntN(6)
			if trial%8 == 0 { // LeNet-5's first layer
				cout, kh, rl = 6, 5, 5
			}
			xs, line := 1+rng.IntN(3), rl+rng.IntN(30)
			px := ConvPixels{N: 1 + rng.IntN(3), H: 1 + rng.IntN(12), W: 1 + rng.IntN(30), XS: xs}
			if trial%8 == 0 {
				px = ConvPixels{N: 1 + rng.IntN(3), H: 24, W: 24, XS: 1}
			}
			px.YS = (px.W-1)*xs + line/2 + rng.IntN(5)
			px.SS = (px.H-1)*px.YS + (kh-1)*line + (px.W-1)*xs + rl + rng.IntN(7)
			c := Conv{own: &ks}
			checkConvGrad(t, rng, &c, ks.name, cout, kh, rl, line, px)
			if q := c.tileKey[3]; ks.grad8x30 != nil && q != 30 {
				t.Fatalf("%s kernels, %d channels, %d×%d patch: tiles of %d positions, not the five-row tiles", ks.name, cout, kh, rl, q)
			}
		}
	}
}

// TestConvGradTileChoice checks which tiles AddGrad takes with AVX-512 at
// most 8 channels: the whole patch for 5×5 patches, five rows where they compute fewer positions (or as
// many, in fewer calls) than two-row tiles, two-row tiles elsewhere, and
// single-row tiles for rows longer than 6.
func TestConvGradTileChoice(t *testing.T) {
	ks := kernelSets()[0]
	if ks.grad8x30 == nil {
		t.Skip("no AVX-512 kernels on this CPU")
	}
	for _, tc := range []struct{ kh, rl, cout, q int }{
		{5, 5, 6, 25}, {5, 6, 8, 30}, {5, 1, 1, 30}, {9, 3, 2, 30}, {10, 6, 8, 30}, {15, 2, 8, 30},
		{4, 5, 6, 12}, {6, 5, 6, 12}, {7, 6, 8, 12}, {3, 3, 8, 12}, {5, 7, 6, 12}, {5, 5, 9, 15},
	} {
		rng := rand.New(rand.NewPCG(uint64(tc.kh), uint64(tc.rl)))
		px := ConvPixels{N: 2, H: 3, W: 7, XS: 1}
		line := tc.rl + 3
		px.YS = px.W + line
		px.SS = (px.H-1)*px.YS + (tc.kh-1)*line + px.W + tc.rl
		c := Conv{own: &ks}
		checkConvGrad(t, rng, &c, ks.name, tc.cout, tc.kh, tc.rl, line, px)
		if q := c.tileKey[3]; q != tc.q {
			t.Errorf("%d channels, %d×%d patch: tiles of %d positions, want %d", tc.cout, tc.kh, tc.rl, q, tc.q)
		}
	}
}

// checkConvGrad compares c.AddGrad with Do on the im2col matrix of the
// pixels px, bit for bit, on random inputs, output gradients and a random
// starting gradient.
func checkConvGrad(t *testing.T, rng *rand.Rand, c *Conv, name string, cout, kh, rl, line int, px ConvPixels) {
	t.Helper()
	patch, K := kh*rl, px.N*px.H*px.W
	src := randSlice(rng, (px.N-1)*px.SS+(px.H-1)*px.YS+(px.W-1)*px.XS+(kh-1)*line+rl+ConvSlack)
	ldg := cout + rng.IntN(3)
	dg := randSlice(rng, (K-1)*ldg+cout)
	col := make([]float32, K*patch)
	r := 0
	for s := range px.N {
		for y := range px.H {
			for x := range px.W {
				for i := range kh {
					copy(col[r*patch+i*rl:][:rl], src[s*px.SS+y*px.YS+x*px.XS+i*line:])
				}
				r++
			}
		}
	}
	want := randSlice(rng, cout*patch)
	got := append([]float32(nil), want...)
	g := Gemm{own: c.own}
	g.Do(true, false, cout, patch, K, 1, dg, ldg, col, patch, 1, want, patch)
	c.AddGrad(got, cout, kh, rl, dg, ldg, src, line, px)
	for i := range want {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			t.Fatalf("%s kernels, %d channels, %d×%d patch, pixels %+v: gw[%d] = %g, Do gives %g",
				name, cout, kh, rl, px, i, got[i], want[i])
		}
	}
}
