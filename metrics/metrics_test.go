package metrics_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/losses"
	_ "github.com/fedlab/fedlab/metrics"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules/sched"
)

const lambda = 0.5

// metric builds a registered metric.
func metric(t *testing.T, name string, raw map[string]any) core.Metric {
	t.Helper()
	m, err := registry.Build[core.Metric](registry.Metric, name, raw)
	if err != nil {
		t.Fatalf("metric %s %v: %v", name, raw, err)
	}
	if m.Name() != name {
		t.Errorf("metric %s is named %q", name, m.Name())
	}
	return m
}

// value evaluates a metric on e.
func value(t *testing.T, e *core.Eval, name string, raw map[string]any) float64 {
	t.Helper()
	return metric(t, name, raw).Eval(e)
}

func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// want checks metric name (with params raw) against want; NaN matches NaN.
func want(t *testing.T, e *core.Eval, name string, raw map[string]any, w float64) {
	t.Helper()
	got := value(t, e, name, raw)
	if math.IsNaN(w) {
		if !math.IsNaN(got) {
			t.Errorf("%s %v = %.17g, want NaN", name, raw, got)
		}
		return
	}
	if !near(got, w, 1e-12) {
		t.Errorf("%s %v = %.17g, want %.17g", name, raw, got, w)
	}
}

func data(features int, rows [][]float64, y []float64) *core.Data {
	d := &core.Data{Features: features, N: len(rows), Y: y}
	for _, r := range rows {
		d.X = append(d.X, r...)
	}
	return d
}

// lasso is a two-client least-squares problem in 4 features whose ground
// truth (1, 0, −2, 0) has support {0, 2}, with an l1 penalty of weight 0.5.
func lasso(t *testing.T, truth bool, test bool) *core.Problem {
	t.Helper()
	f := &core.Federated{Name: "lasso", Features: 4, Train: []*core.Data{
		data(4, [][]float64{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 1}}, []float64{1, 0, -1}),
		data(4, [][]float64{{1, 1, 1, 1}, {2, 0, -1, 0}}, []float64{2, 0.5}),
	}}
	if truth {
		f.Truth = &core.Truth{Weights: []float64{1, 0, -2, 0}, Bias: 0.5}
	}
	if test {
		f.Test = []*core.Data{
			data(4, [][]float64{{0, 0, 0, 1}}, []float64{0.4}),
			data(4, [][]float64{{1, 0, 0, 0}}, []float64{0.3}),
		}
	}
	pen := core.Penalty{Name: "l1", Reg: regularizers.L1{}, Lambda: sched.Constant(lambda)}
	p, err := core.NewProblem(f, losses.Squared{Half: true, Intercept: true}, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Dim() != 5 {
		t.Fatalf("layout %v: dim %d, want kernel 4 + bias 1", p.Layout, p.Dim())
	}
	return p
}

func eval(p *core.Problem, w []float64, round int) *core.Eval {
	return core.NewEval(p, p.Loss.NewEvaluator(p.Layout), w, round, p.Penalty.At(round, p.Layout))
}

// w0 is kernel (1.2, 0.005, −0.5, 0.3) and bias 0.1.
var w0 = []float64{1.2, 0.005, -0.5, 0.3, 0.1}

// handLoss is the FCO training loss: the uniform mean over clients of each
// client's mean ½(xᵀw + b − y)², computed without the losses package.
func handLoss(parts []*core.Data, w []float64) float64 {
	total := 0.0
	for _, d := range parts {
		s := 0.0
		for i := range d.N {
			r := w[4] - d.Y[i]
			for j, x := range d.Row(i) {
				r += x * w[j]
			}
			s += r * r / 2
		}
		total += s / float64(d.N)
	}
	return total / float64(len(parts))
}

