package algorithms

import (
	"math"
	"reflect"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/metrics"
	"github.com/fedlab/fedlab/registry"
)

var stochastic = core.Settings{Rounds: 30, ClientsPerRound: 4, LocalSteps: 5, Batch: 3, Seed: 7}

// FedDualAvg with ψ = 0 and Euclidean h is FedAvg: the dual state is the
// model and the prox is the identity. Same seed ⇒ same clients and batches,
// so the trajectories agree exactly.
func TestFedDualAvgEqualsFedAvgWithoutRegularizer(t *testing.T) {
	data := randomCenters(10, 12, 6, 3)
	params := map[string]any{"eta_c": 0.1, "eta_s": 0.8}
	da := run(t, problem(t, data, "none", nil), algo(t, "feddualavg", params), stochastic)
	avg := run(t, problem(t, data, "none", nil), algo(t, "fedavg", params), stochastic)
	assertVec(t, "model", da.Model, avg.Model, 0)
}

// parallelProjectedSGD is the reference of the paper's sanity check: clients
// run w ← Π_C(w − η_c g) and the server averages, w_{r+1} = Π_C(mean w_K).
type parallelProjectedSGD struct {
	eta float64
	w   []float64
}

func (a *parallelProjectedSGD) Init(env *core.Env) error {
	a.w = append([]float64(nil), env.W0...)
	return nil
}
func (a *parallelProjectedSGD) Shape() (core.MessageShape, core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1}
}
func (a *parallelProjectedSGD) Broadcast(_ *core.Round, down *core.Message) { copy(down.Vecs[0], a.w) }
func (a *parallelProjectedSGD) ClientUpdate(rd *core.Round, c *core.Client, down, up *core.Message) {
	w, g := up.Vecs[0], c.Vec(0)
	copy(w, down.Vecs[0])
	for range c.Steps {
		c.Gradient(w, g)
		floats.AddScaled(w, -a.eta, g)
		rd.Psi.Prox(w, w, 1)
	}
}
func (a *parallelProjectedSGD) Aggregate(rd *core.Round, mean *core.Message, _ []*core.Message) {
	rd.Psi.Prox(a.w, mean.Vecs[0], 1)
}
func (a *parallelProjectedSGD) Model(dst []float64) { copy(dst, a.w) }

// FedMiD with ψ = χ_C (an ℓ2 ball) and η_s = 1 is parallel projected SGD
// with periodic averaging (FCO paper, Sec. 3.1).
func TestFedMiDWithBallEqualsParallelProjectedSGD(t *testing.T) {
	data := randomCenters(10, 12, 6, 4)
	for _, d := range data.Train { // move the optimum outside the ball
		for i := range d.X {
			d.X[i] += 3
		}
	}
	ball := map[string]any{"radius": 0.5}
	mid := run(t, problem(t, data, "l2_ball", ball), algo(t, "fedmid", map[string]any{"eta_c": 0.1, "eta_s": 1.0}), stochastic)
	ref := run(t, problem(t, data, "l2_ball", ball), &parallelProjectedSGD{eta: 0.1}, stochastic)
	assertVec(t, "model", mid.Model, ref.Model, 1e-12)
	if n := math.Sqrt(dotSelf(mid.Model)); n > 0.5*(1+1e-12) {
		t.Fatalf("FedMiD left the ball: ‖w‖ = %g", n)
	}
	// Unconstrained, w would approach the data mean (norm ≈ 7); the projections
	// keep the clients on the sphere and their average just inside it.
	if n := math.Sqrt(dotSelf(mid.Model)); n < 0.4 {
		t.Fatalf("test is vacuous: the constraint does not bind (‖w‖ = %g)", n)
	}
}

func dotSelf(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return s
}

// Records (every metric at every evaluated round) and final models are
// bit-identical for 1 and 4 workers.
func TestDeterministicAcrossWorkerCounts(t *testing.T) {
	data := randomCenters(12, 20, 8, 5)
	var ms []core.Metric
	for _, name := range []string{"objective", "density", "l1_error", "comm"} {
		m, err := registry.Build[core.Metric](registry.Metric, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	data.Truth = &core.Truth{Weights: make([]float64, 8)}
	for _, name := range benchAlgorithms {
		var results []*core.Result
		for _, workers := range []int{1, 4} {
			s := stochastic
			s.Workers, s.EvalEvery = workers, 3
			p := problem(t, data, "l1", map[string]any{"lambda": 0.05})
			results = append(results, core.Run(p, algo(t, name, map[string]any{"eta_c": 0.05}), s, ms))
		}
		if len(results[0].Records) != 11 {
			t.Fatalf("%s: %d records, want 11", name, len(results[0].Records))
		}
		if !reflect.DeepEqual(results[0].Records, results[1].Records) || !reflect.DeepEqual(results[0].Model, results[1].Model) {
			t.Fatalf("%s: records differ between 1 and 4 workers", name)
		}
	}
}

// Deterministic full-batch runs reach the centralized optimum computed by
// core.Solve: FedDualAvg with K = 1 is dual averaging on Φ; with identical
// clients there is no drift and K > 1 converges too; FedAvg with ψ = 0 is
// gradient descent.
func TestFullBatchConvergesToCentralizedOptimum(t *testing.T) {
	hetero := randomCenters(5, 8, 6, 6)
	same := randomCenters(1, 8, 6, 6)
	for range 3 {
		same.Train = append(same.Train, same.Train[0])
	}
	cases := []struct {
		name  string
		data  *core.Federated
		reg   string
		steps int
		tol   float64
	}{
		{"feddualavg", hetero, "l1", 1, 1e-3},
		{"feddualavg", same, "l1", 5, 1e-3},
		{"fedavg", hetero, "none", 1, 1e-9},
		{"centralized", hetero, "l1", 1, 1e-9},
	}
	for _, tc := range cases {
		params := map[string]any{"eta_c": 0.5}
		if tc.name == "centralized" {
			params = nil
		}
		var reg map[string]any
		if tc.reg == "l1" {
			reg = map[string]any{"lambda": 0.8}
		}
		p := problem(t, tc.data, tc.reg, reg)
		ref, err := p.Reference()
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, p, algo(t, tc.name, params), core.Settings{Rounds: 3000, LocalSteps: tc.steps})
		assertVec(t, tc.name, res.Model, ref.W, tc.tol)
		if tc.reg == "l1" && countZeros(ref.W) == 0 {
			t.Fatalf("test is vacuous: the optimum has no zeros (%v)", ref.W)
		}
	}
}

func countZeros(v []float64) int {
	n := 0
	for _, x := range v {
		if x == 0 {
			n++
		}
	}
	return n
}

// The reference optimum satisfies the ℓ1 optimality condition
// −∇F(w*) ∈ λ ∂‖w*‖₁.
func TestReferenceOptimality(t *testing.T) {
	p := problem(t, randomCenters(5, 8, 6, 6), "l1", map[string]any{"lambda": 0.8})
	ref, err := p.Reference()
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, p.Dim())
	p.Smooth(centerEval{}, ref.W, false, g, make([]float64, p.Dim()))
	for i, w := range ref.W {
		if w != 0 && math.Abs(g[i]+0.8*math.Copysign(1, w)) > 1e-8 {
			t.Fatalf("coordinate %d: w=%g, ∇F=%g", i, w, g[i])
		}
		if w == 0 && math.Abs(g[i]) > 0.8+1e-8 {
			t.Fatalf("coordinate %d: zero but |∇F| = %g > λ", i, g[i])
		}
	}
}
