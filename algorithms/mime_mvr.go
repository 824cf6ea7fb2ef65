package algorithms

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules"
)

// MimeMVRParams are MIME-MVR's parameters.
type MimeMVRParams struct {
	stepRule
	mvrWeight
	AnchorBatches int `param:"anchor_batches" min:"0" doc:"minibatches per client for the server-state gradients at x_τ and x_{τ−1}; 0 = all local data (Mime's full-batch c_i)"`
	initBatch
}

// Check validates the step-size rule.
func (p MimeMVRParams) Check() error { return p.stepRule.check() }

func init() {
	registry.Define(registry.Algorithm, "mime_mvr",
		"MIME-MVR (Karimireddy et al. 2020): local steps with the server's MVR momentum frozen, server momentum from anchor gradients; ignores ψ",
		MimeMVRParams{stepRule: stepRule{LR: 1, W: 1e4, Power: 1.0 / 3}, mvrWeight: mvrWeight{C: 400}},
		func(p MimeMVRParams) (core.Algorithm, error) {
			rate := p.poly()
			return &MimeMVR{rate: rate, c: p.C, anchorBatches: p.AnchorBatches, initBatch: p.InitBatch}, nil
		})
}

// MimeMVR is Mime with the MVR (STORM) base optimizer, after Karimireddy,
// Jaggi, Kale, Mohri, Reddi, Stich & Suresh, "Mime: Mimicking Centralized
// Stochastic Algorithms in Federated Learning" (2020), as the FedDA paper
// runs it: the optimizer state (the momentum m) is frozen during local
// steps and updated only by the server. Round τ, from x_τ, m and x_{τ−1}:
//
//	client:  y₀ = x_τ;  d = a∇f(y_i; ζ) + (1 − a)(m + ∇f(y_i; ζ) − ∇f(x_τ; ζ)),  y_{i+1} = y_i − η_t d,
//	         a = min(1, cη_t²), one minibatch ζ at y_i and x_τ;
//	         c_k = ∇f_k(x_τ; A), c̃_k = ∇f_k(x_{τ−1}; A) on one anchor batch A
//	server:  x_{τ+1} = mean y_I,  m ← a_τ c̄ + (1 − a_τ)(m + c̄ − c̃̄),
//
// with η_t = lr/(w + t)^power over the global step counter t and a_τ at the
// round's first step. So the clients use the momentum of the previous
// round, as in Mime's Algorithm 1 where the state update V(c̄, s) follows
// the local steps. A is anchor_batches minibatches (0: all local data, the
// paper's full-batch c_k); m starts at the gradient estimate at x₀
// (initialEstimate) and x_{−1} = x₀.
type MimeMVR struct {
	rate          schedules.Poly
	c             float64
	anchorBatches int
	initBatch     int
	x, m, xPrev   []float64
	t             int
	aRound        float64 // a at the round's first step
}

// Init sets x₀, m₀ and x_{−1} = x₀.
func (a *MimeMVR) Init(env *core.Env) error {
	a.x = append([]float64(nil), env.W0...)
	a.xPrev = append([]float64(nil), env.W0...)
	a.m = initialEstimate(env, a.initBatch)
	a.t = 0
	return nil
}

// Shape: x_τ, m, x_{τ−1} down; y_I − x_τ, c_k, c̃_k and the step count up.
func (a *MimeMVR) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 3}, core.MessageShape{Vecs: 3, Scalars: 1}
}

// Broadcast sends x_τ, m and x_{τ−1}.
func (a *MimeMVR) Broadcast(_ *core.Round, down *core.Message) {
	a.aRound = mvrAlpha(a.c, a.rate.At(a.t))
	copy(down.Vecs[0], a.x)
	copy(down.Vecs[1], a.m)
	copy(down.Vecs[2], a.xPrev)
}

// anchorState is a client's index buffer for anchor batches (Client.State).
type anchorState struct{ idx []int }

// anchor returns the anchor batch of a round: nil (all local data) or
// anchorBatches minibatches concatenated.
func (a *MimeMVR) anchor(c *core.Client) []int {
	if a.anchorBatches == 0 {
		return nil
	}
	st, _ := c.State.(*anchorState)
	if st == nil {
		st = &anchorState{}
		c.State = st
	}
	st.idx = st.idx[:0]
	for range a.anchorBatches {
		b := c.NextBatch()
		if b == nil {
			return nil
		}
		st.idx = append(st.idx, b...)
	}
	return st.idx
}

// ClientUpdate computes the anchor gradients, runs I local steps with the
// frozen momentum and replies y_I − x_τ, c_k and c̃_k.
func (a *MimeMVR) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	x0, m := down.Vecs[0], down.Vecs[1]
	A := a.anchor(c)
	c.GradientOn(A, x0, up.Vecs[1])
	c.GradientOn(A, down.Vecs[2], up.Vecs[2])
	y, g, g0 := c.Vec(0), c.Vec(1), c.Vec(2)
	copy(y, x0)
	for i := range c.Steps {
		eta := a.rate.At(a.t + i)
		al := mvrAlpha(a.c, eta)
		batch := c.NextBatch()
		c.GradientOn(batch, y, g)
		c.GradientOn(batch, x0, g0)
		for j := range y {
			y[j] -= eta * (g[j] + (1-al)*(m[j]-g0[j]))
		}
	}
	floats.SubTo(up.Vecs[0], y, x0)
	up.Scalars[0] = float64(c.Steps)
}

// Aggregate averages the models and updates the server momentum.
func (a *MimeMVR) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	copy(a.xPrev, a.x)
	floats.AddScaled(a.x, 1, mean.Vecs[0])
	cx, cPrev := mean.Vecs[1], mean.Vecs[2]
	for j := range a.m {
		a.m[j] = a.aRound*cx[j] + (1-a.aRound)*(a.m[j]+cx[j]-cPrev[j])
	}
	a.t += int(math.Round(mean.Scalars[0]))
}

// Model is the server model.
func (a *MimeMVR) Model(dst []float64) { copy(dst, a.x) }

// State declares the server model, its previous value, the momentum and
// the step counter (core.Stateful); aRound is set by each Broadcast.
func (a *MimeMVR) State(st *core.State) {
	st.Floats("server model", a.x)
	st.Floats("previous server model", a.xPrev)
	st.Floats("momentum", a.m)
	st.Count("local steps so far", &a.t)
}

// ClientState declares nothing: a client's anchor indices are drawn anew
// every round (core.ClientStateDeclarer; the buffer is reused memory).
func (a *MimeMVR) ClientState(*core.Client, *core.State) {}
