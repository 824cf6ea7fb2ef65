package losses_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/gemm32"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
)

// f32 returns net computing in float32.
func f32(net losses.CNN) losses.CNN {
	net.Float32 = true
	return net
}

// tol32 is the relative tolerance of the float32 path against float64:
// about 170 float32 epsilons (2⁻²³ ≈ 1.2e-7), room for the round-off of
// sums over a few hundred terms per layer.
const tol32 = 2e-5

// cnn32Cases are cnnCases plus LeNet-5 and the 4-layer CNN on 28×28 images
// (70 rows: three chunks; under -short 40 rows, two, and the 4-layer CNN
// with 4 filters per layer).
func cnn32Cases() []struct {
	name string
	net  losses.CNN
	f    *core.Federated
} {
	cs := cnnCases()
	rng := rand.New(rand.NewPCG(33, 34))
	n, cnn4Net := 70, fedda4
	if testing.Short() {
		n = 40               // still one full chunk of 32 samples and a partial one
		cnn4Net = cnn4(4, 1) // the 4-layer CNN's shapes with 4 filters per layer
	}
	d := randData(rng, n, 784, func(int) float64 { return float64(rng.IntN(10)) })
	for i, v := range d.X {
		d.X[i] = math.Max(0, v) / 3
	}
	cs = append(cs, struct {
		name string
		net  losses.CNN
		f    *core.Federated
	}{"lenet5", lenet5, fed(d, 10)}, struct {
		name string
		net  losses.CNN
		f    *core.Federated
	}{"fedda4", cnn4Net, fed(d, 10)})
	return cs
}

// relErr is ‖a − b‖₂ / max(1e-30, ‖b‖₂).
func relErr(a, b []float64) float64 {
	diff := make([]float64, len(a))
	floats.SubTo(diff, a, b)
	return floats.Norm(diff, 2) / math.Max(1e-30, floats.Norm(b, 2))
}

// The float32 loss and gradient agree with the float64 path's within tol32
// (relative; the gradient in the 2-norm) on batches and on the full data.
func TestCNN32MatchesFloat64(t *testing.T) {
	for _, tc := range cnn32Cases() {
		lay := layout(t, tc.net, tc.f)
		ev64, ev32 := tc.net.NewEvaluator(lay), f32(tc.net).NewEvaluator(lay)
		d := tc.f.Train[0]
		rng := rand.New(rand.NewPCG(6, uint64(lay.Dim())))
		scale := 0.6
		if d.Features == 784 {
			scale = 0.1
		}
		w := randVec(rng, lay.Dim(), scale)
		for _, idx := range [][]int{nil, {3, 0, 3, 7, 22}, batch(rng, 16, d.N), {d.N - 1}} {
			v64, g64 := evalGrad(ev64, w, d, idx)
			v32, g32 := evalGrad(ev32, w, d, idx)
			if !near(v32, v64, tol32) {
				t.Errorf("%s idx %v: float32 loss %.9g, float64 %.9g", tc.name, idx, v32, v64)
			}
			if e := relErr(g32, g64); e > tol32 {
				t.Errorf("%s idx %v: ‖g32 − g64‖/‖g64‖ = %g", tc.name, idx, e)
			}
			if v := ev32.Eval(w, d, idx, nil); v != v32 {
				t.Errorf("%s idx %v: loss with gradient %g, without %g", tc.name, idx, v32, v)
			}
		}
	}
}

// The float32 gradient agrees with central finite differences of the
// float64 loss within tol32 (relative, 2-norm).
func TestCNN32GradientFiniteDifferences(t *testing.T) {
	for _, tc := range cnnCases() {
		lay := layout(t, tc.net, tc.f)
		ev64, ev32 := tc.net.NewEvaluator(lay), f32(tc.net).NewEvaluator(lay)
		d := tc.f.Train[0]
		rng := rand.New(rand.NewPCG(7, uint64(lay.Dim())))
		w := randVec(rng, lay.Dim(), 0.6)
		for _, idx := range [][]int{nil, {3, 0, 3, 7, 22}} {
			_, g := evalGrad(ev32, w, d, idx)
			if e := relErr(g, fdGrad(ev64, w, d, idx)); e > tol32 {
				t.Errorf("%s idx %v: ‖g32 − fd‖/‖fd‖ = %g", tc.name, idx, e)
			}
		}
	}
}

