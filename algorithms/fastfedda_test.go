package algorithms

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/regularizers"
)

// baoCapture is a metric that records a copy of every evaluated model.
type baoCapture struct{ models *[][]float64 }

func (baoCapture) Name() string { return "capture" }
func (m baoCapture) Eval(e *core.Eval) float64 {
	*m.models = append(*m.models, append([]float64(nil), e.W...))
	return 0
}

// baoModels runs a on p and returns the model after every round (index 0:
// the initial model).
func baoModels(t *testing.T, p *core.Problem, a core.Algorithm, s core.Settings) [][]float64 {
	t.Helper()
	var models [][]float64
	s.EvalEvery = 1
	res := core.Run(p, a, s, []core.Metric{baoCapture{&models}})
	if res.Status != core.Done {
		t.Fatalf("run %s: %s", res.Status, res.Err)
	}
	return models
}

// baoClientMeans returns each client's mean row: the full-batch gradient of
// the center loss at w is w − mean.
func baoClientMeans(f *core.Federated) [][]float64 {
	var out [][]float64
	for _, d := range f.Train {
		m := make([]float64, d.Features)
		for i := range d.N {
			for j, x := range d.Row(i) {
				m[j] += x / float64(d.N)
			}
		}
		out = append(out, m)
	}
	return out
}

func baoMeanOf(vs [][]float64) []float64 {
	out := make([]float64, len(vs[0]))
	for _, v := range vs {
		for i, x := range v {
			out[i] += x / float64(len(vs))
		}
	}
	return out
}

// refFastFedDA transcribes Algorithm 1 directly (full participation, full
// batches of the center loss, ψ = λ‖·‖₁, W = R^d or the ℓ2 ball ρ): every
// client keeps its own (g, w̃, w), the server averages and broadcasts all
// three. It returns the server iterate after each round.
func refFastFedDA(means [][]float64, w0 []float64, lam, mu, L, rho float64, paper bool, R, K int) [][]float64 {
	alpha := func(t int) float64 {
		if paper {
			return float64(t + 1)
		}
		return 1
	}
	cum := func(t int) float64 {
		if paper {
			return float64((t+1)*(t+2)) / 2
		}
		return float64(t + 1)
	}
	d := len(w0)
	prox := func(z []float64, t int) []float64 {
		A, gamma := cum(t), L*alpha(t)
		c := mu*A/2 + gamma
		out := make([]float64, d)
		n := 0.0
		for i := range out {
			out[i] = soft(-(z[i]-gamma*w0[i])/c, A*lam/c)
			n += out[i] * out[i]
		}
		if rho > 0 && math.Sqrt(n) > rho {
			for i := range out {
				out[i] *= rho / math.Sqrt(n)
			}
		}
		return out
	}
	arg := func(g, wt []float64) []float64 {
		z := make([]float64, d)
		for i := range z {
			z[i] = g[i] - mu*wt[i]/2
		}
		return z
	}
	gS := make([]float64, d)
	wtS := append([]float64(nil), w0...)
	wS := append([]float64(nil), w0...)
	t := 0
	var out [][]float64
	for range R {
		var gs, wts [][]float64
		for _, mean := range means {
			g := append([]float64(nil), gS...)
			wt := append([]float64(nil), wtS...)
			w := append([]float64(nil), wS...)
			for s := range K {
				for i := range g {
					g[i] += alpha(t+s) * (w[i] - mean[i])
				}
				if s < K-1 {
					w = prox(arg(g, wt), t+s)
					for i := range wt {
						wt[i] += alpha(t+s+1) * w[i]
					}
				}
			}
			gs, wts = append(gs, g), append(wts, wt)
		}
		gS, wtS = baoMeanOf(gs), baoMeanOf(wts)
		t += K
		wS = prox(arg(gS, wtS), t-1)
		for i := range wtS {
			wtS[i] += alpha(t) * wS[i]
		}
		out = append(out, wS)
	}
	return out
}

func TestFastFedDAMatchesAlgorithm1(t *testing.T) {
	data := randomCenters(3, 5, 6, 21)
	means := baoClientMeans(data)
	s := core.Settings{Rounds: 6, LocalSteps: 4, Init: "normal", InitScale: 1, Seed: 2}
	for _, c := range []struct {
		weights string
		L, rho  float64
	}{{"paper", 2, 0}, {"constant", 3, 0}, {"paper", 2, 0.5}} {
		p := problem(t, data, "l1", map[string]any{"lambda": 0.05})
		a := algo(t, "fastfedda", map[string]any{"mu": 0.3, "L": c.L, "weights": c.weights, "rho": c.rho})
		got := baoModels(t, p, a, s)
		want := refFastFedDA(means, got[0], 0.05, 0.3, c.L, c.rho, c.weights == "paper", s.Rounds, s.LocalSteps)
		for r := range want {
			assertVec(t, c.weights+" round model", got[r+1], want[r], 1e-12)
		}
		if c.rho > 0 {
			if n := floats.Norm(got[len(got)-1], 2); n > c.rho*(1+1e-12) {
				t.Errorf("model outside the ℓ2 ball: %g > %g", n, c.rho)
			}
		}
	}
}

