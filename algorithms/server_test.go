package algorithms

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/algorithms/serveropt"
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules"
)

// oldFedAvg and oldFedMiD are FedAvg and FedMiD with the server steps
// fedlab had before server optimizers (issue 10), written out: w += η_s·Δ,
// and z = ∇h(w) + η_s·Δ, w = ∇(h + η_s·ē·ψ)*(z).
type oldFedAvg struct{ *FedAvg }

func (a oldFedAvg) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	for i, d := range mean.Vecs[0] {
		a.w[i] += a.s * d
	}
}

type oldFedMiD struct{ *FedMiD }

func (a oldFedMiD) Aggregate(rd *core.Round, mean *core.Message, _ []*core.Message) {
	rd.Mirror.Grad(a.z, a.w)
	for i, d := range mean.Vecs[0] {
		a.z[i] += a.s * d
	}
	rd.Mirror.Composite(a.w, a.z, a.s*mean.Scalars[0], rd.Psi)
}

// The default server optimizer (sgd, lr 1), given by name or as a built
// component, reproduces the old FedAvg and FedMiD records bit for bit,
// with partial participation, minibatches, a server-rate schedule and ℓ1.
func TestServerSGDIsTheOldServerStep(t *testing.T) {
	data := randomCenters(10, 12, 6, 21)
	pl1 := problem(t, data, "l1", map[string]any{"lambda": 0.02})
	etaS := schedules.Geometric{Start: 0.9, Factor: 0.97, Every: 1}
	for _, name := range []string{"fedavg", "fedavg_subgrad", "fedmid", "fedmid_osp"} {
		for _, server := range []any{nil, "sgd", serveropt.SGD{LR: 1}, serveropt.Momentum{LR: 1, Beta: 0}} {
			params := map[string]any{"eta_c": 0.1, "eta_s": etaS}
			if server != nil {
				params["server"] = server
			}
			a, ref := algo(t, name, params), algo(t, name, params)
			var old core.Algorithm
			switch r := ref.(type) {
			case *FedAvg:
				old = oldFedAvg{r}
			case *FedMiD:
				old = oldFedMiD{r}
			}
			got, want := run(t, pl1, a, stochastic), run(t, pl1, old, stochastic)
			if !reflect.DeepEqual(got.Records, want.Records) || !slices.Equal(got.Model, want.Model) {
				t.Fatalf("%s with server %v differs from the old server step", name, server)
			}
		}
	}
}

// fedadam is exactly fedavg with a server Adam of lr 1, and moving η_s into
// the optimizer's lr changes nothing (η_s·lr is the same product).
func TestFedAdamIsFedAvgWithServerAdam(t *testing.T) {
	p := problem(t, randomCenters(10, 12, 6, 22), "none", nil)
	adam := serveropt.Adam{Adaptive: serveropt.Adaptive{LR: 1, Beta1: 0.8, Beta2: 0.95, Tau: 0.01}}
	short := run(t, p, algo(t, "fedadam", map[string]any{"eta_c": 0.1, "eta_s": 0.05, "beta1": 0.8, "beta2": 0.95, "tau": 0.01}), stochastic)
	long := run(t, p, algo(t, "fedavg", map[string]any{"eta_c": 0.1, "eta_s": 0.05, "server": adam}), stochastic)
	adam.LR = 0.05
	inOpt := run(t, p, algo(t, "fedavg", map[string]any{"eta_c": 0.1, "server": adam}), stochastic)
	if !reflect.DeepEqual(short.Records, long.Records) || !reflect.DeepEqual(short.Records, inOpt.Records) {
		t.Fatal("fedadam, fedavg + adam and fedavg + adam with lr = η_s differ")
	}
}

// FedAvgM by hand: two rounds on the hand problem, m ← βm + Δ, x ← x + η_s·lr·m.
func TestFedAvgMHand(t *testing.T) {
	const etaC, etaS, lr, beta = 0.1, 0.5, 0.8, 0.6
	x := slices.Clone(handX0)
	m := []float64{0, 0}
	for range 2 {
		y0, y1 := localSteps(x, handMu[0], []float64{0, 0}, etaC), localSteps(x, handMu[1], []float64{0, 0}, etaC)
		for j := range 2 {
			m[j] = beta*m[j] + (y0[j]-x[j])/2 + (y1[j]-x[j])/2
			x[j] += etaS * lr * m[j]
		}
	}
	got := handRun(t, "fedavg", map[string]any{"eta_c": etaC, "eta_s": etaS, "server": serveropt.Momentum{LR: lr, Beta: beta}}, 2)
	assertVec(t, "fedavgm", got, x, 1e-15)
}

// FedYogi and FedAdagrad by hand (one round each, v₋₁ = τ²).
func TestFedYogiAndFedAdagradHand(t *testing.T) {
	const etaC, lr, b1, b2, tau = 0.1, 0.05, 0.9, 0.99, 0.1
	y0, y1 := localSteps(handX0, handMu[0], []float64{0, 0}, etaC), localSteps(handX0, handMu[1], []float64{0, 0}, etaC)
	for _, c := range []struct {
		name   string
		server core.ServerOptimizer
		v      func(d float64) float64 // v₀ from v₋₁ = τ² and Δ₀ = d
	}{
		{"yogi", serveropt.Yogi{Adaptive: serveropt.Adaptive{LR: lr, Beta1: b1, Beta2: b2, Tau: tau}},
			func(d float64) float64 { return tau*tau - (1-b2)*d*d*math.Copysign(1, tau*tau-d*d) }},
		{"adagrad", serveropt.AdaGrad{LR: lr, Beta1: b1, Tau: tau},
			func(d float64) float64 { return tau*tau + d*d }},
	} {
		x := slices.Clone(handX0)
		for j := range 2 {
			d := (y0[j]-handX0[j])/2 + (y1[j]-handX0[j])/2
			x[j] += lr * (1 - b1) * d / (math.Sqrt(c.v(d)) + tau)
		}
		got := handRun(t, "fedavg", map[string]any{"eta_c": etaC, "server": c.server}, 1)
		assertVec(t, c.name, got, x, 1e-15)
	}
}

// FedMiD's server prox takes one step size: adaptive optimizers are
// refused when the algorithm is built, naming the alternatives.
func TestFedMiDRefusesAdaptiveServers(t *testing.T) {
	for _, name := range []string{"adam", "yogi", "adagrad"} {
		o, err := registry.Build[core.ServerOptimizer](registry.Optimizer, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = registry.Build[core.Algorithm](registry.Algorithm, "fedmid", map[string]any{"server": o})
		if err == nil || !strings.Contains(err.Error(), "fedlab.opt.sgd or fedlab.opt.momentum") {
			t.Fatalf("fedmid with %s: err = %v", name, err)
		}
	}
}
