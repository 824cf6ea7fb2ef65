package algorithms

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// Parameters shared by Fast-FedDA, C-FedDA and MC-FedDA (Bao, Crawshaw, Luo
// & Liu, "Fast Composite Optimization and Statistical Recovery in Federated
// Learning", ICML 2022).

// baoMu is the strong convexity weight shared by Fast-FedDA, C-FedDA and
// MC-FedDA (Bao et al. 2022).
type baoMu struct {
	Mu float64 `param:"mu" min:"0" doc:"strong convexity weight μ of the dual-averaging regularizer (a tuned constant; 0.1 in the paper's synthetic runs)"`
}

// baoWeighting chooses the dual-averaging weights of the same algorithms.
type baoWeighting struct {
	Weights string `param:"weights" choices:"paper|constant" doc:"paper: α = index+1 and the anchor weight γ grows with α (the theorems); constant: α ≡ 1 and a constant anchor L (the authors' code)"`
}

var (
	defaultBaoMu        = baoMu{Mu: 0.1}
	defaultBaoWeighting = baoWeighting{Weights: "paper"}
)

// FastFedDAParams are Fast-FedDA's parameters.
type FastFedDAParams struct {
	baoMu
	L float64 `param:"L,required" min:"0" doc:"anchor weight: γ_t = L·α_t (paper weights) or γ_t = L (constant weights); the smoothness constant in the theory"`
	baoWeighting
	Rho float64 `param:"rho" min:"0" doc:"radius ρ of the domain W = {‖w‖₂ ≤ ρ} (whole model); 0 = no ball (W = R^d)"`
}

func init() {
	registry.Define(registry.Algorithm, "fastfedda",
		"Fast-FedDA (Bao et al. 2022, Alg. 1): strongly convex federated dual averaging; clients send weighted gradient and iterate sums",
		FastFedDAParams{baoMu: defaultBaoMu, baoWeighting: defaultBaoWeighting},
		func(p FastFedDAParams) (core.Algorithm, error) {
			return &FastFedDA{mu: p.Mu, L: p.L, paper: p.Weights == "paper", rho: p.Rho}, nil
		})
}

// baoWeights are the dual-averaging weights of the paper: α_i = i+1 with
// A_i = Σ_{j≤i} α_j = (i+1)(i+2)/2, or the constant α ≡ 1 with A_i = i+1 of
// the authors' code. The index may be fractional (see baoMeanSteps).
type baoWeights struct{ paper bool }

func (w baoWeights) alpha(i float64) float64 {
	if w.paper {
		return i + 1
	}
	return 1
}

func (w baoWeights) cum(i float64) float64 {
	if w.paper {
		return (i + 1) * (i + 2) / 2
	}
	return i + 1
}

