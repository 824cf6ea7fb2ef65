package losses_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/internal/gemm32"
	"github.com/fedlab/fedlab/internal/pool32"
	"github.com/fedlab/fedlab/losses"
)

// The float32 CNN's loss and gradient are the same, bit for bit, with its
// 2×2 pools on pool32's kernels and on maxPool32 / unpool32, under each
// GEMM kernel set: LeNet-5, the 4-layer CNN (its third layer's 7×7 output
// pools with an odd last row and column) and an odd-shaped network, on
// batches of several chunks (the bias gradient accumulates across them),
// with models large enough that many ReLUs are inactive and ties occur;
// pool32's AVX-512 and AVX2 kernels each with some GEMM kernel set.
func TestCNN32PoolKernelsBitIdentical(t *testing.T) {
	if !pool32.Enabled() {
		t.Skip("no pool32 kernels on this CPU")
	}
	defer gemm32.SetKernels(gemm32.Kernels())
	defer losses.SetPoolKernelsOff(losses.SetPoolKernelsOff(false))
	prev, _ := pool32.Set(pool32.Available()[0])
	defer pool32.Set(prev)
	rng := rand.New(rand.NewPCG(62, 63))
	odd := losses.CNN{InChannels: 2, Height: 15, Width: 21, Channels: []int{5, 12}, Kernel: 3, Padding: []int{0, 1}, Pool: 2, Dense: []int{7}}
	for _, c := range []struct {
		name                        string
		net                         losses.CNN
		features, classes, batchLen int
	}{
		{"lenet5", lenet5, 784, 62, 40},
		{"cnn4-32-c1", fedda4, 784, 10, 33},
		{"odd", odd, 2 * 15 * 21, 4, 70},
	} {
		d := randData(rng, 80, c.features, func(int) float64 { return float64(rng.IntN(c.classes)) })
		for i, v := range d.X {
			if rng.IntN(4) == 0 {
				d.X[i] = 0 // blank pixels: ties in the pools
			} else {
				d.X[i] = math.Round(v*4) / 4
			}
		}
		lay := layout(t, f32(c.net), fed(d, c.classes))
		w := randVec(rng, lay.Dim(), 0.3)
		idx := batch(rng, c.batchLen, d.N)
		for i, name := range gemm32.Available() {
			if testing.Short() && name == "go" && c.name == "cnn4-32-c1" {
				continue
			}
			if _, err := gemm32.SetKernels(name); err != nil {
				t.Fatal(err)
			}
			pk := pool32.Available()[i%len(pool32.Available())] // each pool kernel set with some GEMM kernel set
			if _, err := pool32.Set(pk); err != nil {
				t.Fatal(err)
			}
			losses.SetPoolKernelsOff(true)
			ev0 := f32(c.net).NewEvaluator(lay)
			v0, g0 := evalGrad(ev0, w, d, idx)
			losses.SetPoolKernelsOff(false)
			ev := f32(c.net).NewEvaluator(lay)
			v, g := evalGrad(ev, w, d, idx)
			if losses.PoolKernels(ev0) || !losses.PoolKernels(ev) {
				t.Fatalf("%s: pool kernels %v with them off, %v with them on", c.name, losses.PoolKernels(ev0), losses.PoolKernels(ev))
			}
			if math.Float64bits(v) != math.Float64bits(v0) {
				t.Errorf("%s, %s kernels, %s pool kernels: loss %v with pool32, %v without", c.name, name, pk, v, v0)
			}
			for i := range g {
				if math.Float64bits(g[i]) != math.Float64bits(g0[i]) {
					t.Fatalf("%s, %s kernels, %s pool kernels: gradient[%d] = %v with pool32, %v without", c.name, name, pk, i, g[i], g0[i])
				}
			}
		}
	}
}
