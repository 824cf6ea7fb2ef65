package algorithms

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// cfeddaCommon are the parameters shared by C-FedDA and MC-FedDA.
type cfeddaCommon struct {
	baoMu
	L float64 `param:"L,required" min:"0" doc:"anchor weight: γ_r = (L+μ)·α_r (paper weights) or γ_r·E = L (constant weights, as in the authors' code)"`
	baoWeighting
	Model string `param:"model" choices:"last|average" doc:"evaluated model: the last server iterate (as the paper's plots) or the weighted average Σα_r w̄_{r+1}/A_R (the algorithm's output)"`
}

// base returns the C-FedDA these parameters describe (without a ball).
func (p cfeddaCommon) base() CFedDA {
	return CFedDA{mu: p.Mu, L: p.L, paper: p.Weights == "paper", average: p.Model == "average"}
}

// CFedDAParams are C-FedDA's parameters.
type CFedDAParams struct {
	cfeddaCommon
	Radius float64 `param:"radius" min:"0" doc:"radius ε of the ball R(w − w_0) ≤ ε in the regularizer's norm (ℓ1 or nuclear) around the start point; 0 = no ball"`
}

// MCFedDAParams are MC-FedDA's parameters.
type MCFedDAParams struct {
	cfeddaCommon
	Lambda0     float64   `param:"lambda0" min:"0" doc:"λ_0 of the first stage; 0 = λ·2^(M−1) with λ the problem's (target) λ, so the last stage runs at λ"`
	StageRounds []float64 `param:"stage_rounds" min:"1" doc:"rounds of stages 0 … M−2 (M = length + 1); the last stage runs until the run ends"`
	Radius0     float64   `param:"radius0" min:"0" doc:"ball radius ε_0 of the first stage, ε_m = ε_0·λ_m/λ_0 (∝ λ_m); 0 = no ball"`
	Restart     string    `param:"restart" choices:"average|last" doc:"start point of stage m+1: stage m's weighted-average output (Alg. 3) or its last server iterate (the authors' code)"`
}

// Check refuses stage lengths that are not integers.
func (p MCFedDAParams) Check() error {
	for i, v := range p.StageRounds {
		if v != math.Trunc(v) {
			return fmt.Errorf("parameter \"stage_rounds\": element %d = %g is not an integer", i+1, v)
		}
	}
	return nil
}

func init() {
	common := cfeddaCommon{baoMu: defaultBaoMu, baoWeighting: defaultBaoWeighting, Model: "last"}
	registry.Define(registry.Algorithm, "cfedda",
		"C-FedDA (Bao et al. 2022, Alg. 2): round-weighted federated dual averaging with an exact constrained prox around the start point",
		CFedDAParams{cfeddaCommon: common},
		func(p CFedDAParams) (core.Algorithm, error) {
			a := p.base()
			a.radius = p.Radius
			return &a, nil
		})
	registry.Define(registry.Algorithm, "mcfedda",
		"MC-FedDA (Bao et al. 2022, Alg. 3): C-FedDA stages with λ_m = max(λ_0 2^−m, λ), radius ∝ λ_m, restarted at each stage's output",
		MCFedDAParams{cfeddaCommon: common, StageRounds: []float64{250, 250}, Restart: "average"},
		func(p MCFedDAParams) (core.Algorithm, error) {
			var bounds []int
			end := 0
			for _, v := range p.StageRounds {
				end += int(v)
				bounds = append(bounds, end)
			}
			return &MCFedDA{base: p.base(), lambda0: p.Lambda0, ends: bounds,
				radius0: p.Radius0, restartLast: p.Restart == "last"}, nil
		})
}