// FastFedDA is Fast-FedDA (Algorithm 1 of Bao et al. 2022). Each client k
// keeps g (the α-weighted sum of its stochastic gradients) and w̃ (the
// α-weighted sum of its iterates, w̃_0 = w_0) and steps, for local
// iterations t = t_r, …, t_{r+1}−1,
//
//	G_t = ∇f(w_t; ξ),  g_t = g_{t−1} + α_t G_t,
//	w_{t+1} = Prox_t(g_t − μ w̃_t/2),  w̃_{t+1} = w̃_t + α_{t+1} w_{t+1}   (not at the last step),
//
// and sends (g, w̃) at the last step. The server averages both, sets
// w_{t_{r+1}} = Prox_{t_{r+1}−1}(ḡ − μ w̃̄/2), adds α_{t_{r+1}} w_{t_{r+1}} to w̃̄
// and broadcasts. The prox is
//
//	Prox_t(z) = argmin_{w∈W} ⟨w, z − γ_t w_0⟩ + (μA_t/2 + γ_t)‖w‖²/2 + A_t ψ(w)
//	          = P_W(prox_{(A_t/c_t)ψ}(−(z − γ_t w_0)/c_t)),  c_t = μA_t/2 + γ_t,
//
// with ψ = λψ₁ the round's penalty (soft thresholding for ℓ1, singular
// value thresholding for the nuclear norm) and W the optional ℓ2 ball of
// radius ρ. Scaling into the ball after the prox is exact for any positively
// homogeneous ψ₁ (a norm): by KKT, w = prox(u)/(1+β) with ∂ψ₁(cw) = ∂ψ₁(w).
//
// Weights: α_t = t+1, γ_t = L α_t (Theorem 2.1), or α ≡ 1, γ ≡ L (the
// authors' experiments). The index t counts local iterations from the start
// of the run (of the stage, in a pipeline); with unequal local steps it
// advances by the clients' mean number of steps per round.
//
// Communication: down (g_{t_r−1}, w̃_{t_r−1}) — the clients recompute the
// server iterate w_{t_r} with the server's own prox, so w need not be sent
// (in the first round the second vector is w_0) — and up (g, w̃): two
// vectors each way. The evaluated model is the server iterate (the
// theorem's weighted average of virtual iterates cannot be formed by the
// server; the paper's experiments plot the server iterate too).
type FastFedDA struct {
	mu, L, rho float64
	paper      bool
	w          baoWeights

	w0     []float64 // stage start point (the prox anchor)
	g      []float64 // ḡ_{t_r−1}
	wtPre  []float64 // w̃̄_{t_r−1} before the server iterate is added
	model  []float64 // server iterate w_{t_r}
	e      float64   // mean local steps per round
	t      float64   // t_r: local iterations before this round
	rounds int       // rounds completed in this run
	psiSrv core.Psi  // the penalty with which the server computed w_{t_r}
	psi    core.Psi  // this round's penalty
	first  core.Psi  // the penalty of the run's first round (its regularizer and layout, for State)
}

// Init starts at w_0 with g = 0 and w̃ = w_0.
func (a *FastFedDA) Init(env *core.Env) error {
	if err := baoEuclidean("fastfedda", env.Problem); err != nil {
		return err
	}
	if a.L <= 0 {
		return fmt.Errorf("parameter \"L\" must be > 0")
	}
	a.w = baoWeights{a.paper}
	a.w0 = append([]float64(nil), env.W0...)
	a.model = append([]float64(nil), env.W0...)
	a.g = make([]float64, len(env.W0))
	a.wtPre = append([]float64(nil), env.W0...)
	a.e = baoMeanSteps(env)
	a.t, a.rounds = 0, 0
	a.first = env.Problem.Penalty.At(env.Settings.RoundOffset, env.Problem.Layout)
	return nil
}

// Shape: (g, w̃) down and up.
func (a *FastFedDA) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 2}, core.MessageShape{Vecs: 2}
}

// Broadcast sends ḡ and w̃̄ before the server iterate's term (w_0 in round 0).
func (a *FastFedDA) Broadcast(rd *core.Round, down *core.Message) {
	a.psi = rd.Psi
	copy(down.Vecs[0], a.g)
	copy(down.Vecs[1], a.wtPre)
}

// ClientUpdate recomputes the server iterate and runs c.Steps local steps.
func (a *FastFedDA) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	g, wt, w, grad := c.Vec(0), c.Vec(1), c.Vec(2), c.Vec(3)
	copy(g, down.Vecs[0])
	t := a.t
	if a.rounds == 0 {
		copy(w, down.Vecs[1])
		copy(wt, w)
	} else {
		a.prox(w, g, down.Vecs[1], t-1, a.psiSrv)
		copy(wt, down.Vecs[1])
		floats.AddScaled(wt, a.w.alpha(t), w)
	}
	for k := range c.Steps {
		c.Gradient(w, grad)
		floats.AddScaled(g, a.w.alpha(t), grad)
		if k < c.Steps-1 {
			a.prox(w, g, wt, t, a.psi)
			floats.AddScaled(wt, a.w.alpha(t+1), w)
		}
		t++
	}
	copy(up.Vecs[0], g)
	copy(up.Vecs[1], wt)
}