// TestFastFedDAProxMinimizesItsObjective checks Prox_t against its stated
// objective J(w) = ⟨w, z − γ_t w_0⟩ + (μA_t/2 + γ_t)‖w‖²/2 + A_t λ‖w‖₁ (+ the
// ℓ2 ball), minimized by brute force: J separates by coordinate, so each
// coordinate is minimized by ternary search; with the ball, the Lagrangian
// J + ν(‖w‖² − ρ²)/2 is minimized the same way for every ν of a bisection
// on ‖w(ν)‖ = ρ.
func TestFastFedDAProxMinimizesItsObjective(t *testing.T) {
	const d = 7
	rng := rand.New(rand.NewPCG(5, 5))
	l := core.NewLayout(core.Block{Name: "kernel", Rows: d, Cols: 1, Regularized: true})
	for k := range 60 {
		lam, mu, L := 0.2*rng.Float64(), 0.5*rng.Float64(), 0.5+2*rng.Float64()
		rho := 0.0
		if k%2 == 1 {
			rho = 0.3 + rng.Float64()
		}
		a := &FastFedDA{mu: mu, L: L, paper: k%3 != 0, rho: rho, w: baoWeights{k%3 != 0}}
		a.w0 = baoRandVec(rng, d)
		g, wt := baoRandVec(rng, d), baoRandVec(rng, d)
		for i := range g {
			g[i] *= 5
		}
		tt := float64(rng.IntN(30))
		psi := core.Psi{Reg: baoLookupReg(t, "l1"), Lambda: lam, Layout: l}
		got := make([]float64, d)
		a.prox(got, g, wt, tt, psi)

		A, gamma := a.w.cum(tt), L*a.w.alpha(tt)
		c := mu*A/2 + gamma
		lin := make([]float64, d)
		for i := range lin {
			lin[i] = g[i] - mu*wt[i]/2 - gamma*a.w0[i]
		}
		minimize := func(nu float64) []float64 {
			out := make([]float64, d)
			for i := range out {
				f := func(x float64) float64 { return lin[i]*x + (c+nu)*x*x/2 + A*lam*math.Abs(x) }
				lo, hi := -100.0, 100.0
				for range 400 {
					m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
					if f(m1) < f(m2) {
						hi = m2
					} else {
						lo = m1
					}
				}
				out[i] = (lo + hi) / 2
			}
			return out
		}
		want := minimize(0)
		if rho > 0 && floats.Norm(want, 2) > rho {
			lo, hi := 0.0, 1.0
			for floats.Norm(minimize(hi), 2) > rho {
				hi *= 2
			}
			for range 100 {
				mid := (lo + hi) / 2
				if floats.Norm(minimize(mid), 2) > rho {
					lo = mid
				} else {
					hi = mid
				}
			}
			want = minimize(hi)
		}
		// ternary search resolves a minimizer to ≈ √ε_mach relative
		assertVec(t, "Prox_t", got, want, 1e-6)
	}
}

func baoRandVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func baoLookupReg(t *testing.T, name string) core.Regularizer {
	t.Helper()
	p := problem(t, centers([][]float64{{0}}), name, map[string]any{"lambda": 1.0})
	return p.Penalty.Reg
}

// Fast-FedDA is deterministic in the worker count and with stochastic
// batches keeps client and server in step (the clients recompute the server
// iterate): identical models for 1 and 3 workers.
func TestFastFedDAWorkersAndStochastic(t *testing.T) {
	data := randomCenters(8, 10, 5, 31)
	p := problem(t, data, "l1", map[string]any{"lambda": 0.02})
	s := core.Settings{Rounds: 15, ClientsPerRound: 3, LocalSteps: 4, Batch: 3, Seed: 9, Workers: 1}
	one := run(t, p, algo(t, "fastfedda", map[string]any{"L": 2.0}), s)
	s.Workers = 3
	three := run(t, p, algo(t, "fastfedda", map[string]any{"L": 2.0}), s)
	assertVec(t, "model", three.Model, one.Model, 0)
	if last := one.Records[len(one.Records)-1]; last.Up != 15*3*2*5 || last.Down != 15*3*2*5 {
		t.Errorf("communication up %d down %d, want %d each (2 vectors of 5 per client and round)", last.Up, last.Down, 15*3*2*5)
	}
}

// A step size far too large overflows the dual sums; the run must be
// reported as diverged, not laundered into a zero model by the ℓ1 prox
// (soft thresholding maps NaN to 0).
func TestBaoDivergenceIsReported(t *testing.T) {
	data := randomCenters(4, 6, 5, 51)
	for _, d := range data.Train {
		for i := range d.X {
			d.X[i] *= 1e3
		}
	}
	p := problem(t, data, "l1", map[string]any{"lambda": 0.01})
	s := core.Settings{Rounds: 400, LocalSteps: 5, Init: "normal", InitScale: 1}
	for _, name := range []string{"fastfedda", "cfedda", "mcfedda"} {
		res := core.Run(p, algo(t, name, map[string]any{"L": 1e-6, "mu": 0.0, "weights": "constant"}), s, nil)
		if res.Status != core.Diverged {
			t.Errorf("%s: status %s, want diverged (model %v)", name, res.Status, res.Model[:3])
		}
	}
}
