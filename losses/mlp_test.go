package losses_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/internal/cputime"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
)

// mlpCase is a small MLP problem with more rows than one evaluation chunk
// (128), so the chunked paths are exercised.
func mlpCase(hidden []int) (losses.MLP, *core.Federated) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n, F, K = 300, 7, 4
	d := randData(rng, n, F, func(int) float64 { return float64(rng.IntN(K)) })
	return losses.MLP{Hidden: hidden}, fed(d, K)
}

func TestMLPLayout(t *testing.T) {
	l, f := mlpCase([]int{5, 3})
	lay := layout(t, l, f)
	want := "kernel1 7x5 (reg) + bias1 1x5 + kernel2 5x3 (reg) + bias2 1x3 + kernel3 3x4 (reg) + bias3 1x4"
	if got := lay.String(); got != want {
		t.Fatalf("layout %q, want %q", got, want)
	}
	if got, want := lay.RegularizedDim(), 7*5+5*3+3*4; got != want {
		t.Fatalf("regularized dim %d, want %d", got, want)
	}
	f.Classes = 0
	if _, err := l.Layout(f); err == nil {
		t.Fatal("regression data accepted")
	}
}

// The gradient agrees with central finite differences on batches and on the
// full data (three chunks), for one and two hidden layers.
func TestMLPGradientFiniteDifferences(t *testing.T) {
	for _, hidden := range [][]int{{6}, {5, 3}} {
		l, f := mlpCase(hidden)
		lay := layout(t, l, f)
		ev := l.NewEvaluator(lay)
		d := f.Train[0]
		rng := rand.New(rand.NewPCG(5, uint64(len(hidden))))
		for trial := range 3 {
			w := randVec(rng, lay.Dim(), 0.7)
			for _, idx := range [][]int{nil, {3, 0, 3, 7, 22}, {d.N - 1}} {
				v, g := evalGrad(ev, w, d, idx)
				if v2 := ev.Eval(w, d, idx, nil); v2 != v {
					t.Errorf("%v trial %d: loss with gradient %g, without %g", hidden, trial, v, v2)
				}
				fd := fdGrad(ev, w, d, idx)
				diff := make([]float64, len(g))
				floats.SubTo(diff, g, fd)
				if e := floats.Norm(diff, 2); e > 1e-6*math.Max(1, floats.Norm(g, 2)) {
					t.Errorf("%v trial %d idx %v: ‖grad − fd‖ = %g (‖grad‖ = %g)", hidden, trial, idx, e, floats.Norm(g, 2))
				}
				if floats.Norm(g, 2) == 0 {
					t.Errorf("%v: zero gradient, test is vacuous", hidden)
				}
			}
		}
	}
}

// A full pass (chunked, no gather) equals the batch listing every row.
func TestMLPBatchMatchesFull(t *testing.T) {
	l, f := mlpCase([]int{5, 3})
	lay := layout(t, l, f)
	ev := l.NewEvaluator(lay)
	d := f.Train[0]
	w := randVec(rand.New(rand.NewPCG(8, 8)), lay.Dim(), 0.7)
	all := make([]int, d.N)
	for i := range all {
		all[i] = i
	}
	vf, gf := evalGrad(ev, w, d, nil)
	vb, gb := evalGrad(ev, w, d, all)
	if !near(vf, vb, 1e-12) {
		t.Errorf("full %g, batch of all rows %g", vf, vb)
	}
	checkVec(t, "grad", gb, gf, 1e-12)
	v0, g0 := evalGrad(ev, w, d, []int{})
	if v0 != 0 || floats.Norm(g0, math.Inf(1)) != 0 {
		t.Errorf("empty batch: loss %g, grad %v", v0, g0)
	}
}

// With no hidden layer the MLP is multinomial logistic regression: same
// layout sizes, loss, gradient and accuracy.
func TestMLPWithoutHiddenIsMultinomial(t *testing.T) {
	l, f := mlpCase(nil)
	lay := layout(t, l, f)
	mlay := layout(t, losses.Multinomial{Bias: true}, f)
	if lay.Dim() != mlay.Dim() {
		t.Fatalf("dims %d vs %d", lay.Dim(), mlay.Dim())
	}
	ev, mev := l.NewEvaluator(lay), losses.Multinomial{Bias: true}.NewEvaluator(mlay)
	d := f.Train[0]
	w := randVec(rand.New(rand.NewPCG(9, 9)), lay.Dim(), 0.7)
	for _, idx := range [][]int{nil, {1, 2, 2, 40}} {
		v, g := evalGrad(ev, w, d, idx)
		mv, mg := evalGrad(mev, w, d, idx)
		if !near(v, mv, 1e-12) {
			t.Errorf("loss %g, multinomial %g", v, mv)
		}
		checkVec(t, "grad", g, mg, 1e-12)
	}
	a, ma := ev.(core.Predictor).Accuracy(w, d), mev.(core.Predictor).Accuracy(w, d)
	if a != ma || a == 0 {
		t.Errorf("accuracy %g, multinomial %g", a, ma)
	}
}

