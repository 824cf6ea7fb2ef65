package losses

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/gemm32"
)

// The dense layers' input gradients computed transposed (prevᵀ = W·dlᵀ,
// chunks of at most transposedRows rows) give the bits of dl·Wᵀ: the loss
// and gradient of float32 MLPs and CNNs on batches of 1 to 70 rows (whole
// and partial chunks), with either computation forced, under each GEMM
// kernel set, with dense layers wider and narrower than a 16-column panel.
func TestDenseTransposedInputGradientBitIdentical(t *testing.T) {
	defer gemm32.SetKernels(gemm32.Kernels())
	defer func(r int) { transposedRows = r }(transposedRows)
	rng := rand.New(rand.NewPCG(64, 1))
	nets := []struct {
		loss     core.Loss
		features int
	}{
		{MLP{Hidden: []int{37, 200, 9}, Float32: true}, 50},
		{CNN{InChannels: 1, Channels: []int{6, 16}, Kernel: 5, Padding: []int{2, 0}, Pool: 2, Dense: []int{120, 84}, Float32: true}, 784},
		{CNN{InChannels: 2, Height: 9, Width: 11, Channels: []int{5}, Kernel: 3, Padding: []int{1}, Pool: 2, Dense: []int{17}, Float32: true}, 2 * 9 * 11},
	}
	for ni, c := range nets {
		const classes = 7
		d := &core.Data{N: 90, Features: c.features, X: make([]float64, 90*c.features), Y: make([]float64, 90)}
		for i := range d.X {
			d.X[i] = rng.NormFloat64()
		}
		for i := range d.Y {
			d.Y[i] = float64(rng.IntN(classes))
		}
		f := &core.Federated{Name: "test", Train: []*core.Data{d}, Features: c.features, Classes: classes}
		lay, err := c.loss.Layout(f)
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, lay.Dim())
		for i := range w {
			w[i] = 0.2 * rng.NormFloat64()
		}
		for _, name := range gemm32.Available() {
			if _, err := gemm32.SetKernels(name); err != nil {
				t.Fatal(err)
			}
			sizes := []int{1, 5, 16, 32, 33, 70}
			if testing.Short() {
				sizes = []int{5, 33} // a partial chunk, and one whole chunk and a row
			}
			for _, n := range sizes {
				idx := rng.Perm(d.N)[:n]
				eval := func(rows int) (float64, []float64) {
					transposedRows = rows
					g := make([]float64, lay.Dim())
					return c.loss.NewEvaluator(lay).Eval(w, d, idx, g), g
				}
				v0, g0 := eval(0)
				v, g := eval(32)
				if math.Float64bits(v) != math.Float64bits(v0) {
					t.Errorf("net %d, %s kernels, %d rows: loss %v transposed, %v not", ni, name, n, v, v0)
				}
				for i := range g {
					if math.Float64bits(g[i]) != math.Float64bits(g0[i]) {
						t.Fatalf("net %d, %s kernels, %d rows: gradient[%d] = %v transposed, %v not", ni, name, n, i, g[i], g0[i])
					}
				}
			}
		}
	}
}
