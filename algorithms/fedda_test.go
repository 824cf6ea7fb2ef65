package algorithms

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// feddaTrajectory is a metric that records a copy of every evaluated model.
type feddaTrajectory struct{ models [][]float64 }

func (m *feddaTrajectory) Name() string { return "trajectory" }
func (m *feddaTrajectory) Eval(e *core.Eval) float64 {
	m.models = append(m.models, slices.Clone(e.W))
	return 0
}

// feddaSettings is a stochastic setting with partial participation.
var feddaSettings = core.Settings{Rounds: 25, ClientsPerRound: 4, LocalSteps: 5, Batch: 3, Seed: 11, EvalEvery: 1}

// With H = I and ψ = 0, FedDA-MVR is STEM with step λη (and c/λ², so that
// α = cη² is the same): x_{i+1} = x_τ + λz_{i+1} = x_i − λη_tν_i, the same
// MVR estimator, and averaging z is averaging the local models. The whole
// trajectories agree (same seed ⇒ same clients and minibatches).
func TestFedDAIdentityEqualsSTEM(t *testing.T) {
	data := randomCenters(8, 12, 5, 21)
	const lr, w, c, lambda = 0.05, 10.0, 50.0, 2.0
	fedda := algo(t, "fedda", map[string]any{"estimator": "mvr", "precond": "identity",
		"lr": lr, "w": w, "power": 1.0 / 3, "c": c, "mirror_scale": lambda, "init_batch": 4})
	stem := algo(t, "stem", map[string]any{"lr": lr * lambda, "w": w, "power": 1.0 / 3, "c": c / (lambda * lambda), "init_batch": 4})
	var trajA, trajB feddaTrajectory
	core.Run(problem(t, data, "none", nil), fedda, feddaSettings, []core.Metric{&trajA})
	core.Run(problem(t, data, "none", nil), stem, feddaSettings, []core.Metric{&trajB})
	if len(trajA.models) != feddaSettings.Rounds+1 || len(trajB.models) != len(trajA.models) {
		t.Fatalf("%d and %d evaluations", len(trajA.models), len(trajB.models))
	}
	for r := range trajA.models {
		assertVec(t, "round model", trajA.models[r], trajB.models[r], 1e-11)
	}
	moved := 0.0
	for i, v := range trajA.models[len(trajA.models)-1] {
		moved = math.Max(moved, math.Abs(v-trajA.models[0][i]))
	}
	if alpha := c * math.Pow(lr/math.Cbrt(w), 2); alpha <= 0.01 || alpha >= 0.5 || moved < 0.5 {
		t.Fatalf("test is vacuous: α₀ = %g, the model moved %g", alpha, moved)
	}
}

// feddaRecLoss wraps centerLoss and records every gradient call: the batch
// and the point.
type feddaRecLoss struct{ calls *[]feddaCall }

type feddaCall struct {
	idx []int
	w   []float64
}

func (l feddaRecLoss) Layout(f *core.Federated) (core.Layout, error) { return centerLoss{}.Layout(f) }
func (l feddaRecLoss) NewEvaluator(core.Layout) core.Evaluator       { return feddaRecEval(l) }

type feddaRecEval feddaRecLoss

func (e feddaRecEval) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	*e.calls = append(*e.calls, feddaCall{slices.Clone(idx), slices.Clone(w)})
	return centerEval{}.Eval(w, d, idx, grad)
}

