package losses_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/fedlab/fedlab/internal/gemm32"
	"github.com/fedlab/fedlab/losses"
)

// Under each kernel set, the float32 CNN's loss and gradient are the same,
// bit for bit, with the layers of more than eight input channels computed
// from their padded images at every pixel (gemm32.Conv.Pixels, where
// AVX-512 runs it), with their input gradients also computed from the
// output gradients directly (gemm32.ConvBack), and with every layer
// through im2col and the GEMM: a CNN
// on 2×15×21 images whose implicit layers have 9 and 45 input channels
// (patches of 81 and 405 values: one and two depth blocks), 45 and 32
// output channels (a partial 32-channel block and a whole one), padding 0
// and 1, and 40 and
// 8 output pixels per image (calls of six pixels across rows and images,
// and a partial last call), and the 4-layer CNN with 32 filters on
// 28×28 images (its second to fourth layers implicit).
func TestCNN32ImplicitConvBitIdentical(t *testing.T) {
	defer gemm32.SetKernels(gemm32.Kernels())
	defer losses.SetDirectConvOff(losses.SetDirectConvOff(false))
	defer losses.SetConvBackOff(losses.SetConvBackOff(false))
	rng := rand.New(rand.NewPCG(61, 62))
	odd := losses.CNN{InChannels: 2, Height: 15, Width: 21, Channels: []int{9, 45, 32}, Kernel: 3, Padding: []int{1, 0, 1}, Pool: 2, Dense: []int{7}}
	for _, c := range []struct {
		name      string
		net       losses.CNN
		features  int
		classes   int
		batchSize int
		implicit  []bool
		back      []bool
	}{
		{"odd", odd, 2 * 15 * 21, 4, 35, []bool{false, true, true}, []bool{false, true, true}},
		{"cnn4-32-c1", cnn4(32, 1), 28 * 28, 10, 16, []bool{false, true, true, true}, []bool{false, true, true, true}},
	} {
		if testing.Short() {
			if c.name == "cnn4-32-c1" {
				continue // the odd network has every case; this one without -short
			}
			c.batchSize = 13 // one partial chunk
		}
		d := randData(rng, 50, c.features, func(int) float64 { return float64(rng.IntN(c.classes)) })
		lay := layout(t, f32(c.net), fed(d, c.classes))
		w := randVec(rng, lay.Dim(), 0.1)
		idx := batch(rng, c.batchSize, d.N)
		for _, name := range gemm32.Available() {
			if _, err := gemm32.SetKernels(name); err != nil {
				t.Fatal(err)
			}
			losses.SetDirectConvOff(true)
			v0, g0 := evalGrad(f32(c.net).NewEvaluator(lay), w, d, idx)
			losses.SetDirectConvOff(false)
			for _, backOff := range []bool{true, false} {
				losses.SetConvBackOff(backOff)
				ev := f32(c.net).NewEvaluator(lay)
				v, g := evalGrad(ev, w, d, idx)
				want, wantBack := c.implicit, c.back
				if name != "avx512" { // no pixel kernel: every such layer through im2col
					want, wantBack = make([]bool, len(c.implicit)), make([]bool, len(c.back))
				}
				if backOff {
					wantBack = make([]bool, len(c.back))
				}
				if got, gotBack := losses.ImplicitConvLayers(ev), losses.BackConvLayers(ev); !slices.Equal(got, want) || !slices.Equal(gotBack, wantBack) {
					t.Fatalf("%s, %s kernels: implicit layers %v and input gradients %v, want %v and %v", c.name, name, got, gotBack, want, wantBack)
				}
				if math.Float64bits(v) != math.Float64bits(v0) {
					t.Errorf("%s, %s kernels, input gradients direct %v: loss %v implicit, %v through im2col", c.name, name, !backOff, v, v0)
				}
				for i := range g {
					if math.Float64bits(g[i]) != math.Float64bits(g0[i]) {
						t.Fatalf("%s, %s kernels, input gradients direct %v: gradient[%d] = %v implicit, %v through im2col", c.name, name, !backOff, i, g[i], g0[i])
					}
				}
			}
		}
	}
}

// Under each kernel set, pooling a direct layer's output group by group as
// forward computes it gives the loss and gradient of pooling the chunk's
// output at once, bit for bit: LeNet-5 (13-sample groups of its first
// layer) and the 4-layer CNN with 32 filters (2-sample groups), each on a
// chunk of 32 samples and a partial one.
func TestCNN32PoolStepBitIdentical(t *testing.T) {
	defer gemm32.SetKernels(gemm32.Kernels())
	defer losses.SetPoolStepOff(losses.SetPoolStepOff(false))
	rng := rand.New(rand.NewPCG(63, 64))
	n := 45
	if testing.Short() {
		n = 7 // one partial chunk
	}
	for name, net := range map[string]losses.CNN{"lenet5": lenet5, "cnn4-32-c1": cnn4(32, 1)} {
		d := randData(rng, 50, 784, func(int) float64 { return float64(rng.IntN(10)) })
		lay := layout(t, f32(net), fed(d, 10))
		w := randVec(rng, lay.Dim(), 0.1)
		idx := batch(rng, n, d.N)
		for _, kernels := range gemm32.Available() {
			if testing.Short() && kernels == "go" {
				continue // the plain Go kernels compute no layer directly
			}
			if _, err := gemm32.SetKernels(kernels); err != nil {
				t.Fatal(err)
			}
			losses.SetPoolStepOff(true)
			v0, g0 := evalGrad(f32(net).NewEvaluator(lay), w, d, idx)
			losses.SetPoolStepOff(false)
			v, g := evalGrad(f32(net).NewEvaluator(lay), w, d, idx)
			if math.Float64bits(v) != math.Float64bits(v0) {
				t.Errorf("%s, %s kernels: loss %v pooled by groups, %v at once", name, kernels, v, v0)
			}
			for i := range g {
				if math.Float64bits(g[i]) != math.Float64bits(g0[i]) {
					t.Fatalf("%s, %s kernels: gradient[%d] = %v pooled by groups, %v at once", name, kernels, i, g[i], g0[i])
				}
			}
		}
	}
}
