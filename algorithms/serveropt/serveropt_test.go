package serveropt

import (
	"math"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// build builds a registered optimizer from raw parameters.
func build(t *testing.T, name string, raw map[string]any) core.ServerOptimizer {
	t.Helper()
	o, err := registry.Build[core.ServerOptimizer](registry.Optimizer, name, raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// steps applies the pseudo-gradients ds with scale s from x = 0 and
// returns x after each step.
func steps(o core.ServerOptimizer, s float64, ds ...[]float64) [][]float64 {
	x := make([]float64, len(ds[0]))
	st := o.Start(len(x))
	var out [][]float64
	for _, d := range ds {
		st.Step(x, d, s)
		out = append(out, append([]float64(nil), x...))
	}
	return out
}

func near(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > tol {
			t.Fatalf("%s: got %v, want %v", what, got, want)
		}
	}
}

// Adam by hand with β₁ = β₂ = ½, τ = 1 (v₋₁ = τ² = 1), η_s·lr = 2·0.6:
// Δ₀ = (1, 7): m = (½, 7/2), v = ½·1 + ½·Δ² = (1, 25), x = 1.2·m/(√v + 1)
// = (0.3, 0.7). Δ₁ = (−1, 5): m = (−¼, 17/4), v = (1, 25), x += 1.2·m/(√v + 1)
// = (−0.15, 0.85). With v₋₁ = 0 (fedlab before issue 10) the first v would
// be (½, 24.5) and x₁ = (0.3515…, 0.7238…).
func TestAdamByHand(t *testing.T) {
	o := build(t, "adam", map[string]any{"lr": 0.6, "beta1": 0.5, "beta2": 0.5, "tau": 1.0})
	xs := steps(o, 2, []float64{1, 7}, []float64{-1, 5})
	near(t, "x₁", xs[0], []float64{0.3, 0.7}, 1e-15)
	near(t, "x₂", xs[1], []float64{0.15, 1.55}, 1e-15)
}

// yogiRef and adagradRef restate Reddi et al.'s Alg. 2 per coordinate.
func adaptiveRef(ds [][]float64, eta, b1, tau float64, second func(v, d2 float64) float64) [][]float64 {
	n := len(ds[0])
	x, m, v := make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range v {
		v[j] = tau * tau
	}
	var out [][]float64
	for _, d := range ds {
		for j := range x {
			m[j] = b1*m[j] + (1-b1)*d[j]
			v[j] = second(v[j], d[j]*d[j])
			x[j] += eta * m[j] / (math.Sqrt(v[j]) + tau)
		}
		out = append(out, append([]float64(nil), x...))
	}
	return out
}

// Yogi: v ← v − (1−β₂)Δ²·sign(v − Δ²) moves v towards Δ² by (1−β₂)Δ²;
// the sequence below makes v grow (Δ² > v) and shrink (Δ² < v) in
// different coordinates and rounds.
func TestYogiByHand(t *testing.T) {
	const lr, b1, b2, tau, s = 0.3, 0.4, 0.8, 0.5, 1.5
	ds := [][]float64{{2, 0.1, -1}, {0.1, 3, -1}, {-0.2, 0.2, 0.5}}
	o := build(t, "yogi", map[string]any{"lr": lr, "beta1": b1, "beta2": b2, "tau": tau})
	want := adaptiveRef(ds, s*lr, b1, tau, func(v, d2 float64) float64 {
		switch {
		case v > d2:
			return v - (1-b2)*d2
		case v < d2:
			return v + (1-b2)*d2
		}
		return v
	})
	for i, x := range steps(o, s, ds...) {
		near(t, "yogi", x, want[i], 1e-15)
	}
	// the first step by hand, coordinate 0: v = 0.25 + 0.2·4 = 1.05,
	// m = 0.6·2 = 1.2, x = 0.45·1.2/(√1.05 + 0.5)
	if got, want := steps(o, s, ds[0])[0][0], 0.45*1.2/(math.Sqrt(1.05)+0.5); math.Abs(got-want) > 1e-15 {
		t.Fatalf("yogi first step %g, want %g", got, want)
	}
}

// AdaGrad: v ← v + Δ², v₋₁ = τ².
func TestAdaGradByHand(t *testing.T) {
	const lr, b1, tau, s = 0.2, 0.5, 0.1, 1
	ds := [][]float64{{1, -3}, {2, 1}}
	o := build(t, "adagrad", map[string]any{"lr": lr, "beta1": b1, "tau": tau})
	got := steps(o, s, ds...)
	// step 1: m = (0.5, −1.5), v = (1.01, 9.01); step 2: m = (1.25, −0.25), v = (5.01, 10.01)
	x1 := []float64{0.2 * 0.5 / (math.Sqrt(1.01) + 0.1), 0.2 * -1.5 / (math.Sqrt(9.01) + 0.1)}
	near(t, "x₁", got[0], x1, 1e-15)
	x2 := []float64{x1[0] + 0.2*1.25/(math.Sqrt(5.01)+0.1), x1[1] + 0.2*-0.25/(math.Sqrt(10.01)+0.1)}
	near(t, "x₂", got[1], x2, 1e-15)
}

// Heavy ball: m ← βm + Δ, x ← x + η_s·lr·m. β = ½, η_s·lr = 2·0.5 = 1:
// Δ = (1, −2), (1, 0), (0, 0) give m = (1, −2), (1.5, −1), (0.75, −0.5)
// and x = (1, −2), (2.5, −3), (3.25, −3.5).
func TestMomentumByHand(t *testing.T) {
	o := build(t, "momentum", map[string]any{"lr": 0.5, "beta": 0.5})
	xs := steps(o, 2, []float64{1, -2}, []float64{1, 0}, []float64{0, 0})
	near(t, "x₁", xs[0], []float64{1, -2}, 0)
	near(t, "x₂", xs[1], []float64{2.5, -3}, 0)
	near(t, "x₃", xs[2], []float64{3.25, -3.5}, 0)
}

// SGD: x ← x + η_s·lr·Δ; with lr = 1 exactly x + η_s·Δ.
func TestSGD(t *testing.T) {
	xs := steps(build(t, "sgd", nil), 0.3, []float64{1, -2})
	if xs[0][0] != 0.3*1 || xs[0][1] != 0.3*-2 {
		t.Fatalf("sgd step %v", xs[0])
	}
}

// Each run gets its own state: two runs from one component do not share moments.
func TestStatePerRun(t *testing.T) {
	o := build(t, "adam", nil)
	a, b := steps(o, 1, []float64{1}, []float64{1}), steps(o, 1, []float64{1}, []float64{1})
	if a[1][0] != b[1][0] {
		t.Fatalf("runs share state: %v vs %v", a, b)
	}
}

// Only SGD and momentum take scalar steps (what FedMiD's server prox needs).
func TestScalarStep(t *testing.T) {
	for name, want := range map[string]bool{"sgd": true, "momentum": true, "adam": false, "yogi": false, "adagrad": false} {
		if _, ok := build(t, name, nil).(core.ScalarStep); ok != want {
			t.Errorf("%s: ScalarStep %v, want %v", name, ok, want)
		}
	}
}

// Misspelled keys get the registry's message.
func TestUnknownKey(t *testing.T) {
	_, err := registry.Build[core.ServerOptimizer](registry.Optimizer, "adam", map[string]any{"beta_1": 0.9})
	if err == nil || !strings.Contains(err.Error(), `did you mean "beta1"`) {
		t.Fatalf("err = %v", err)
	}
}