// CFedDA is C-FedDA (Algorithm 2 of Bao et al. 2022). Round r (counted from
// the start of the run, or of the stage in a pipeline) has the weight α_r,
// A_r = Σ_{j≤r} α_j and the anchor γ_r; all E local steps of the round use
// the same round-level quantities. With u = −(z − γ_r E w_0)/c_r and
// c_r = (μA_r/2 + γ_r)E,
//
//	CProx_r(z) = argmin_{R(w−w_0)≤ε} ⟨w, z − γ_r E w_0⟩ + c_r‖w‖²/2 + A_r E λ R(w)
//	           = argmin_{R(w−w_0)≤ε} ½‖w − u‖² + (A_r E λ/c_r) R(w),
//
// solved exactly by core.ConstrainedProx (ℓ1: bisection on the
// ball's multiplier over a per-coordinate piecewise-linear prox; nuclear:
// on singular values). Clients start at the server iterate w̄_r and step
//
//	g ← g + α_r ∇f(w; ξ),  w ← CProx_r(g − μE w̃_r/2)   (not at the last step),
//
// where w̃_r = Σ_{j≤r} α_j w̄_j (w̄_0 = w_0) is the server's sum, frozen in
// the round; they send their gradient sum. The server sets
// w̄_{r+1} = CProx_r(ḡ − μE w̃_r/2), w̃_{r+1} = w̃_r + α_{r+1} w̄_{r+1}, and the
// output is Σ_{r} α_r w̄_{r+1} / Σ_r α_r (Average).
//
// Weights: α_r = r+1 and γ_r = (L+μ)α_r (Theorem 3.1), or α ≡ 1 with the
// anchor γ_r E ≡ L (the authors' code, which does not scale γ by E). E is
// the clients' mean number of local steps per round.
//
// Communication: the round's fixed part b_r = g_{r−1} − μE w̃_r/2 − γ_r E w_0
// of the prox argument and w̄_r down (plus the ball's centre w_0 when the
// ball is on), the client's gradient sum α_r Σ G up: one vector uplink.
type CFedDA struct {
	mu, L, radius float64
	paper         bool
	average       bool    // Model is the weighted average
	lambda        float64 // > 0: overrides the penalty's λ (MC-FedDA stages)

	w      baoWeights
	cp     core.ConstrainedProx
	e      float64
	r      int
	w0     []float64 // stage start point: anchor and ball centre
	g      []float64 // g_{r−1}: the averaged weighted gradient sum
	wt     []float64 // w̃_r
	wbar   []float64 // w̄_r
	b      []float64 // b_r
	sum    []float64 // Σ α_j w̄_{j+1}
	sumA   float64
	psi    core.Psi
	alphaR float64 // α_r of the current round
	scale  float64 // c_r
	step   float64 // A_r E / c_r (the prox step of ψ)
	layout core.Layout
}

// Init starts at w̄_0 = w̃_0 = w_0 with g = 0.
func (a *CFedDA) Init(env *core.Env) error {
	p := env.Problem
	if err := baoEuclidean("cfedda", p); err != nil {
		return err
	}
	if a.L <= 0 {
		return fmt.Errorf("parameter \"L\" must be > 0")
	}
	if a.radius > 0 {
		cp, ok := p.Penalty.Reg.(core.ConstrainedProx)
		if !ok {
			return fmt.Errorf("radius > 0 needs a norm regularizer with a constrained prox (l1 or nuclear), the problem has %q", p.Penalty.Name)
		}
		a.cp = cp
	}
	a.w = baoWeights{a.paper}
	a.layout = p.Layout
	a.e = baoMeanSteps(env)
	a.r = 0
	n := len(env.W0)
	a.w0 = append([]float64(nil), env.W0...)
	a.wt = append([]float64(nil), env.W0...)
	a.wbar = append([]float64(nil), env.W0...)
	a.g = make([]float64, n)
	a.b = make([]float64, n)
	a.sum = make([]float64, n)
	a.sumA = 0
	return nil
}

// Shape: (w̄_r, b_r) and, with a ball, its centre w_0 down; one vector up.
func (a *CFedDA) Shape() (down, up core.MessageShape) {
	down = core.MessageShape{Vecs: 2}
	if a.radius > 0 {
		down.Vecs = 3
	}
	return down, core.MessageShape{Vecs: 1}
}