// The MVR estimator, by hand: one client, batch 1, H = I, λ = 1, ψ = 0.
// With f(w; r) = ½‖w − r‖², ∇f(w; r) = w − r, so from the recorded batches
//
//	x_{i+1} = x_i − η_i ν_i,  ν_{i+1} = (x_{i+1} − r_i) + (1 − cη_i²)(ν_i − (x_i − r_i)),
//
// and each step evaluates one minibatch at x_{i+1} and at x_i.
func TestMVREstimatorHand(t *testing.T) {
	data := centers([][]float64{{1, 2}, {3, -1}, {0, 4}, {-2, 1}})
	var calls []feddaCall
	none, err := registry.Build[core.Penalty](registry.Regularizer, "none", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := core.NewProblem(data, feddaRecLoss{&calls}, none, core.Euclidean{})
	if err != nil {
		t.Fatal(err)
	}
	const lr, w, c = 0.3, 2.0, 4.0
	a := algo(t, "fedda", map[string]any{"estimator": "mvr", "precond": "identity", "lr": lr, "w": w, "c": c})
	s := &core.Settings{Rounds: 1, LocalSteps: 3, Batch: 1, Seed: 5}
	x0 := []float64{0.5, -0.5}
	if err := a.Init(&core.Env{Problem: p, W0: x0, Settings: s}); err != nil {
		t.Fatal(err)
	}
	// ν₀ is the full gradient at x₀: x₀ − mean of the rows.
	nu := []float64{x0[0] - 0.5, x0[1] - 1.5}
	calls = nil
	down, up := a.Shape()
	dn, upm := core.NewMessage(down, 2), core.NewMessage(up, 2)
	rd := &core.Round{Psi: p.Penalty.At(0, p.Layout), Mirror: p.Mirror, Sampled: []int{0}, Weights: []float64{1}}
	a.Broadcast(rd, dn)
	cl := core.NewClient(p, 0, s)
	cl.StartRound(5, 0, 0)
	a.ClientUpdate(rd, cl, dn, upm)
	if len(calls) != 6 {
		t.Fatalf("%d gradient calls, want 2 per step", len(calls))
	}
	x := slices.Clone(x0)
	z := []float64{0, 0}
	for i := range 3 {
		eta := lr / math.Cbrt(w+float64(i))
		xn := []float64{x[0] - eta*nu[0], x[1] - eta*nu[1]}
		z[0], z[1] = z[0]-eta*nu[0], z[1]-eta*nu[1]
		newCall, oldCall := calls[2*i], calls[2*i+1]
		if len(newCall.idx) != 1 || !slices.Equal(newCall.idx, oldCall.idx) {
			t.Fatalf("step %d: batches %v and %v, want one shared row", i, newCall.idx, oldCall.idx)
		}
		assertVec(t, "new point", newCall.w, xn, 1e-15)
		assertVec(t, "old point", oldCall.w, x, 1e-15)
		r := data.Train[0].Row(newCall.idx[0])
		alpha := c * eta * eta
		for j := range nu {
			nu[j] = (xn[j] - r[j]) + (1-alpha)*(nu[j]-(x[j]-r[j]))
		}
		x = xn
	}
	assertVec(t, "z_I", upm.Vecs[0], z, 1e-14)
	assertVec(t, "ν_I", upm.Vecs[1], nu, 1e-14)
	if upm.Scalars[2] != 3 || math.Abs(upm.Scalars[1]-lr/math.Cbrt(w+2)) > 1e-16 {
		t.Fatalf("scalars %v", upm.Scalars)
	}
}

// The ℓ1 prox in the H-norm satisfies its optimality condition
// 0 ∈ −z + eλ_ψ∂‖u‖₁ + λ⁻¹H(u − x₀) on the regularized blocks (per
// coordinate: the threshold is λeλ_ψ/h_j), and −z + λ⁻¹H(u − x₀) = 0 on the
// bias; for a scalar H as well.
func TestFedDAHNormL1Prox(t *testing.T) {
	pen, err := registry.Build[core.Penalty](registry.Regularizer, "l1", map[string]any{"lambda": 0.7})
	if err != nil {
		t.Fatal(err)
	}
	lay := core.NewLayout(core.Block{Name: "kernel", Rows: 40, Cols: 1, Regularized: true}, core.Block{Name: "bias", Rows: 1, Cols: 3})
	psi := pen.At(0, lay)
	rng := rand.New(rand.NewPCG(3, 3))
	n := lay.Dim()
	x0, z, h := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range n {
		x0[i], z[i], h[i] = rng.NormFloat64(), 0.5*rng.NormFloat64(), 0.05+3*rng.Float64()
	}
	const lambda, e = 1.5, 0.3
	for _, scalar := range []bool{false, true} {
		hh, hs := h, 0.0
		if scalar {
			hh, hs = nil, 2.5
		}
		u := make([]float64, n)
		feddaPrimal(u, x0, z, hh, hs, lambda, e, psi, psi.Reg.(core.DiagonalProx))
		zeros := 0
		for i := range n {
			hi := hs
			if !scalar {
				hi = h[i]
			}
			r := -z[i] + hi*(u[i]-x0[i])/lambda // the smooth part's gradient
			switch {
			case i >= 40:
				if math.Abs(r) > 1e-12 {
					t.Fatalf("scalar=%v bias %d: residual %g", scalar, i, r)
				}
			case u[i] != 0:
				if math.Abs(r+e*0.7*math.Copysign(1, u[i])) > 1e-12 {
					t.Fatalf("scalar=%v coordinate %d: u = %g, residual %g", scalar, i, u[i], r)
				}
			default:
				zeros++
				if math.Abs(r) > e*0.7+1e-12 {
					t.Fatalf("scalar=%v coordinate %d: zero but |∇| = %g > eλ_ψ", scalar, i, r)
				}
			}
		}
		if zeros == 0 || zeros == 40 {
			t.Fatalf("scalar=%v: test is vacuous (%d zeros)", scalar, zeros)
		}
	}
}

// With the SGD estimator, H = I, λ = 1, K = 1 and full batches, FedDA is
// proximal gradient descent on Φ with step lr (z̄ = −η∇F(x_τ), e = η), so on
// an ℓ1 problem it converges to the reference optimum. This pins the weight
// e = Σ η of ψ in the argmin.
func TestFedDAProximalGradientLimit(t *testing.T) {
	p := problem(t, randomCenters(5, 8, 6, 6), "l1", map[string]any{"lambda": 0.8})
	ref, err := p.Reference()
	if err != nil {
		t.Fatal(err)
	}
	a := algo(t, "fedda", map[string]any{"estimator": "sgd", "precond": "identity", "lr": 0.5, "power": 0.0, "w": 0.0})
	res := run(t, p, a, core.Settings{Rounds: 300, LocalSteps: 1})
	assertVec(t, "model", res.Model, ref.W, 1e-9)
	if countZeros(ref.W) == 0 {
		t.Fatalf("test is vacuous: the optimum has no zeros (%v)", ref.W)
	}
}

// With the SGD estimator, H = I, λ = 1, a constant step and ψ = 0, FedDA is
// FedAvg (η_s = 1): the same minibatches in the same order.
func TestFedDASGDIdentityIsFedAvg(t *testing.T) {
	data := randomCenters(10, 12, 6, 3)
	s := feddaSettings
	s.EvalEvery = 0
	da := run(t, problem(t, data, "none", nil), algo(t, "fedda",
		map[string]any{"estimator": "sgd", "precond": "identity", "lr": 0.1, "power": 0.0, "w": 0.0}), s)
	avg := run(t, problem(t, data, "none", nil), algo(t, "fedavg", map[string]any{"eta_c": 0.1, "eta_s": 1.0}), s)
	assertVec(t, "model", da.Model, avg.Model, 1e-12)
}

// One round by hand: one client, full batch, K = 2, the momentum estimator
// (Adam convention: ν ← αν + (1−α)g) with a diagonal H. H₀ = εI, so
// x_{i+1} = x₀ + λz/ε; after the round μ = (1−β)(z/η)², H = Diag(√μ + ε),
// and with convention "paper" μ = β(z/η)². The norm rule gives the scalar
// H = (1−β)‖z‖/η + ε.
func TestFedDAAdaptiveMatrixHand(t *testing.T) {
	data := centers([][]float64{{1, -2, 0.5}, {3, 0, -1}})
	mean := []float64{2, -1, -0.25}
	const lr, alpha, beta, eps, lambda = 0.01, 0.9, 0.999, 0.5, 1.5
	for _, tc := range []struct {
		precond, convention string
	}{{"diag", "adam"}, {"diag", "paper"}, {"norm", "adam"}} {
		p := problem(t, data, "none", nil)
		a := algo(t, "fedda", map[string]any{"estimator": "momentum", "precond": tc.precond, "convention": tc.convention,
			"lr": lr, "power": 0.0, "w": 0.0, "alpha": alpha, "beta": beta, "eps": eps, "mirror_scale": lambda}).(*FedDA)
		x0 := []float64{0.2, 0.1, -0.3}
		s := core.Settings{Rounds: 1, LocalSteps: 2, W0: x0}
		res := run(t, p, a, s)
		// by hand
		grad := func(x []float64) []float64 { return []float64{x[0] - mean[0], x[1] - mean[1], x[2] - mean[2]} }
		keep, muKeep := alpha, beta
		if tc.convention == "paper" {
			keep, muKeep = 1-alpha, 1-beta
		}
		nu := grad(x0)
		z := make([]float64, 3)
		x := slices.Clone(x0)
		for range 2 {
			for j := range z {
				z[j] -= lr * nu[j]
				x[j] = x0[j] + lambda*z[j]/eps
			}
			g := grad(x)
			for j := range nu {
				nu[j] = keep*nu[j] + (1-keep)*g[j]
			}
		}
		assertVec(t, tc.precond+"/"+tc.convention+" x₁", res.Model, x, 1e-13)
		assertVec(t, "ν₁", a.nu, nu, 1e-13)
		if tc.precond == "diag" {
			for j := range z {
				want := math.Sqrt((1-muKeep)*(z[j]/lr)*(z[j]/lr)) + eps
				if math.Abs(a.h.h[j]-want) > 1e-12 {
					t.Fatalf("%s: H[%d] = %g, want %g", tc.convention, j, a.h.h[j], want)
				}
			}
		} else {
			want := (1-muKeep)*math.Sqrt(z[0]*z[0]+z[1]*z[1]+z[2]*z[2])/lr + eps
			if math.Abs(a.h.hs-want) > 1e-12 {
				t.Fatalf("norm: H = %g, want %g", a.h.hs, want)
			}
		}
	}
}

// feddaAlgorithms are the algorithms of the FedDA paper's comparisons, with
// parameters for the small test problems.
var feddaAlgorithms = []struct {
	name   string
	params map[string]any
}{
	{"fedda_mvr", map[string]any{"lr": 0.3, "w": 10.0, "c": 20.0, "eps": 1.0}},
	{"fedda_1_2", map[string]any{"lr": 0.3, "w": 10.0, "c": 20.0, "eps": 1.0}},
	{"fedda_2_1", map[string]any{"lr": 0.01}},
	{"fedda_2_2", map[string]any{"lr": 0.01}},
	{"fedda", map[string]any{"estimator": "sgd", "precond": "diag", "lr": 0.05, "power": 0.0, "w": 0.0, "eps": 1.0, "bias_correction": true}},
	{"stem", map[string]any{"lr": 0.3, "w": 10.0, "c": 20.0}},
	{"mime_mvr", map[string]any{"lr": 0.3, "w": 10.0, "c": 20.0, "anchor_batches": 2}},
	{"fedadam", map[string]any{"eta_c": 0.05, "eta_s": 0.05}},
	{"fedcm", map[string]any{"eta_c": 0.05}},
	{"local_amsgrad", map[string]any{"eta_c": 0.02}},
	{"local_adapt", map[string]any{"eta_c": 0.1, "eta_s": 0.1}},
	{"scaffold", map[string]any{"eta_c": 0.05}},
}

// Every algorithm makes progress on a small heterogeneous problem, and its
// records are bit-identical for 1 and 3 workers.
func TestFedDAFamilyProgressAndDeterminism(t *testing.T) {
	data := randomCenters(8, 12, 6, 9)
	obj, err := registry.Build[core.Metric](registry.Metric, "opt_gap", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range feddaAlgorithms {
		var results []*core.Result
		for _, workers := range []int{1, 3} {
			s := feddaSettings
			s.Rounds, s.Workers, s.EvalEvery = 60, workers, 20
			results = append(results, core.Run(problem(t, data, "l1", map[string]any{"lambda": 0.01}), algo(t, tc.name, tc.params), s, []core.Metric{obj}))
		}
		if results[0].Status != core.Done {
			t.Fatalf("%s: %s %s", tc.name, results[0].Status, results[0].Err)
		}
		if !reflect.DeepEqual(results[0].Records, results[1].Records) || !reflect.DeepEqual(results[0].Model, results[1].Model) {
			t.Fatalf("%s: records differ between 1 and 3 workers", tc.name)
		}
		recs := results[0].Records
		first, last := recs[0].Values[0], recs[len(recs)-1].Values[0]
		if !(last < 0.25*first) {
			t.Errorf("%s: objective %g → %g", tc.name, first, last)
		}
	}
}

// After a warm-up round, client updates do not allocate.
func TestFedDAFamilyClientUpdateNoAllocs(t *testing.T) {
	p := problem(t, randomCenters(3, 20, 6, 4), "l1", map[string]any{"lambda": 0.01})
	s := &core.Settings{Rounds: 1, LocalSteps: 4, Batch: 3}
	for _, tc := range feddaAlgorithms {
		a := algo(t, tc.name, tc.params)
		if err := a.Init(&core.Env{Problem: p, W0: make([]float64, p.Dim()), Settings: s}); err != nil {
			t.Fatal(err)
		}
		down, up := a.Shape()
		dn, upm := core.NewMessage(down, p.Dim()), core.NewMessage(up, p.Dim())
		rd := &core.Round{R: 0, Psi: p.Penalty.At(0, p.Layout), Mirror: p.Mirror, Sampled: []int{0}, Weights: []float64{1}}
		a.Broadcast(rd, dn)
		c := core.NewClient(p, 0, s)
		c.StartRound(1, 0, 0)
		a.ClientUpdate(rd, c, dn, upm)
		if n := testing.AllocsPerRun(20, func() { a.ClientUpdate(rd, c, dn, upm) }); n != 0 {
			t.Errorf("%s: %g allocations per client update", tc.name, n)
		}
	}
}

func TestFedDARejects(t *testing.T) {
	data := randomCenters(2, 4, 4, 1)
	if _, err := registry.Build[core.Algorithm](registry.Algorithm, "fedda_mvr", map[string]any{"w": 0.0}); err == nil || !strings.Contains(err.Error(), "\"w\" must be > 0") {
		t.Errorf("w = 0 with power 1/3: %v", err)
	}
	if _, err := registry.Build[core.Algorithm](registry.Algorithm, "fedda_2_1", map[string]any{"c": 1.0}); err == nil {
		t.Error("fedda_2_1 accepted the MVR parameter c")
	}
	res := core.Run(problem(t, data, "nuclear", map[string]any{"lambda": 0.1}), algo(t, "fedda_mvr", nil), core.Settings{Rounds: 1, LocalSteps: 1}, nil)
	if res.Status != core.Failed || !strings.Contains(res.Err, "precond = \"norm\"") {
		t.Errorf("diagonal H with the nuclear norm: %s %s", res.Status, res.Err)
	}
	res = core.Run(problem(t, data, "nuclear", map[string]any{"lambda": 0.1}), algo(t, "fedda_1_2", map[string]any{"lr": 0.1}), core.Settings{Rounds: 2, LocalSteps: 2}, nil)
	if res.Status != core.Done {
		t.Errorf("scalar H with the nuclear norm: %s %s", res.Status, res.Err)
	}
}