// Hand computation: 1 input, one hidden unit, 2 classes, one sample.
func TestMLPHand(t *testing.T) {
	d := newData([][]float64{{2}}, []float64{1})
	l := losses.MLP{Hidden: []int{1}}
	lay := layout(t, l, fed(d, 2))
	// kernel1 = 0.5, bias1 = −0.25 → h = relu(0.75) = 0.75;
	// kernel2 = (1, −1), bias2 = (0, 0.5) → z = (0.75, −0.25).
	w := []float64{0.5, -0.25, 1, -1, 0, 0.5}
	v, g := evalGrad(l.NewEvaluator(lay), w, d, nil)
	z0, z1 := 0.75, -0.25
	lse := math.Log(math.Exp(z0) + math.Exp(z1))
	p0, p1 := math.Exp(z0-lse), math.Exp(z1-lse)
	if !near(v, lse-z1, 1e-15) {
		t.Fatalf("loss %g, want %g", v, lse-z1)
	}
	dz := []float64{p0, p1 - 1}
	dh := dz[0]*1 + dz[1]*(-1)
	want := []float64{dh * 2, dh, dz[0] * 0.75, dz[1] * 0.75, dz[0], dz[1]}
	checkVec(t, "grad", g, want, 1e-15)
	// A dead hidden unit passes no gradient to the first layer.
	w[1] = -5
	_, g = evalGrad(l.NewEvaluator(lay), w, d, nil)
	if g[0] != 0 || g[1] != 0 {
		t.Fatalf("dead unit: first-layer gradient %v", g[:2])
	}
}

// The FMNIST-sized network (784-200-200-10) does not allocate per batch,
// in particular gonum's Dgemm never starts goroutines (on 136 samples under
// -short instead of 300: still a full chunk of 128 rows and a partial one).
func TestMLPNoAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	n := 300
	if testing.Short() {
		n = 136
	}
	d := randData(rng, n, 784, func(int) float64 { return float64(rng.IntN(10)) })
	l := losses.MLP{Hidden: []int{200, 200}}
	lay := layout(t, l, fed(d, 10))
	ev := l.NewEvaluator(lay)
	w := randVec(rng, lay.Dim(), 0.05)
	g := make([]float64, lay.Dim())
	idx := batch(rng, 16, d.N)
	for name, f := range map[string]func(){
		"batch+grad": func() { ev.Eval(w, d, idx, g) },
		"full+grad":  func() { ev.Eval(w, d, nil, g) },
		"full":       func() { ev.Eval(w, d, nil, nil) },
		"accuracy":   func() { ev.(core.Predictor).Accuracy(w, d) },
	} {
		f()
		if a := testing.AllocsPerRun(allocRuns(10), f); a != 0 {
			t.Errorf("%s: %g allocations per call", name, a)
		}
	}
}

// allocRuns is the number of calls testing.AllocsPerRun averages over in
// the allocation tests: n, or 2 under -short. AllocsPerRun counts the
// process's allocations and rounds their mean down, so an allocation in
// every call fails the test and one by another goroutine (the runtime's,
// a test's left over) during one of two calls does not.
func allocRuns(n int) int {
	if testing.Short() {
		return 2
	}
	return n
}

func TestMLPRegistry(t *testing.T) {
	got, err := registry.Build[core.Loss](registry.Loss, "mlp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := got.(losses.MLP); len(m.Hidden) != 2 || m.Hidden[0] != 200 || m.Hidden[1] != 200 {
		t.Fatalf("default %v", m.Hidden)
	}
	if _, err := registry.Build[core.Loss](registry.Loss, "mlp", map[string]any{"hidden": []float64{10.5}}); err == nil {
		t.Fatal("non-integral width accepted")
	}
}

// benchSamples times a stochastic gradient over a batch of 16 rows on
// 784-feature, 10-class data and reports samples per second of wall-clock
// and of CPU time (the process's, see cputime.Now).
func benchSamples(b *testing.B, l core.Loss) {
	rng := rand.New(rand.NewPCG(4, 4))
	d := randData(rng, 1024, 784, func(int) float64 { return float64(rng.IntN(10)) })
	for i, v := range d.X { // FMNIST-like inputs: in [0, 1], about half zeros
		d.X[i] = math.Max(0, v) / 3
	}
	lay, err := l.Layout(fed(d, 10))
	if err != nil {
		b.Fatal(err)
	}
	ev := l.NewEvaluator(lay)
	w := randVec(rng, lay.Dim(), 0.05)
	g := make([]float64, lay.Dim())
	idx := batch(rng, 16, d.N)
	b.ReportAllocs()
	cpu0 := cputime.Now()
	for b.Loop() {
		ev.Eval(w, d, idx, g)
	}
	b.ReportMetric(float64(16*b.N)/b.Elapsed().Seconds(), "samples/s")
	if cpu := cputime.Now() - cpu0; cpu > 0 {
		b.ReportMetric(float64(16*b.N)/cpu.Seconds(), "samples/cpu-s")
	}
}

// BenchmarkGradientSamples reports gradient samples per second (batch 16,
// one goroutine) for the logistic model and the 784-200-200-10 MLP.
func BenchmarkGradientSamples(b *testing.B) {
	b.Run("multinomial", func(b *testing.B) { benchSamples(b, losses.Multinomial{Bias: true}) })
	b.Run("mlp-200-200", func(b *testing.B) { benchSamples(b, losses.MLP{Hidden: []int{200, 200}}) })
}
