package gemm32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvGradWholePatchMatchesDo forces each kernel set and checks that
// AddGrad adds, bit for bit, what Do adds from the im2col matrix on 5×5
// patches of 1–8 output channels (the AVX-512 kernel with the positions in
// the lanes, which reads no output gradient past the channels): odd pixel
// and row strides, images of LeNet-5's first layer and random ones, groups
// spanning several depth blocks whose ends fall inside image rows, and the
// least input the kernels may read. With AVX-512 that kernel must be the
// one in use.
func TestConvGradWholePatchMatchesDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 25))
	for _, ks := range kernelSets() {
		for trial := range trials(60) {
			cout := 1 + trial%8
			xs, line := 1+rng.IntN(3), 5+rng.IntN(30)
			px := ConvPixels{N: 1 + rng.IntN(3), H: 1 + rng.IntN(12), W: 1 + rng.IntN(30), XS: xs}
			if trial%3 == 0 { // LeNet-5's first layer: 28×28 pixels of one channel, padded by 2
				cout, line = 6, 32
				px = ConvPixels{N: 1 + rng.IntN(3), H: 28, W: 28, XS: 1}
			}
			px.YS = (px.W-1)*xs + line/2 + rng.IntN(5)
			if trial%3 == 0 {
				px.YS = line
			}
			px.SS = (px.H-1)*px.YS + 4*line + (px.W-1)*xs + 5 + rng.IntN(7)
			c := Conv{own: &ks}
			checkConvGrad(t, rng, &c, ks.name, cout, 5, 5, line, px)
			if q := c.tileKey[3]; ks.gradZ25 != nil && q != 25 {
				t.Fatalf("%s kernels, %d channels: tiles of %d positions, not the whole patch", ks.name, cout, q)
			}
		}
	}
}

// TestConvGradWholePatchAVX2Identical checks that the AVX-512 kernel of
// whole 5×5 patches gives the same bits as the AVX2 kernels on LeNet-5's
// first layer, three images (seven depth blocks).
func TestConvGradWholePatchAVX2Identical(t *testing.T) {
	if kernelSets()[0].gradZ25 == nil {
		t.Skip("no AVX-512 kernels on this CPU")
	}
	rng := rand.New(rand.NewPCG(40, 525))
	px := ConvPixels{N: 3, H: 28, W: 28, SS: 32 * 32, YS: 32, XS: 1}
	src := randSlice(rng, 3*32*32+ConvSlack)
	dg := randSlice(rng, 3*28*28*6)
	gw := randSlice(rng, 6*25)
	avx512, avx2 := gradBothSets(t, 25, gw, 6, 5, 5, dg, src, 32, px)
	for i := range avx512 {
		if math.Float32bits(avx512[i]) != math.Float32bits(avx2[i]) {
			t.Fatalf("gw[%d] = %g with AVX-512, %g with AVX2", i, avx512[i], avx2[i])
		}
	}
}

// gradBothSets adds the kernel gradient (Conv.AddGrad: cout channels, a
// kh×rl patch, output gradient dg with row stride cout) to copies of gw
// with the AVX-512 and with the AVX2 kernels, and fails unless the
// AVX-512 kernels took tiles of tile positions and the AVX2 ones did not.
func gradBothSets(t *testing.T, tile int, gw []float32, cout, kh, rl int, dg, src []float32, line int, px ConvPixels) (avx512, avx2 []float32) {
	t.Helper()
	var got [2][]float32
	for i, name := range []string{"avx512", "avx2"} {
		var ks kernelSet
		for _, s := range kernelSets() {
			if s.name == name {
				ks = s
			}
		}
		got[i] = append([]float32(nil), gw...)
		c := Conv{own: &ks}
		c.AddGrad(got[i], cout, kh, rl, dg, cout, src, line, px)
		if q := c.tileKey[3]; (q == tile) != (name == "avx512") {
			t.Fatalf("%s kernels, %d channels: tiles of %d positions", name, cout, q)
		}
	}
	return got[0], got[1]
}
