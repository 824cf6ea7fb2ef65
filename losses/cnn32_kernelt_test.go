package losses

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/gemm32"
)

// The forward product of the layers through im2col gives the same bits
// with the kernel transposed once per evaluation (wt, read in place) and
// transposed by the GEMM (kernelTOff): the loss and gradient of CNNs with
// 64, 32, 12 and 5 filters (16-column panels whole, paired and partial),
// every layer through im2col or the small ones direct, under each GEMM
// kernel set, on batches of one and several chunks.
func TestCNN32TransposedKernelBitIdentical(t *testing.T) {
	defer gemm32.SetKernels(gemm32.Kernels())
	defer func(k, d bool) { kernelTOff, directConvOff = k, d }(kernelTOff, directConvOff)
	rng := rand.New(rand.NewPCG(65, 1))
	for ni, c := range []struct {
		net      CNN
		features int
	}{
		{CNN{InChannels: 3, Height: 12, Width: 12, Channels: []int{64, 64}, Kernel: 3, Padding: []int{1}, Pool: 2, Float32: true}, 3 * 12 * 12},
		{CNN{InChannels: 1, Channels: []int{32, 12, 5}, Kernel: 3, Padding: []int{1}, Pool: 2, Dense: []int{9}, Float32: true}, 784},
		{CNN{InChannels: 2, Height: 15, Width: 21, Channels: []int{5, 12}, Kernel: 3, Padding: []int{0, 1}, Pool: 2, Dense: []int{7}, Float32: true}, 2 * 15 * 21},
	} {
		const classes = 5
		d := &core.Data{N: 60, Features: c.features, X: make([]float64, 60*c.features), Y: make([]float64, 60)}
		for i := range d.X {
			d.X[i] = rng.NormFloat64()
		}
		for i := range d.Y {
			d.Y[i] = float64(rng.IntN(classes))
		}
		lay, err := c.net.Layout(&core.Federated{Name: "test", Train: []*core.Data{d}, Features: c.features, Classes: classes})
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, lay.Dim())
		for i := range w {
			w[i] = 0.2 * rng.NormFloat64()
		}
		for _, name := range gemm32.Available() {
			if testing.Short() && name == "go" {
				continue // the slowest set; the assembly ones check the arrangement under -short
			}
			if _, err := gemm32.SetKernels(name); err != nil {
				t.Fatal(err)
			}
			for _, direct := range []bool{false, true} {
				directConvOff = !direct
				idx := rng.Perm(d.N)[:1+rng.IntN(d.N)]
				eval := func(off bool) (float64, []float64) {
					kernelTOff = off
					g := make([]float64, lay.Dim())
					return c.net.NewEvaluator(lay).Eval(w, d, idx, g), g
				}
				v0, g0 := eval(true)
				v, g := eval(false)
				if math.Float64bits(v) != math.Float64bits(v0) {
					t.Errorf("net %d, %s kernels, direct %v: loss %v with the transposed kernel, %v without", ni, name, direct, v, v0)
				}
				for i := range g {
					if math.Float64bits(g[i]) != math.Float64bits(g0[i]) {
						t.Fatalf("net %d, %s kernels, direct %v: gradient[%d] = %v with the transposed kernel, %v without", ni, name, direct, i, g[i], g0[i])
					}
				}
			}
		}
	}
}