// Broadcast fixes the round's constants and sends w̄_r and b_r.
func (a *CFedDA) Broadcast(rd *core.Round, down *core.Message) {
	a.psi = rd.Psi
	if a.lambda > 0 {
		a.psi.Lambda = a.lambda
	}
	r := float64(a.r)
	a.alphaR = a.w.alpha(r)
	A := a.w.cum(r)
	anchor := a.L // γ_r E
	if a.paper {
		anchor = (a.L + a.mu) * a.alphaR * a.e
	}
	a.scale = a.mu*A*a.e/2 + anchor
	a.step = A * a.e / a.scale
	for i := range a.b {
		a.b[i] = a.g[i] - a.mu*a.e*a.wt[i]/2 - anchor*a.w0[i]
	}
	copy(down.Vecs[0], a.wbar)
	copy(down.Vecs[1], a.b)
	if a.radius > 0 {
		copy(down.Vecs[2], a.w0)
	}
}

// ClientUpdate runs c.Steps steps from w̄_r and replies α_r Σ_k G_k.
func (a *CFedDA) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	w, acc, grad, v := c.Vec(0), c.Vec(1), c.Vec(2), c.Vec(3)
	copy(w, down.Vecs[0])
	clear(acc)
	var centre []float64
	if a.radius > 0 {
		centre = down.Vecs[2]
	}
	b := down.Vecs[1]
	for k := range c.Steps {
		c.Gradient(w, grad)
		floats.AddScaled(acc, a.alphaR, grad)
		if k < c.Steps-1 {
			for i := range v {
				v[i] = b[i] + acc[i]
			}
			a.cprox(w, v, centre)
		}
	}
	copy(up.Vecs[0], acc)
}

// Aggregate computes w̄_{r+1} and advances the sums.
func (a *CFedDA) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	d := mean.Vecs[0]
	for i := range a.b {
		a.b[i] += d[i]
		a.g[i] += d[i]
	}
	a.cprox(a.wbar, a.b, a.w0)
	baoPropagateNaN(a.wbar, a.g)
	floats.AddScaled(a.sum, a.alphaR, a.wbar)
	a.sumA += a.alphaR
	a.r++
	floats.AddScaled(a.wt, a.w.alpha(float64(a.r)), a.wbar)
}

// cprox writes CProx_r(v) for the round's constants into dst; v is the
// full prox argument (z − γ_r E w_0) and is overwritten.
func (a *CFedDA) cprox(dst, v, centre []float64) {
	for i := range v {
		v[i] /= -a.scale
	}
	if a.radius > 0 {
		a.cp.CProx(dst, v, centre, a.step*a.psi.Lambda, a.radius, a.layout)
		return
	}
	a.psi.Prox(dst, v, a.step)
}

// Model is the last server iterate, or the weighted average (model = "average").
func (a *CFedDA) Model(dst []float64) {
	if a.average {
		a.Average(dst)
		return
	}
	copy(dst, a.wbar)
}

// Average writes the C-FedDA output Σ_r α_r w̄_{r+1} / Σ_r α_r (w_0 before the
// first round).
func (a *CFedDA) Average(dst []float64) {
	if a.sumA == 0 {
		copy(dst, a.w0)
		return
	}
	for i, s := range a.sum {
		dst[i] = s / a.sumA
	}
}

// MCFedDA is MC-FedDA (Algorithm 3 of Bao et al. 2022) as one algorithm:
// stage m runs C-FedDA from ŵ_m with λ_m = max(λ_0·2^−m, λ) (λ the problem's
// λ at the stage start; the floor lets the paper's non-halving sequences,
// such as 0.3, 0.15, 0.1, be written with λ_0 alone) and the ball radius
// ε_m = ε_0·λ_m/λ_0, and ŵ_{m+1} is its weighted-average output (or its last
// iterate). Each stage resets the C-FedDA state (g, w̃, the round weights).
// The same run can be composed from cfedda stages with the pipeline package
// (fedlab.stages in Lua); the tests check that both agree.
//
// Only the algorithm sees λ_m: the engine's metrics (objective, opt_gap)
// keep measuring the problem's own λ.
type MCFedDA struct {
	base        CFedDA
	lambda0     float64
	ends        []int // stage m ends after ends[m] rounds (m < M−1)
	radius0     float64
	restartLast bool

	env    core.Env
	offset int
	stage  int
	inner  *CFedDA
	l0     float64
	start  []float64
}