// Empty batches give zero loss and a zero gradient, as in float64.
func TestCNN32Empty(t *testing.T) {
	tc := cnnCases()[0]
	lay := layout(t, tc.net, tc.f)
	_, g := evalGrad(f32(tc.net).NewEvaluator(lay), randVec(rand.New(rand.NewPCG(1, 1)), lay.Dim(), 1), tc.f.Train[0], []int{})
	if floats.Norm(g, math.Inf(1)) != 0 {
		t.Fatalf("gradient of an empty batch is not zero")
	}
}

// LeNet-5 and the 4-layer CNN in float32 do not allocate per batch after
// the first call.
func TestCNN32NoAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 12))
	n := 70
	if testing.Short() {
		n = 40 // still one full chunk of 32 samples and a partial one
	}
	d := randData(rng, n, 784, func(int) float64 { return float64(rng.IntN(10)) })
	for name, net := range map[string]losses.CNN{"lenet5": lenet5, "fedda4": fedda4} {
		lay := layout(t, net, fed(d, 10))
		ev := f32(net).NewEvaluator(lay)
		w := randVec(rng, lay.Dim(), 0.05)
		g := make([]float64, lay.Dim())
		idx := batch(rng, 16, d.N)
		for what, f := range map[string]func(){
			"batch+grad": func() { ev.Eval(w, d, idx, g) },
			"full+grad":  func() { ev.Eval(w, d, nil, g) },
			"accuracy":   func() { ev.(core.Predictor).Accuracy(w, d) },
		} { // AllocsPerRun calls f once before it counts: the first call may allocate
			if a := testing.AllocsPerRun(allocRuns(5), f); a != 0 {
				t.Errorf("%s %s: %g allocations per call", name, what, a)
			}
		}
	}
}

// The float32 accuracy counts the rows whose label has the smallest
// float32 loss, and matches float64's on these well-separated logits.
func TestCNN32Accuracy(t *testing.T) {
	for _, tc := range cnnCases() {
		lay := layout(t, tc.net, tc.f)
		ev := f32(tc.net).NewEvaluator(lay)
		w := randVec(rand.New(rand.NewPCG(2, 2)), lay.Dim(), 0.5)
		d := tc.f.Train[0]
		correct := 0
		for i := range d.N {
			one := &core.Data{N: 1, Features: d.Features, X: d.Row(i)}
			best, bestLoss := -1, math.Inf(1)
			for k := range tc.f.Classes {
				one.Y = []float64{float64(k)}
				if l := ev.Eval(w, one, nil, nil); l < bestLoss {
					best, bestLoss = k, l
				}
			}
			if float64(best) == d.Y[i] {
				correct++
			}
		}
		got := ev.(core.Predictor).Accuracy(w, d)
		if want := float64(correct) / float64(d.N); got != want {
			t.Errorf("%s: accuracy %g, want %g", tc.name, got, want)
		}
		if a64 := tc.net.NewEvaluator(lay).(core.Predictor).Accuracy(w, d); got != a64 {
			t.Errorf("%s: float32 accuracy %g, float64 %g", tc.name, got, a64)
		}
	}
}

