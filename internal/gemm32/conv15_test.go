package gemm32

import (
	"math/rand/v2"
	"testing"
)

// TestConvGradFifteenTilesMatchDo forces each kernel set and checks that
// AddGrad adds, bit for bit, what Do adds from the im2col matrix on the
// shapes of the tiles of fifteen positions (9–40 output channels: one or
// several blocks of 16, partial ones): three kernel rows of five values
// (3×3 kernels on 1 and 3 channels, rows shorter than five, kernel rows
// not a multiple of three) and fifteen values along a row (LeNet-5's
// second layer, rows of 15–40 values), groups spanning several depth
// blocks, and the least input the kernels may read. With AVX-512 the
// tiles of fifteen must be the ones in use (the tiles of nine, which
// AddGrad prefers above 16 channels, are left out here: conv9_test.go).
func TestConvGradFifteenTilesMatchDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 15))
	for _, ks := range kernelSets() {
		ks.gradZ9 = nil
		for trial := range trials(60) {
			cout := 9 + rng.IntN(32)
			var kh, rl int
			switch trial % 4 {
			case 0: // the layers: 5×5×6 → 16, 3×3×1 → 32, 3×3×3 → 64
				cout, kh, rl = []int{16, 32, 64}[trial/4%3], []int{5, 3, 3}[trial/4%3], []int{30, 3, 9}[trial/4%3]
			case 1: // three rows of five
				kh, rl = 3+3*rng.IntN(3), 1+rng.IntN(10)
			case 2: // fifteen along a row
				kh, rl = 1+rng.IntN(5), []int{15, 30, 45}[rng.IntN(3)]
			default:
				kh, rl = 3+rng.IntN(5), 1+rng.IntN(40)
			}
			if n, _ := tiles15(kh, rl); n == 0 || n > tiles12(kh, rl) { // a shape of twelve-position tiles
				kh, rl = 3, 1+rng.IntN(5)
			}
			xs, line := 1+rng.IntN(6), rl+rng.IntN(30)
			px := ConvPixels{N: 1 + rng.IntN(3), H: 1 + rng.IntN(12), W: 1 + rng.IntN(30), XS: xs}
			px.YS = (px.W-1)*xs + line/2 + rng.IntN(5)
			px.SS = (px.H-1)*px.YS + (kh-1)*line + (px.W-1)*xs + rl + rng.IntN(7)
			c := Conv{own: &ks}
			checkConvGrad(t, rng, &c, ks.name, cout, kh, rl, line, px)
			if q := c.tileKey[3]; ks.gradZ15 != nil && q != 15 {
				t.Fatalf("%s kernels, %d channels, %d×%d patch: tiles of %d positions, not fifteen", ks.name, cout, kh, rl, q)
			}
		}
	}
}

// TestConvGradFifteenTileChoice checks which tiles AddGrad takes with
// AVX-512 above 8 channels, and how many positions they compute: fifteen
// where that computes no more than twelve (three rows of five or fifteen
// along a row, whichever computes fewer; fifteen along a row on a tie),
// twelve elsewhere; nine above 16 channels where those take fewer FMAs.
func TestConvGradFifteenTileChoice(t *testing.T) {
	for _, tc := range []struct {
		kh, rl, n15 int
		rows        bool
	}{
		{3, 3, 15, true}, {3, 9, 30, true}, {5, 30, 150, false}, {3, 1, 15, true}, {6, 5, 30, true}, {4, 5, 30, true},
		{1, 15, 15, false}, {2, 30, 60, false}, {3, 15, 45, false}, {3, 14, 45, true}, {2, 5, 0, false},
	} {
		if n, rows := tiles15(tc.kh, tc.rl); n != tc.n15 || rows != tc.rows {
			t.Errorf("%d×%d patch: tiles of fifteen compute %d positions (rows %t), want %d (%t)", tc.kh, tc.rl, n, rows, tc.n15, tc.rows)
		}
	}
	ks := kernelSets()[0]
	if ks.gradZ15 == nil {
		t.Skip("no AVX-512 kernels on this CPU")
	}
	for _, tc := range []struct{ kh, rl, cout, q int }{
		{3, 3, 32, 9}, {3, 9, 64, 9}, {3, 3, 16, 15}, {5, 30, 16, 15}, {5, 30, 20, 15}, {3, 6, 9, 12}, {1, 15, 20, 15}, {5, 45, 16, 15},
		{2, 4, 16, 12}, {1, 12, 16, 12}, {5, 12, 40, 12}, {3, 3, 8, 12}, {5, 5, 6, 25}, {1, 14, 16, 12},
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