func TestEveryMetricIsTested(t *testing.T) {
	tested := []string{"objective", "train_loss", "test_loss", "regularizer", "train_accuracy", "test_accuracy",
		"l2_error", "l1_error", "fro_error", "op_error", "opt_gap", "comm_up", "comm_down", "comm", "comm_rounds", "samples",
		"precision", "recall", "f1", "density", "nnz", "rank"}
	// stationarity has its own tests (stationarity_test.go).
	tested = append(tested, "stationarity")
	// consensus and loss_gap have their own tests (consensus_test.go).
	tested = append(tested, "consensus", "loss_gap")
	for _, n := range registry.Names(registry.Metric) {
		if !slices.Contains(tested, n) {
			t.Errorf("registered metric %q is not tested", n)
		}
	}
}

func TestMetricParams(t *testing.T) {
	for _, n := range []string{"precision", "recall", "f1", "density", "nnz", "rank"} {
		_, err := registry.Build[core.Metric](registry.Metric, n, map[string]any{"threshold": -0.1})
		if err == nil || !strings.Contains(err.Error(), "below its minimum 0") {
			t.Errorf("%s: negative threshold: %v", n, err)
		}
		_, err = registry.Build[core.Metric](registry.Metric, n, map[string]any{"treshold": 0.1})
		if err == nil || !strings.Contains(err.Error(), `did you mean "threshold"?`) {
			t.Errorf("%s: misspelt threshold: %v", n, err)
		}
	}
	_, err := registry.Build[core.Metric](registry.Metric, "objective", map[string]any{"threshold": 0.1})
	if err == nil || !strings.Contains(err.Error(), "takes no parameters") {
		t.Errorf("objective with a threshold: %v", err)
	}
}

func TestLosses(t *testing.T) {
	p := lasso(t, true, false)
	e := eval(p, w0, 0)
	// Residuals: client 0: 0.3, 0.105, 0.9; client 1: −0.895, 2.5.
	// Client means of ½r²: 0.911025/6 and 7.051025/4; their uniform mean:
	const train = (0.911025/6 + 7.051025/4) / 2 // 0.957296875
	if h := handLoss(p.Data.Train, w0); !near(h, train, 1e-14) {
		t.Fatalf("hand loss %.17g disagrees with the hand-computed %.17g", h, train)
	}
	want(t, e, "train_loss", nil, train)
	// ψ(w) = λ‖kernel‖₁; the bias is not penalized.
	const reg = lambda * (1.2 + 0.005 + 0.5 + 0.3)
	want(t, e, "regularizer", nil, reg)
	want(t, e, "objective", nil, train+reg)
	want(t, e, "test_loss", nil, math.NaN())

	// The loss is not weighted by samples (that would give 0.796205).
	if got := value(t, e, "train_loss", nil); near(got, 0.6*0.911025/6+0.4*7.051025/4, 1e-6) {
		t.Errorf("train_loss %g is weighted by samples", got)
	}

	// Other models, checked against the independent computation.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		w := make([]float64, 5)
		l1 := 0.0
		for i := range w {
			w[i] = rng.NormFloat64()
			if i < 4 {
				l1 += math.Abs(w[i])
			}
		}
		e := eval(p, w, 3)
		want(t, e, "train_loss", nil, handLoss(p.Data.Train, w))
		want(t, e, "objective", nil, handLoss(p.Data.Train, w)+lambda*l1)
	}

	// With test data: residuals 0 and 1, uniform mean over the test clients.
	pt := lasso(t, true, true)
	et := eval(pt, w0, 0)
	want(t, et, "test_loss", nil, 0.25)
	want(t, et, "test_loss", nil, handLoss(pt.Data.Test, w0))
	want(t, et, "train_loss", nil, train)
	// Without a classification loss there is no accuracy.
	want(t, et, "train_accuracy", nil, math.NaN())
	want(t, et, "test_accuracy", nil, math.NaN())
}

// The objective and regularizer use λ of the evaluated round.
func TestObjectiveUsesCurrentLambda(t *testing.T) {
	p := lasso(t, true, false)
	p.Penalty.Lambda = sched.Table{0.5, 2}
	l1 := 1.2 + 0.005 + 0.5 + 0.3
	train := handLoss(p.Data.Train, w0)
	want(t, eval(p, w0, 0), "objective", nil, train+0.5*l1)
	want(t, eval(p, w0, 7), "objective", nil, train+2*l1)
	want(t, eval(p, w0, 7), "regularizer", nil, 2*l1)
}

