package algorithms

import (
	"testing"

	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/regularizers"
)

// Two clients on the line holding a₁ = 3 and a₂ = −1, f(w; a) = ½(w − a)²,
// full-batch gradients, K = 2 local steps, η_c = 0.5, η_s = 1, ψ = 0.25|w|.
// The expected models after rounds 1 and 2 were worked out by hand; the
// derivations are in docs/algorithms/trajectories.md.
func TestHandComputedTrajectories(t *testing.T) {
	cases := []struct {
		name   string
		params map[string]any
		w1, w2 float64
	}{
		{"fedavg", nil, 0.75, 0.9375},
		{"fedavg_subgrad", nil, 0.75, 0.9375},
		{"fedmid", nil, 0.5, 0.625},
		{"fedmid_osp", nil, 0.5, 0.625},
		{"feddualavg", nil, 0.5, 0.59375},
		{"feddualavg_osp", nil, 0.5, 0.4375},
		{"centralized", map[string]any{"eta": 0.5, "method": "pgd"}, 0.375, 0.5625},
		{"local", map[string]any{"client": 0.0}, 2.0625, 2.578125},
	}
	data := centers([][]float64{{3}}, [][]float64{{-1}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			params := map[string]any{"eta_c": 0.5, "eta_s": 1.0}
			if tc.params != nil {
				params = tc.params
				if tc.name == "local" {
					params["eta_c"] = 0.5
				}
			}
			for rounds, want := range map[int]float64{1: tc.w1, 2: tc.w2} {
				p := problem(t, data, "l1", map[string]any{"lambda": 0.25})
				res := run(t, p, algo(t, tc.name, params), core.Settings{Rounds: rounds, LocalSteps: 2})
				assertVec(t, tc.name, res.Model, []float64{want}, 1e-15)
			}
		})
	}
}

// FedDualAvg's dual state after two rounds of the example above: z₁ = 0.75,
// z₂ = 1.09375, and the elapsed step size η_s η_c (r+1) K = 1, 2.
func TestFedDualAvgDualState(t *testing.T) {
	data := centers([][]float64{{3}}, [][]float64{{-1}})
	p := problem(t, data, "l1", map[string]any{"lambda": 0.25})
	a := algo(t, "feddualavg", map[string]any{"eta_c": 0.5, "eta_s": 1.0}).(*FedDualAvg)
	run(t, p, a, core.Settings{Rounds: 2, LocalSteps: 2})
	assertVec(t, "z2", a.z, []float64{1.09375}, 1e-15)
	if a.elapsed != 2 {
		t.Fatalf("elapsed = %g, want 2", a.elapsed)
	}
}

// With η_s ≠ 1 the paper's η̃_{r,k} = η_s η_c r K + η_c k differs from
// η_s η_c (rK + k). This replays Alg. 3 literally with the printed formula
// on random 3-client data and compares with the running-sum implementation.
func TestFedDualAvgEtaTildeFormula(t *testing.T) {
	const (
		etaC, etaS, lambda = 0.3, 0.4, 0.2
		K, R               = 3, 4
	)
	a := []float64{2.5, -0.7, 1.1}
	data := centers([][]float64{{a[0]}}, [][]float64{{a[1]}}, [][]float64{{a[2]}})
	p := problem(t, data, "l1", map[string]any{"lambda": lambda})
	res := run(t, p, algo(t, "feddualavg", map[string]any{"eta_c": etaC, "eta_s": etaS}), core.Settings{Rounds: R, LocalSteps: K})

	z := 0.0
	for r := range R {
		delta := 0.0
		for _, am := range a {
			zm := z
			for k := range K {
				eta := etaS*etaC*float64(r*K) + etaC*float64(k) // line 8 as printed
				w := soft(zm, eta*lambda)
				zm -= etaC * (w - am)
			}
			delta += (zm - z) / float64(len(a))
		}
		z += etaS * delta
	}
	want := soft(z, etaS*etaC*float64(R*K)*lambda)
	assertVec(t, "w_R", res.Model, []float64{want}, 1e-14)
}

// FedMiD's server prox uses the threshold η_s η_c K λ (Alg. 2 line 10).
func TestFedMiDServerThreshold(t *testing.T) {
	const etaC, etaS, lambda, K = 0.2, 0.7, 0.3, 3
	a := []float64{4, -2}
	data := centers([][]float64{{a[0]}}, [][]float64{{a[1]}})
	p := problem(t, data, "l1", map[string]any{"lambda": lambda})
	res := run(t, p, algo(t, "fedmid", map[string]any{"eta_c": etaC, "eta_s": etaS}), core.Settings{Rounds: 1, LocalSteps: K})
	delta := 0.0
	for _, am := range a {
		w := 0.0
		for range K {
			w = soft(w-etaC*(w-am), etaC*lambda)
		}
		delta += w / 2
	}
	assertVec(t, "w_1", res.Model, []float64{soft(etaS*delta, etaS*etaC*K*lambda)}, 1e-15)
}

// FedMiD with Bao et al.'s server threshold η_s·η_c (server_threshold =
// "step") on the example above. Round 1: the clients end at 2.0625 and
// −0.5625 (as for "sum"), Δ = 0.75, and the server prox with weight
// 0.5·0.25 = 0.125 gives 0.625. Round 2 from 0.625: client 1 takes
// 1.8125 → 1.6875 → 2.34375 → 2.21875, client 2 −0.1875 → −0.0625 →
// −0.53125 → −0.40625, Δ = 0.28125, and 0.90625 − 0.125 = 0.78125.
func TestFedMiDStepThresholdHand(t *testing.T) {
	data := centers([][]float64{{3}}, [][]float64{{-1}})
	params := map[string]any{"eta_c": 0.5, "eta_s": 1.0, "server_threshold": "step"}
	for rounds, want := range map[int]float64{1: 0.625, 2: 0.78125} {
		p := problem(t, data, "l1", map[string]any{"lambda": 0.25})
		res := run(t, p, algo(t, "fedmid", params), core.Settings{Rounds: rounds, LocalSteps: 2})
		assertVec(t, "fedmid step threshold", res.Model, []float64{want}, 1e-15)
	}
}