// Twenty SGD steps (batch 16, step 0.1) on a small image set, one run with
// float32 gradients and one with float64, from the same start: the losses
// agree within tol32 at every step, the models within tol32 relative to the
// distance travelled, and the loss decreases.
func TestCNN32TracksFloat64Training(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 41))
	const n, side, classes = 96, 8, 3
	d := randData(rng, n, side*side, func(i int) float64 { return float64(i % classes) })
	for i := range n { // class c brightens a 4×4 quadrant: a learnable signal
		c := i % classes
		for y := range 4 {
			for x := range 4 {
				d.X[i*side*side+(y+4*(c/2))*side+x+4*(c%2)] += 1.5
			}
		}
	}
	net := losses.CNN{InChannels: 1, Channels: []int{4, 6}, Kernel: 3, Padding: []int{1}, Pool: 2, Dense: []int{8}}
	f := fed(d, classes)
	lay := layout(t, net, f)
	w0 := randVec(rng, lay.Dim(), 0.3)
	batches := make([][]int, 20)
	for i := range batches {
		batches[i] = batch(rng, 16, n)
	}
	train := func(ev core.Evaluator) (w []float64, losses []float64) {
		w = append([]float64(nil), w0...)
		g := make([]float64, len(w))
		for _, idx := range batches {
			losses = append(losses, ev.Eval(w, d, idx, g))
			floats.AddScaled(w, -0.1, g)
		}
		return w, append(losses, ev.Eval(w, d, nil, nil))
	}
	w64, l64 := train(net.NewEvaluator(lay))
	w32, l32 := train(f32(net).NewEvaluator(lay))
	for s := range l64 {
		if !near(l32[s], l64[s], tol32) {
			t.Errorf("step %d: float32 loss %.9g, float64 %.9g", s, l32[s], l64[s])
		}
	}
	moved := make([]float64, len(w0))
	floats.SubTo(moved, w64, w0)
	diff := make([]float64, len(w0))
	floats.SubTo(diff, w32, w64)
	if r := floats.Norm(diff, 2) / floats.Norm(moved, 2); r > tol32 {
		t.Errorf("‖w32 − w64‖/‖w64 − w0‖ = %g", r)
	}
	if full0 := net.NewEvaluator(lay).Eval(w0, d, nil, nil); l64[len(l64)-1] >= 0.9*full0 {
		t.Errorf("training did not reduce the loss: %g → %g", full0, l64[len(l64)-1])
	}
}

// precision = "float32" selects the float32 path; the default is float64
// and other values are refused.
func TestCNN32Registry(t *testing.T) {
	for _, c := range []struct {
		params map[string]any
		want   bool
	}{{nil, false}, {map[string]any{"precision": "float64"}, false}, {map[string]any{"precision": "float32"}, true}} {
		got, err := registry.Build[core.Loss](registry.Loss, "cnn", c.params)
		if err != nil {
			t.Fatal(err)
		}
		if got.(losses.CNN).Float32 != c.want {
			t.Errorf("%v: Float32 = %v", c.params, !c.want)
		}
	}
	if _, err := registry.Build[core.Loss](registry.Loss, "cnn", map[string]any{"precision": "float16"}); err == nil {
		t.Error("precision float16 accepted")
	}
}

// BenchmarkCNNSamplesFloat32 is BenchmarkCNNSamples for the float32 path.
func BenchmarkCNNSamplesFloat32(b *testing.B) {
	b.Run("lenet5", func(b *testing.B) { benchSamples(b, f32(lenet5)) })
	b.Run("fedda-cnn4-32", func(b *testing.B) { benchSamples(b, f32(fedda4)) })
}

// The float32 CNN's loss and gradient are bit-identical whichever assembly
// GEMM kernels run (AVX-512 or AVX2, forced in turn), for LeNet-5 and the
// 4-layer CNN with 64 filters on three-channel images, whose products
// have tiles of 32 columns for the wide kernel.
func TestCNN32KernelsBitIdentical(t *testing.T) {
	var sets []string
	for _, name := range gemm32.Available() {
		if name != "go" {
			sets = append(sets, name)
		}
	}
	if len(sets) < 2 {
		t.Skipf("this CPU runs only the GEMM kernels %v: nothing to compare", gemm32.Available())
	}
	defer gemm32.SetKernels(gemm32.Kernels())
	rng := rand.New(rand.NewPCG(50, 51))
	for _, c := range []struct {
		name      string
		net       losses.CNN
		features  int
		classes   int
		batchSize int
	}{
		{"lenet5", lenet5, 784, 62, 16},
		{"cnn4-64-c3", losses.CNN{InChannels: 3, Channels: []int{64, 64, 64, 64}, Kernel: 3, Padding: []int{1}, Pool: 2}, 3 * 32 * 32, 10, 40},
	} {
		if testing.Short() && c.features == 3*32*32 {
			c.batchSize = 12 // still 12·32·32 rows in the first layer's product
		}
		d := randData(rng, 50, c.features, func(int) float64 { return float64(rng.IntN(c.classes)) })
		lay := layout(t, f32(c.net), fed(d, c.classes))
		w := randVec(rng, lay.Dim(), 0.1)
		idx := batch(rng, c.batchSize, d.N)
		var v0 float64
		var g0 []float64
		for _, name := range sets {
			if _, err := gemm32.SetKernels(name); err != nil {
				t.Fatal(err)
			}
			v, g := evalGrad(f32(c.net).NewEvaluator(lay), w, d, idx)
			if g0 == nil {
				v0, g0 = v, g
				continue
			}
			if math.Float64bits(v) != math.Float64bits(v0) {
				t.Errorf("%s: loss %v with %s kernels, %v with %s", c.name, v, name, v0, sets[0])
			}
			for i := range g {
				if math.Float64bits(g[i]) != math.Float64bits(g0[i]) {
					t.Fatalf("%s: gradient[%d] = %v with %s kernels, %v with %s", c.name, i, g[i], name, g0[i], sets[0])
				}
			}
		}
	}
}