func TestSupportRecovery(t *testing.T) {
	e := eval(lasso(t, true, false), w0, 0)
	// |w| = (1.2, 0.005, 0.5, 0.3); the truth's support is {0, 2}.
	cases := []struct {
		threshold             float64
		precision, recall, f1 float64
		density, nnz          float64
		comment               string
	}{
		{0.01, 2.0 / 3, 1, 0.8, 0.75, 3, "default threshold: Ŝ = {0, 2, 3}"},
		{0.001, 0.5, 1, 2.0 / 3, 1, 4, "Ŝ = everything"},
		{0.4, 1, 1, 1, 0.5, 2, "Ŝ = S"},
		{0.5, 1, 0.5, 2.0 / 3, 0.25, 1, "strict: |w₂| = 0.5 is not above 0.5"},
		{0.6, 1, 0.5, 2.0 / 3, 0.25, 1, "Ŝ = {0}"},
		{2, 1, 0, 0, 0, 0, "empty estimate: precision 1, recall 0, f1 0"},
	}
	for _, c := range cases {
		raw := map[string]any{"threshold": c.threshold}
		if c.threshold == 0.01 {
			raw = nil // the default
		}
		t.Run(c.comment, func(t *testing.T) {
			want(t, e, "precision", raw, c.precision)
			want(t, e, "recall", raw, c.recall)
			want(t, e, "f1", raw, c.f1)
			want(t, e, "density", raw, c.density)
			want(t, e, "nnz", raw, c.nnz)
		})
	}

	// The bias is not part of the support even when it is large.
	w := []float64{0, 0, 0, 0, 100}
	ez := eval(lasso(t, true, false), w, 0)
	want(t, ez, "nnz", nil, 0)
	want(t, ez, "precision", nil, 1)
	want(t, ez, "f1", nil, 0)

	// Without a ground truth the support scores are NaN; counts still work.
	en := eval(lasso(t, false, false), w0, 0)
	for _, n := range []string{"precision", "recall", "f1"} {
		want(t, en, n, nil, math.NaN())
	}
	want(t, en, "nnz", nil, 3)
	want(t, en, "density", nil, 0.75)

	// An all-zero truth: nothing to find.
	pz := lasso(t, true, false)
	pz.Data.Truth.Weights = []float64{0, 0, 0, 0}
	ezz := eval(pz, []float64{0, 0, 0, 0, 1}, 0)
	want(t, ezz, "precision", nil, 1)
	want(t, ezz, "recall", nil, 1)
	want(t, ezz, "f1", nil, 1)
	ezz = eval(pz, w0, 0)
	want(t, ezz, "precision", nil, 0)
	want(t, ezz, "recall", nil, 1)
	want(t, ezz, "f1", nil, 0)

	// A truth of the wrong length is no truth.
	pz.Data.Truth.Weights = []float64{1, 0, -2}
	ebad := eval(pz, w0, 0)
	for _, n := range []string{"precision", "recall", "f1", "l1_error", "l2_error"} {
		want(t, ebad, n, nil, math.NaN())
	}
}

func TestTruthErrors(t *testing.T) {
	e := eval(lasso(t, true, false), w0, 0)
	// w − w_true on the kernel: (0.2, 0.005, 1.5, 0.3); the bias (0.1 vs 0.5) is ignored.
	want(t, e, "l1_error", nil, 0.2+0.005+1.5+0.3)
	want(t, e, "l2_error", nil, math.Sqrt(0.04+0.000025+2.25+0.09))
	want(t, e, "fro_error", nil, math.Sqrt(0.04+0.000025+2.25+0.09))
	// At the truth both errors vanish, whatever the bias.
	et := eval(lasso(t, true, false), []float64{1, 0, -2, 0, 7}, 0)
	want(t, et, "l1_error", nil, 0)
	want(t, et, "l2_error", nil, 0)

	en := eval(lasso(t, false, false), w0, 0)
	for _, n := range []string{"l1_error", "l2_error", "fro_error", "op_error"} {
		want(t, en, n, nil, math.NaN())
	}
}