// Aggregate averages (g, w̃) and computes the server iterate.
func (a *FastFedDA) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	copy(a.g, mean.Vecs[0])
	copy(a.wtPre, mean.Vecs[1])
	a.t += a.e
	a.rounds++
	a.psiSrv = a.psi
	a.prox(a.model, a.g, a.wtPre, a.t-1, a.psiSrv)
	baoPropagateNaN(a.model, a.g, a.wtPre)
}

// Model is the server iterate.
func (a *FastFedDA) Model(dst []float64) { copy(dst, a.model) }

// prox writes Prox_t(g − μ w̃/2) into dst (dst must not alias g or wt).
func (a *FastFedDA) prox(dst, g, wt []float64, t float64, psi core.Psi) {
	A, gamma := a.w.cum(t), a.L*a.w.alpha(t)
	c := a.mu*A/2 + gamma
	for i := range dst {
		dst[i] = -(g[i] - a.mu*wt[i]/2 - gamma*a.w0[i]) / c
	}
	psi.Prox(dst, dst, A/c)
	if a.rho > 0 {
		if n := floats.Norm(dst, 2); n > a.rho {
			f := a.rho / n
			for i := range dst {
				dst[i] *= f
			}
		}
	}
}

// baoEuclidean rejects non-Euclidean mirror maps (the Bao et al.
// algorithms are defined with the Euclidean prox).
func baoEuclidean(name string, p *core.Problem) error {
	if _, ok := p.Mirror.(core.Euclidean); !ok {
		return fmt.Errorf("algorithm %q needs the Euclidean mirror map, the problem has %T", name, p.Mirror)
	}
	return nil
}

// baoMeanSteps is E, the mean number of local steps per round over the
// clients, weighted like the objective (K when every client takes K steps).
func baoMeanSteps(env *core.Env) float64 {
	s, p := env.Settings, env.Problem
	w := p.ClientWeights()
	e := 0.0
	for m, d := range p.Data.Train {
		e += w[m] * float64(baoLocalSteps(s, d.N))
	}
	return e
}

// baoLocalSteps is the number of local steps a client with n samples takes
// (the engine's rule: K, or epochs·⌈n/B⌉).
func baoLocalSteps(s *core.Settings, n int) int {
	switch {
	case s.LocalEpochs == 0:
		return s.LocalSteps
	case s.Batch == 0 || s.Batch >= n:
		return s.LocalEpochs
	}
	return s.LocalEpochs * ((n + s.Batch - 1) / s.Batch)
}

// baoPropagateNaN fills model with NaN if a state vector has a NaN or Inf
// entry. A prox or projection that works by comparisons (the constrained
// prox's multiplier search, say) can map a non-finite state to a finite
// model; the engine would then miss the divergence.
func baoPropagateNaN(model []float64, states ...[]float64) {
	for _, v := range states {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				for i := range model {
					model[i] = math.NaN()
				}
				return
			}
		}
	}
}

// State declares the anchor, the dual and weighted-iterate states, the
// server iterate, the iteration count and the λ of the server's penalty
// (core.Stateful); the round's penalty is set by Broadcast.
func (a *FastFedDA) State(st *core.State) {
	st.Floats("anchor", a.w0)
	st.Floats("gradient sum", a.g)
	st.Floats("weighted iterate", a.wtPre)
	st.Floats("server iterate", a.model)
	st.Float("local iterations", &a.t)
	st.Count("rounds", &a.rounds)
	st.Float("server penalty weight", &a.psiSrv.Lambda)
	if st.Loading() && a.rounds > 0 {
		lam := a.psiSrv.Lambda
		a.psiSrv = a.first
		a.psiSrv.Lambda = lam
	}
}
