package losses_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
)

// The float32 MLP's loss and gradient agree with float64's within tol32
// (relative; gradient in the 2-norm) and its gradient with float64 finite
// differences, on batches and the full data (three chunks), with zero, one
// and two hidden layers, and on the 784-200-200-10 network.
func TestMLP32MatchesFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(50, 51))
	big := randData(rng, 140, 784, func(int) float64 { return float64(rng.IntN(10)) })
	for i, v := range big.X {
		big.X[i] = math.Max(0, v) / 3
	}
	for _, hidden := range [][]int{{}, {6}, {5, 3}, {200, 200}} {
		l, f := mlpCase(hidden)
		scale := 0.7
		if len(hidden) == 2 && hidden[0] == 200 {
			f, scale = fed(big, 10), 0.05
		}
		lay := layout(t, l, f)
		ev64 := l.NewEvaluator(lay)
		l.Float32 = true
		ev32 := l.NewEvaluator(lay)
		d := f.Train[0]
		w := randVec(rng, lay.Dim(), scale)
		for _, idx := range [][]int{nil, {3, 0, 3, 7, 22}, batch(rng, 16, d.N)} {
			v64, g64 := evalGrad(ev64, w, d, idx)
			v32, g32 := evalGrad(ev32, w, d, idx)
			if !near(v32, v64, tol32) {
				t.Errorf("%v idx %v: float32 loss %.9g, float64 %.9g", hidden, idx, v32, v64)
			}
			if e := relErr(g32, g64); e > tol32 {
				t.Errorf("%v idx %v: ‖g32 − g64‖/‖g64‖ = %g", hidden, idx, e)
			}
			if v := ev32.Eval(w, d, idx, nil); v != v32 {
				t.Errorf("%v idx %v: loss with gradient %g, without %g", hidden, idx, v32, v)
			}
			if d.Features < 100 {
				if e := relErr(g32, fdGrad(ev64, w, d, idx)); e > tol32 {
					t.Errorf("%v idx %v: ‖g32 − fd‖/‖fd‖ = %g", hidden, idx, e)
				}
			}
		}
		if a32, a64 := ev32.(core.Predictor).Accuracy(w, d), ev64.(core.Predictor).Accuracy(w, d); a32 != a64 {
			t.Errorf("%v: float32 accuracy %g, float64 %g", hidden, a32, a64)
		}
	}
}

// The float32 784-200-200-10 network does not allocate per batch.
func TestMLP32NoAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 13))
	d := randData(rng, 300, 784, func(int) float64 { return float64(rng.IntN(10)) })
	l := losses.MLP{Hidden: []int{200, 200}, Float32: true}
	lay := layout(t, l, fed(d, 10))
	ev := l.NewEvaluator(lay)
	w := randVec(rng, lay.Dim(), 0.05)
	g := make([]float64, lay.Dim())
	idx := batch(rng, 16, d.N)
	for name, f := range map[string]func(){
		"batch+grad": func() { ev.Eval(w, d, idx, g) },
		"full+grad":  func() { ev.Eval(w, d, nil, g) },
		"accuracy":   func() { ev.(core.Predictor).Accuracy(w, d) },
	} {
		f()
		if a := testing.AllocsPerRun(10, f); a != 0 {
			t.Errorf("%s: %g allocations per call", name, a)
		}
	}
}

// precision = "float32" selects the MLP's float32 path; float64 is the
// default.
func TestMLP32Registry(t *testing.T) {
	for _, c := range []struct {
		params map[string]any
		want   bool
	}{{nil, false}, {map[string]any{"precision": "float32"}, true}} {
		got, err := registry.Build[core.Loss](registry.Loss, "mlp", c.params)
		if err != nil {
			t.Fatal(err)
		}
		if got.(losses.MLP).Float32 != c.want {
			t.Errorf("%v: Float32 = %v", c.params, !c.want)
		}
	}
	if _, err := registry.Build[core.Loss](registry.Loss, "mlp", map[string]any{"precision": "half"}); err == nil {
		t.Error("precision half accepted")
	}
}

// BenchmarkGradientSamplesFloat32 is the MLP case of
// BenchmarkGradientSamples in float32.
func BenchmarkGradientSamplesFloat32(b *testing.B) {
	b.Run("mlp-200-200", func(b *testing.B) { benchSamples(b, losses.MLP{Hidden: []int{200, 200}, Float32: true}) })
}
