package gemm32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConvGradNineTilesMatchDo forces each kernel set and checks that
// AddGrad adds, bit for bit, what Do adds from the im2col matrix on the
// shapes of the tiles of nine positions and thirty-two channels (17–80
// output channels: one or several blocks of 32, partial ones, a last block
// of at most 16): three kernel rows of three values (3×3 kernels on one
// channel, rows shorter than three, kernel rows not a multiple of three)
// and nine values along a row (3×3 kernels on three channels, rows of 9–27
// values), odd pixel strides, groups spanning several depth blocks and the
// least input the kernels may read. With AVX-512 the tiles of nine must be
// the ones in use on the 3×3 kernels of one and three channels.
func TestConvGradNineTilesMatchDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 9))
	nines := 0
	for _, ks := range kernelSets() {
		for trial := range trials(80) {
			cout := 17 + rng.IntN(64)
			var kh, rl int
			switch trial % 4 {
			case 0: // the 4-layer CNNs' first layers: 3×3×1 and 3×3×3 → 32 or 64
				kh, rl, cout = 3, []int{3, 9}[trial/4%2], []int{32, 64}[trial/8%2]
			case 1: // three rows of three
				kh, rl = 3+rng.IntN(7), 1+rng.IntN(6)
			case 2: // nine along a row
				kh, rl = 1+rng.IntN(4), []int{9, 18, 27, 10 + rng.IntN(20)}[rng.IntN(4)]
			default:
				kh, rl = 1+rng.IntN(6), 1+rng.IntN(30)
			}
			xs, line := 1+rng.IntN(6), rl+rng.IntN(30)
			px := ConvPixels{N: 1 + rng.IntN(3), H: 1 + rng.IntN(12), W: 1 + rng.IntN(30), XS: xs}
			px.YS = (px.W-1)*xs + line/2 + rng.IntN(5)
			px.SS = (px.H-1)*px.YS + (kh-1)*line + (px.W-1)*xs + rl + rng.IntN(7)
			c := Conv{own: &ks}
			checkConvGrad(t, rng, &c, ks.name, cout, kh, rl, line, px)
			q := c.tileKey[3]
			if ks.gradZ9 != nil && trial%4 == 0 && q != 9 {
				t.Fatalf("%s kernels, %d channels, %d×%d patch: tiles of %d positions, not nine", ks.name, cout, kh, rl, q)
			}
			if q == 9 {
				nines++
			}
		}
	}
	if kernelSets()[0].gradZ9 != nil && nines < trials(80)/2 {
		t.Errorf("the tiles of nine computed %d of %d trials", nines, trials(80))
	}
}

// TestConvGradNineTilesAVX2Identical checks that the AVX-512 tiles of nine
// give the same bits as the AVX2 kernels on the 4-layer CNNs' first
// layers, several images of 28×28 or 32×32 pixels (several depth blocks).
func TestConvGradNineTilesAVX2Identical(t *testing.T) {
	if kernelSets()[0].gradZ9 == nil {
		t.Skip("no AVX-512 kernels on this CPU")
	}
	rng := rand.New(rand.NewPCG(40, 99))
	for _, tc := range []struct{ cin, side, cout, n int }{{1, 28, 32, 2}, {1, 28, 64, 1}, {3, 32, 32, 1}, {3, 32, 24, 2}, {1, 28, 40, 1}} {
		w := tc.side + 2
		line := w * tc.cin
		px := ConvPixels{N: tc.n, H: tc.side, W: tc.side, SS: w * line, YS: line, XS: tc.cin}
		src := randSlice(rng, tc.n*px.SS+ConvSlack)
		K := tc.n * tc.side * tc.side
		dg := randSlice(rng, K*tc.cout)
		gw := randSlice(rng, tc.cout*9*tc.cin)
		avx512, avx2 := gradBothSets(t, 9, gw, tc.cout, 3, 3*tc.cin, dg, src, line, px)
		for i := range avx512 {
			if math.Float32bits(avx512[i]) != math.Float32bits(avx2[i]) {
				t.Fatalf("%d→%d channels, %d images: gw[%d] = %g with AVX-512, %g with AVX2", tc.cin, tc.cout, tc.n, i, avx512[i], avx2[i])
			}
		}
	}
}