// The float32 CNN's loss and gradient are the same bits whether its
// small-channel layers read their images directly or through im2col, with
// each assembly kernel set forced in turn (the plain Go kernels use im2col
// on every layer): for
// LeNet-5 (both convolutions direct), the 4-layer CNN with 64 filters on
// three-channel images (the first), and a CNN on 2×15×21 images whose
// layers have odd widths and padding 0 and 1.
func TestCNN32DirectConvBitIdentical(t *testing.T) {
	defer gemm32.SetKernels(gemm32.Kernels())
	defer losses.SetDirectConvOff(losses.SetDirectConvOff(false))
	rng := rand.New(rand.NewPCG(52, 53))
	odd := losses.CNN{InChannels: 2, Height: 15, Width: 21, Channels: []int{5, 12}, Kernel: 3, Padding: []int{0, 1}, Pool: 2, Dense: []int{7}}
	for _, c := range []struct {
		name      string
		net       losses.CNN
		features  int
		classes   int
		batchSize int
		direct    []bool
	}{
		{"lenet5", lenet5, 784, 62, 16, []bool{true, true}},
		{"cnn4-64-c3", cnn4(64, 3), 3 * 32 * 32, 10, 40, []bool{true, false, false, false}},
		{"odd", odd, 2 * 15 * 21, 4, 35, []bool{true, true}},
	} {
		if testing.Short() && c.features == 3*32*32 {
			c.batchSize = 12 // still 12·32·32 rows in the first layer's product
		}
		d := randData(rng, 50, c.features, func(int) float64 { return float64(rng.IntN(c.classes)) })
		lay := layout(t, f32(c.net), fed(d, c.classes))
		w := randVec(rng, lay.Dim(), 0.1)
		idx := batch(rng, c.batchSize, d.N)
		for _, name := range gemm32.Available() {
			if testing.Short() && name == "go" && c.name == "cnn4-64-c3" {
				continue // the plain Go kernels compute no layer directly; the small networks check that under -short
			}
			if _, err := gemm32.SetKernels(name); err != nil {
				t.Fatal(err)
			}
			losses.SetDirectConvOff(true)
			v0, g0 := evalGrad(f32(c.net).NewEvaluator(lay), w, d, idx)
			losses.SetDirectConvOff(false)
			ev := f32(c.net).NewEvaluator(lay)
			v, g := evalGrad(ev, w, d, idx)
			want := c.direct
			if name == "go" {
				want = make([]bool, len(c.direct))
			}
			if got := losses.DirectConvLayers(ev); !slices.Equal(got, want) {
				t.Fatalf("%s, %s kernels: direct layers %v, want %v", c.name, name, got, want)
			}
			if math.Float64bits(v) != math.Float64bits(v0) {
				t.Errorf("%s, %s kernels: loss %v direct, %v through im2col", c.name, name, v, v0)
			}
			for i := range g {
				if math.Float64bits(g[i]) != math.Float64bits(g0[i]) {
					t.Fatalf("%s, %s kernels: gradient[%d] = %v direct, %v through im2col", c.name, name, i, g[i], g0[i])
				}
			}
		}
	}
}