// lowRank is trace regression with 2×2 samples and ground truth diag(1, 0).
func lowRank(t *testing.T) *core.Problem {
	t.Helper()
	f := &core.Federated{Name: "lowrank", Features: 4, Shape: [2]int{2, 2}, Train: []*core.Data{
		data(4, [][]float64{{1, 0, 0, 0}, {0, 0, 0, 1}}, []float64{1, 0}),
		data(4, [][]float64{{0, 1, 1, 0}, {1, 1, 1, 1}}, []float64{0.2, 1.1}),
	}, Truth: &core.Truth{Weights: []float64{1, 0, 0, 0}}}
	pen := core.Penalty{Name: "nuclear", Reg: regularizers.Nuclear{}, Lambda: sched.Constant(0.1)}
	p, err := core.NewProblem(f, losses.Trace{Half: true, Intercept: true}, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := p.Layout.Block(losses.KernelBlock); !ok || k.Rows != 2 || k.Cols != 2 {
		t.Fatalf("layout %v, want a 2×2 kernel", p.Layout)
	}
	return p
}

func TestMatrixMetrics(t *testing.T) {
	p := lowRank(t)
	// W = [[2, 1], [1, 2]] has singular values 3 and 1 (the bias, 5, is not part of W).
	e := eval(p, []float64{2, 1, 1, 2, 5}, 0)
	for _, c := range []struct{ threshold, rank float64 }{{0, 2}, {0.5, 2}, {1.5, 1}, {2.9, 1}, {3.5, 0}} {
		want(t, e, "rank", map[string]any{"threshold": c.threshold}, c.rank)
	}
	want(t, e, "rank", nil, 2)
	// W − W_true = [[1, 1], [1, 2]]: eigenvalues (3 ± √5)/2, Frobenius norm √7.
	want(t, e, "op_error", nil, (3+math.Sqrt(5))/2)
	want(t, e, "fro_error", nil, math.Sqrt(7))
	want(t, e, "l2_error", nil, math.Sqrt(7))
	want(t, e, "l1_error", nil, 5)
	// ‖W‖_* = 4.
	want(t, e, "regularizer", nil, 0.1*4)

	// A rank-one W = v vᵀ, v = (1, 2): singular values 5 and 0.
	e1 := eval(p, []float64{1, 2, 2, 4, 0}, 0)
	want(t, e1, "rank", nil, 1)
	want(t, e1, "rank", map[string]any{"threshold": 4.9}, 1)
	want(t, e1, "rank", map[string]any{"threshold": 5.1}, 0)
	// W − W_true = [[0, 2], [2, 4]]: eigenvalues 2 ± 2√2.
	want(t, e1, "op_error", nil, 2+2*math.Sqrt(2))

	// W = diag(3, −2): the operator norm of the error diag(2, −2) is 2, not
	// its largest entry difference nor the Frobenius norm √8.
	e2 := eval(p, []float64{3, 0, 0, -2, 0}, 0)
	want(t, e2, "op_error", nil, 2)
	want(t, e2, "fro_error", nil, math.Sqrt(8))
	want(t, e2, "rank", map[string]any{"threshold": 2.5}, 1)

	// At the truth.
	et := eval(p, []float64{1, 0, 0, 0, 0}, 0)
	want(t, et, "op_error", nil, 0)
	want(t, et, "rank", nil, 1)
	want(t, eval(p, make([]float64, 5), 0), "rank", map[string]any{"threshold": 0}, 0)

	// On a vector model the "matrix" is the 4×1 kernel: rank ≤ 1, and the
	// operator error is the l2 error.
	pl := lasso(t, true, false)
	el := eval(pl, w0, 0)
	want(t, el, "rank", nil, 1)
	want(t, el, "op_error", nil, math.Sqrt(0.04+0.000025+2.25+0.09))
}

func TestAccuracy(t *testing.T) {
	f := &core.Federated{Name: "binary", Features: 2, Classes: 2, Train: []*core.Data{
		data(2, [][]float64{{1, 0}, {-1, 0}, {0, 1}}, []float64{1, 0, 1}),
		data(2, [][]float64{{0, -1}, {2, 2}}, []float64{0, 0}),
	}}
	pen := core.Penalty{Name: "l1", Reg: regularizers.L1{}, Lambda: sched.Constant(0.1)}
	p, err := core.NewProblem(f, losses.Logistic{Intercept: true}, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	// w = (1, 1), b = 0: margins 1, −1, 1 (all right) and −1, 4 (one wrong).
	// Accuracy pools the samples: 4/5, not the client mean (1 + ½)/2.
	w := []float64{1, 1, 0}
	e := eval(p, w, 0)
	want(t, e, "train_accuracy", nil, 0.8)
	want(t, e, "test_accuracy", nil, math.NaN())
	// b = −5 predicts every sample negative: the 3 negatives are right.
	want(t, eval(p, []float64{1, 1, -5}, 0), "train_accuracy", nil, 0.6)
	// The opposite model gets exactly the other samples right.
	want(t, eval(p, []float64{-1, -1, 0}, 0), "train_accuracy", nil, 0.2)

	// Test labels may be ±1: margins 2 (wrong), −3, 3 (right), −0.5 (wrong).
	f.Test = []*core.Data{
		data(2, [][]float64{{1, 1}}, []float64{-1}),
		data(2, [][]float64{{-1, -2}, {3, 0}, {0.5, -1}}, []float64{-1, 1, 1}),
	}
	p2, err := core.NewProblem(f, losses.Logistic{Intercept: true}, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	e2 := eval(p2, w, 0)
	want(t, e2, "test_accuracy", nil, 0.5)
	want(t, e2, "train_accuracy", nil, 0.8)
	if tl := value(t, e2, "test_loss", nil); math.IsNaN(tl) || tl <= 0 {
		t.Errorf("logistic test_loss = %g", tl)
	}
}

func TestOptGap(t *testing.T) {
	p := lasso(t, true, false)
	ref, err := p.Reference()
	if err != nil {
		t.Fatal(err)
	}
	gapAt := func(w []float64) float64 { return value(t, eval(p, w, 0), "opt_gap", nil) }
	if g := gapAt(ref.W); math.Abs(g) > 1e-12 {
		t.Errorf("opt_gap at the reference optimum = %g, want ≈ 0", g)
	}
	// opt_gap is the objective minus the reference objective.
	e := eval(p, w0, 0)
	if g, o := value(t, e, "opt_gap", nil), value(t, e, "objective", nil); !near(g, o-ref.Objective, 1e-12) || g <= 0 {
		t.Errorf("opt_gap %g, objective %g, reference %g", g, o, ref.Objective)
	}
	// The reference is a minimum: no other point has a negative gap.
	rng := rand.New(rand.NewPCG(3, 4))
	points := [][]float64{make([]float64, 5), w0, {1, 0, -2, 0, 0.5}}
	for _, scale := range []float64{1e-4, 1e-2, 1} {
		for range 20 {
			w := slices.Clone(ref.W)
			for i := range w {
				w[i] += scale * rng.NormFloat64()
			}
			points = append(points, w)
		}
	}
	for _, w := range points {
		if g := gapAt(w); g < -1e-10 || math.IsNaN(g) {
			t.Errorf("opt_gap(%v) = %g < 0", w, g)
		}
	}
}

func TestCommunicationCounters(t *testing.T) {
	e := eval(lasso(t, true, false), w0, 4)
	for _, n := range []string{"comm_up", "comm_down", "comm", "comm_rounds", "samples"} {
		want(t, e, n, nil, 0)
	}
	e.Up, e.Down, e.Samples, e.CommRounds = 100, 250, 42, 3
	want(t, e, "comm_up", nil, 100)
	want(t, e, "comm_down", nil, 250)
	want(t, e, "comm", nil, 350)
	want(t, e, "samples", nil, 42)
	// comm_rounds counts communicating rounds, not e.Round (4 here).
	want(t, e, "comm_rounds", nil, 3)
	e.Up = 1 << 40
	want(t, e, "comm", nil, float64(1<<40)+250)
}
