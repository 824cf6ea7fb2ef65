package gemm32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvGradRowTilesMatchDo forces each kernel set and checks that
// AddGrad adds, bit for bit, what Do adds from the im2col matrix on
// patches whose rows hold 17–32 values and 1–16 output channels (the
// AVX-512 kernel of a patch row to a tile, the positions in the lanes, in
// one or two blocks of eight channels, partial ones): LeNet-5's second
// layer and random shapes, odd pixel strides, groups spanning several
// depth blocks, and the least input the kernels may read. With AVX-512
// that kernel must be the one in use.
func TestConvGradRowTilesMatchDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 32))
	for _, ks := range kernelSets() {
		for trial := range trials(60) {
			cout, kh, rl := 1+rng.IntN(16), 1+rng.IntN(6), 17+rng.IntN(16)
			xs, line := 1+rng.IntN(8), rl+rng.IntN(30)
			px := ConvPixels{N: 1 + rng.IntN(4), H: 1 + rng.IntN(12), W: 1 + rng.IntN(20), XS: xs}
			if trial%4 == 0 { // LeNet-5's second layer: 10×10 pixels of a 14×14 image of six channels
				cout, kh, rl, xs, line = 16, 5, 30, 6, 84
				px = ConvPixels{N: 1 + rng.IntN(4), H: 10, W: 10, XS: 6}
			}
			px.YS = (px.W-1)*xs + line/2 + rng.IntN(5)
			if trial%4 == 0 {
				px.YS = line
			}
			px.SS = (px.H-1)*px.YS + (kh-1)*line + (px.W-1)*xs + rl + rng.IntN(7)
			c := Conv{own: &ks}
			checkConvGrad(t, rng, &c, ks.name, cout, kh, rl, line, px)
			if q := c.tileKey[3]; ks.gradZ32 != nil && q != 32 {
				t.Fatalf("%s kernels, %d channels, %d×%d patch: tiles of %d positions, not a row's", ks.name, cout, kh, rl, q)
			}
		}
	}
}

// TestConvGradRowTilesAVX2Identical checks that the AVX-512 kernel of
// patch rows gives the same bits as the AVX2 kernels on LeNet-5's second
// layer, four images (two depth blocks).
func TestConvGradRowTilesAVX2Identical(t *testing.T) {
	sets := kernelSets()
	if sets[0].gradZ32 == nil {
		t.Skip("no AVX-512 kernels on this CPU")
	}
	rng := rand.New(rand.NewPCG(40, 532))
	px := ConvPixels{N: 4, H: 10, W: 10, SS: 14 * 84, YS: 84, XS: 6}
	src := randSlice(rng, 4*14*84+ConvSlack)
	dg := randSlice(rng, 4*10*10*16)
	gw := randSlice(rng, 16*150)
	var got [2][]float32
	for i, name := range []string{"avx512", "avx2"} {
		var ks kernelSet
		for _, s := range sets {
			if s.name == name {
				ks = s
			}
		}
		got[i] = append([]float32(nil), gw...)
		c := Conv{own: &ks}
		c.AddGrad(got[i], 16, 5, 30, dg, 16, src, 84, px)
		if q := c.tileKey[3]; (q == 32) != (name == "avx512") {
			t.Fatalf("%s kernels: tiles of %d positions", name, q)
		}
	}
	for i := range got[0] {
		if math.Float32bits(got[0][i]) != math.Float32bits(got[1][i]) {
			t.Fatalf("gw[%d] = %g with AVX-512, %g with AVX2", i, got[0][i], got[1][i])
		}
	}
}