// Init starts stage 0 at w_0.
func (a *MCFedDA) Init(env *core.Env) error {
	a.env = *env
	a.offset = env.Settings.RoundOffset
	a.stage = 0
	target := env.Problem.Penalty.At(a.offset, env.Problem.Layout).Lambda
	a.l0 = a.lambda0
	if a.l0 == 0 {
		a.l0 = target * math.Pow(2, float64(len(a.ends)))
	}
	if a.l0 <= 0 {
		return fmt.Errorf("λ_0 must be > 0 (give lambda0, or a problem with λ > 0)")
	}
	return a.startStage(env.W0, a.offset)
}

// startStage builds a fresh C-FedDA for the current stage from w0.
func (a *MCFedDA) startStage(w0 []float64, round int) error {
	target := a.env.Problem.Penalty.At(round, a.env.Problem.Layout).Lambda
	lam := math.Max(a.l0*math.Pow(2, -float64(a.stage)), target)
	inner := a.base
	inner.lambda = lam
	inner.radius = a.radius0 * lam / a.l0
	s := *a.env.Settings
	s.RoundOffset = round
	if err := inner.Init(&core.Env{Problem: a.env.Problem, W0: w0, Settings: &s}); err != nil {
		return err
	}
	a.inner = &inner
	return nil
}

// Stage is the current stage m (0-based) and its λ_m.
func (a *MCFedDA) Stage() (int, float64) { return a.stage, a.inner.lambda }

// Shape is C-FedDA's (the same in every stage).
func (a *MCFedDA) Shape() (down, up core.MessageShape) {
	if a.inner == nil {
		probe := a.base
		probe.radius = a.radius0
		return probe.Shape()
	}
	return a.inner.Shape()
}

// Broadcast starts the next stage when the current one has run its rounds.
func (a *MCFedDA) Broadcast(rd *core.Round, down *core.Message) {
	if a.stage < len(a.ends) && rd.R-a.offset >= a.ends[a.stage] {
		if a.start == nil {
			a.start = make([]float64, len(a.inner.w0))
		}
		if a.restartLast {
			copy(a.start, a.inner.wbar)
		} else {
			a.inner.Average(a.start)
		}
		a.stage++
		if err := a.startStage(a.start, rd.R); err != nil {
			panic(err)
		}
	}
	a.inner.Broadcast(rd, down)
}

// ClientUpdate is C-FedDA's.
func (a *MCFedDA) ClientUpdate(rd *core.Round, c *core.Client, down, up *core.Message) {
	a.inner.ClientUpdate(rd, c, down, up)
}

// Aggregate is C-FedDA's.
func (a *MCFedDA) Aggregate(rd *core.Round, mean *core.Message, ups []*core.Message) {
	a.inner.Aggregate(rd, mean, ups)
}

// Model is the current stage's model.
func (a *MCFedDA) Model(dst []float64) { a.inner.Model(dst) }

// Average is the current stage's weighted-average output.
func (a *MCFedDA) Average(dst []float64) { a.inner.Average(dst) }

// State declares the round counter, the anchor, the gradient sums, the
// iterates and the weighted average's sums (core.Stateful); b_r, the
// round's weights and its penalty are set by Broadcast.
func (a *CFedDA) State(st *core.State) {
	st.Count("rounds", &a.r)
	st.Floats("anchor", a.w0)
	st.Floats("gradient sum", a.g)
	st.Floats("weighted iterate sum", a.wt)
	st.Floats("server iterate", a.wbar)
	st.Floats("average sum", a.sum)
	st.Float("average weight", &a.sumA)
}

// State declares the stage, its λ and radius and the stage's C-FedDA
// state (core.Stateful).
func (a *MCFedDA) State(st *core.State) {
	st.IntIn("stage", &a.stage, 0, len(a.ends))
	st.Positive("stage penalty weight", &a.inner.lambda)
	st.Float("stage radius", &a.inner.radius)
	if r := a.inner.radius; st.Loading() && st.Err() == nil && (!(r >= 0 && r <= math.MaxFloat64) || (r > 0) != (a.radius0 > 0)) {
		st.Fail(fmt.Errorf("checkpoint field %q is %g: the run's stages have radius0 = %g", "stage radius", r, a.radius0))
	}
	a.inner.State(st)
}
