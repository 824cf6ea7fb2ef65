package losses

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/internal/pool32"
)

// poolValue draws a convolution output or gradient value: many ties,
// NaNs, signed zeros and infinities among normal values.
func poolValue(rng *rand.Rand) float32 {
	switch rng.IntN(14) {
	case 0:
		return float32(math.NaN())
	case 1:
		return float32(math.Inf(1 - 2*rng.IntN(2)))
	case 2:
		return float32(math.Copysign(0, -1))
	case 3, 4, 5:
		return float32(rng.IntN(3) - 1)
	}
	return float32(rng.NormFloat64())
}

// poolGeom draws a layer with 2×2 pooling: 1–40 output channels, odd and
// even output sides (an odd last row or column is outside every window).
func poolGeom(rng *rand.Rand) convGeom {
	g := convGeom{cin: 1, k: 1, cout: 1 + rng.IntN(40), pool: 2}
	g.h, g.w = 2+rng.IntN(11), 2+rng.IntN(11)
	if rng.IntN(4) == 0 {
		g.cout = []int{6, 8, 16, 32}[rng.IntN(4)]
	}
	g.ho, g.wo = g.h, g.w
	g.hp, g.wp = g.ho/2, g.wo/2
	return g
}

// The pool32 path of the float32 CNN (maxPool2Kernels, transposePool for
// the planar last layer, unpool2Kernels) gives, bit for bit, what
// maxPool32 and unpool32 give: the pooled values, the maxima's positions,
// the gradient at the convolution output (every pixel, an odd last row
// and column included, over stale values) and the bias gradient added to
// its earlier value; channels last and planar, on values with ties, NaNs,
// signed zeros and infinities; with each of pool32's kernel sets.
func TestPoolKernelsMatchMaxPool32(t *testing.T) {
	if !pool32.Enabled() {
		t.Skip("no pool32 kernels on this CPU")
	}
	prev, _ := pool32.Set(pool32.Available()[0])
	defer pool32.Set(prev)
	for _, kernels := range pool32.Available() {
		if _, err := pool32.Set(kernels); err != nil {
			t.Fatal(err)
		}
		testPoolKernels(t, kernels)
	}
}

func testPoolKernels(t *testing.T, kernels string) {
	rng := rand.New(rand.NewPCG(61, 1))
	for trial := range 400 {
		g, m, planar := poolGeom(rng), 1+rng.IntN(3), trial%2 == 1
		out, b := make([]float32, m*g.outSize()), make([]float32, g.cout)
		for i := range out {
			out[i] = poolValue(rng)
		}
		for i := range b {
			b[i] = poolValue(rng)
		}
		n := m * g.poolSize()
		wantP, wantA := make([]float32, n), make([]int32, n)
		maxPool32(g, out, b, m, wantP, wantA, planar)
		cl, arg := make([]float32, n), make([]int32, n)
		maxPool2Kernels(g, out, b, m, cl, arg)
		gotP, gotA := cl, arg
		if planar {
			gotP = make([]float32, n)
			transposePool(g, cl, m, gotP, true)
			gotA = make([]int32, n) // arg stays channels last: compare it through the same transposition
			C, HW := g.cout, g.hp*g.wp
			for s := range m {
				for c := range C {
					for i := range HW {
						gotA[s*C*HW+c*HW+i] = arg[(s*HW+i)*C+c]
					}
				}
			}
		}
		for o := range wantP {
			if math.Float32bits(gotP[o]) != math.Float32bits(wantP[o]) || gotA[o] != wantA[o] {
				t.Fatalf("%s pool kernels, trial %d, %s, %d channels, %d images, planar %v: pooled[%d] = %g at %d, want %g at %d",
					kernels, trial, geomName(g), g.cout, m, planar, o, gotP[o], gotA[o], wantP[o], wantA[o])
			}
		}

		dp := make([]float32, n) // as the layer above gives it: planar for the last layer
		for i := range dp {
			dp[i] = poolValue(rng)
		}
		run := 1
		if planar {
			run = g.hp * g.wp
		}
		want, got := make([]float32, len(out)), make([]float32, len(out))
		for i := range got {
			want[i], got[i] = 7, 7 // stale values: both overwrite every pixel
		}
		wantB, gotB := make([]float32, g.cout), make([]float32, g.cout)
		for i := range wantB {
			wantB[i] = poolValue(rng)
			gotB[i] = wantB[i]
		}
		unpool32(dp, wantA, out, b, want, wantB, run)
		dcl := dp
		if planar {
			dcl = make([]float32, n)
			transposePool(g, dcl, m, dp, false)
		}
		unpool2Kernels(g, dcl, cl, arg, m, got, gotB)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s pool kernels, trial %d, %s, %d channels, %d images, planar %v: dout[%d] = %g (%#x), want %g (%#x)",
					kernels, trial, geomName(g), g.cout, m, planar, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			}
		}
		for i := range wantB {
			if math.Float32bits(gotB[i]) != math.Float32bits(wantB[i]) {
				t.Fatalf("%s pool kernels, trial %d, %s, %d channels, planar %v: gb[%d] = %g (%#x), want %g (%#x)",
					kernels, trial, geomName(g), g.cout, planar, i, gotB[i], math.Float32bits(gotB[i]), wantB[i], math.Float32bits(wantB[i]))
			}
		}
	}
}
