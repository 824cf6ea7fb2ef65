package algorithms

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules"
)

// STEMParams are STEM's parameters.
type STEMParams struct {
	stepRule
	mvrWeight
	initBatch
}

// Check validates the step-size rule.
func (p STEMParams) Check() error { return p.stepRule.check() }

func init() {
	registry.Define(registry.Algorithm, "stem",
		"STEM (Khanduri et al. 2021): local SGD along a STORM/MVR estimator; server averages models and estimators; ignores ψ",
		STEMParams{stepRule: stepRule{LR: 1, W: 1e4, Power: 1.0 / 3}, mvrWeight: mvrWeight{C: 400}},
		func(p STEMParams) (core.Algorithm, error) {
			rate := p.poly()
			return &STEM{rate: rate, c: p.C, initBatch: p.InitBatch}, nil
		})
}

// STEM is the stochastic two-sided momentum method of Khanduri, Sharma,
// Yang, Hong, Liu, Rajawat & Varshney, "STEM: A Stochastic Two-Sided
// Momentum Algorithm Achieving Near-Optimal Sample and Communication
// Complexities for Federated Learning", NeurIPS 2021 (Algorithm 1). Each
// client, from the server's x_τ and d_τ, runs with t the global step counter
//
//	x_{i+1} = x_i − η_t d_i
//	d_{i+1} = ∇f(x_{i+1}; B) + (1 − α_{t+1})(d_i − ∇f(x_i; B)),  α_{t+1} = min(1, cη_t²),
//
// with one minibatch B at both points and η_t = lr/(w + t)^power; the server
// averages both x_I and d_I ("two-sided momentum"). d₀ is the gradient at
// x₀ averaged over all clients (initialEstimate); STEM's clients start from
// their own local batch gradients, which the first average replaces, so
// this differs from the paper in round 0 only. It is the FedDA estimator
// and schedule with H = I: FedDA-MVR with precond = "identity" and
// mirror_scale λ equals STEM with lr·λ and c/λ² (tested).
type STEM struct {
	rate      schedules.Poly
	c         float64
	initBatch int
	x, d      []float64
	t         int
}

// Init sets x₀ = w₀ and d₀.
func (a *STEM) Init(env *core.Env) error {
	a.x = append([]float64(nil), env.W0...)
	a.d = initialEstimate(env, a.initBatch)
	a.t = 0
	return nil
}

// Shape: x and d both ways, plus the step count up.
func (a *STEM) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 2}, core.MessageShape{Vecs: 2, Scalars: 1}
}

// Broadcast sends x_τ and d_τ.
func (a *STEM) Broadcast(_ *core.Round, down *core.Message) {
	copy(down.Vecs[0], a.x)
	copy(down.Vecs[1], a.d)
}

// ClientUpdate runs I MVR steps and replies x_I and d_I.
func (a *STEM) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	x, d := up.Vecs[0], up.Vecs[1]
	prev, g, gOld := c.Vec(0), c.Vec(1), c.Vec(2)
	copy(x, down.Vecs[0])
	copy(d, down.Vecs[1])
	for i := range c.Steps {
		eta := a.rate.At(a.t + i)
		copy(prev, x)
		floats.AddScaled(x, -eta, d)
		batch := c.NextBatch()
		c.GradientOn(batch, x, g)
		c.GradientOn(batch, prev, gOld)
		mvrUpdate(d, g, gOld, mvrAlpha(a.c, eta))
	}
	up.Scalars[0] = float64(c.Steps)
}

// Aggregate averages the models and the estimators.
func (a *STEM) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	copy(a.x, mean.Vecs[0])
	copy(a.d, mean.Vecs[1])
	a.t += int(math.Round(mean.Scalars[0]))
}

// Model is the server model.
func (a *STEM) Model(dst []float64) { copy(dst, a.x) }

// State declares the server model, the momentum estimate and the step
// counter (core.Stateful).
func (a *STEM) State(st *core.State) {
	st.Floats("server model", a.x)
	st.Floats("momentum estimate", a.d)
	st.Count("local steps so far", &a.t)
}
