package algorithms

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// ScaffoldParams are the parameters of the algorithm "scaffold".
type ScaffoldParams struct{ stepSizes }

func init() {
	registry.Define(registry.Algorithm, "scaffold",
		"SCAFFOLD (Karimireddy et al. 2020, option II): local SGD corrected by control variates c − c_i; ignores ψ",
		ScaffoldParams{defaultStepSizes}, func(p ScaffoldParams) (core.Algorithm, error) { return &Scaffold{rates: p.rates()}, nil })
}

// Scaffold is SCAFFOLD, Algorithm 1 of Karimireddy, Kale, Mohri, Reddi,
// Stich & Suresh, "SCAFFOLD: Stochastic Controlled Averaging for Federated
// Learning", ICML 2020, with the option II control-variate update. The
// server keeps x and the control variate c; client i keeps c_i (0 at the
// start, in Client.State). Round: each sampled client runs
//
//	y ← y − η_c(∇f_i(y; ξ) − c_i + c)  (K steps from y = x),
//	c_i⁺ = c_i − c + (x − y_K)/(K η_c),
//
// replies Δy = y_K − x and Δc = c_i⁺ − c_i, and keeps c_i⁺. The server sets
//
//	x ← x + η_s·mean Δy,  c ← c + Σ_{i∈S} p_i Δc_i,
//
// where the mean uses the engine's weights and p_i are the objective's
// client weights, so that c = Σ_i p_i c_i holds at every round (the paper's
// c ← c + (|S|/N)·mean Δc for p_i = 1/N).
type Scaffold struct {
	rates
	x, ctrl []float64 // server model and control variate c
	weight  []float64 // p_m of every client
}

// scaffoldState is a client's control variate c_i.
type scaffoldState struct{ ci []float64 }

// Init sets x₀ = w₀ and c = 0.
func (a *Scaffold) Init(env *core.Env) error {
	a.x = append([]float64(nil), env.W0...)
	a.ctrl = make([]float64, len(a.x))
	a.weight = env.Problem.ClientWeights()
	return nil
}

// Shape: x and c down; Δy and Δc up.
func (a *Scaffold) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 2}, core.MessageShape{Vecs: 2}
}

// Broadcast sends x and c.
func (a *Scaffold) Broadcast(rd *core.Round, down *core.Message) {
	a.at(rd.R)
	copy(down.Vecs[0], a.x)
	copy(down.Vecs[1], a.ctrl)
}

// ClientUpdate runs K corrected SGD steps and replies Δy and Δc.
func (a *Scaffold) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	st, _ := c.State.(*scaffoldState)
	if st == nil {
		st = &scaffoldState{ci: make([]float64, len(a.x))}
		c.State = st
	}
	x0, cg := down.Vecs[0], down.Vecs[1]
	y, g := c.Vec(0), c.Vec(1)
	copy(y, x0)
	for range c.Steps {
		c.Gradient(y, g)
		for j := range y {
			y[j] -= a.c * (g[j] - st.ci[j] + cg[j])
		}
	}
	dy, dc := up.Vecs[0], up.Vecs[1]
	floats.SubTo(dy, y, x0)
	scale := 1 / (float64(c.Steps) * a.c)
	for j := range dc {
		dc[j] = -cg[j] - dy[j]*scale // c_i⁺ − c_i = −c + (x − y_K)/(Kη_c)
		st.ci[j] += dc[j]
	}
}

// Aggregate takes the server steps on x and c.
func (a *Scaffold) Aggregate(rd *core.Round, mean *core.Message, _ []*core.Message) {
	floats.AddScaled(a.x, a.s, mean.Vecs[0])
	share := 0.0
	for _, m := range rd.Sampled {
		share += a.weight[m]
	}
	floats.AddScaled(a.ctrl, share, mean.Vecs[1])
}

// Model is the server model.
func (a *Scaffold) Model(dst []float64) { copy(dst, a.x) }

// ClientVectors: the client's control variate c_i.
func (a *Scaffold) ClientVectors() int { return 1 }

// State declares the server model and control variate (core.Stateful).
func (a *Scaffold) State(st *core.State) {
	st.Floats("server model", a.x)
	st.Floats("server control variate", a.ctrl)
}

// ClientState declares client c's control variate c_i, nil until its
// first round (core.ClientStateDeclarer).
func (a *Scaffold) ClientState(c *core.Client, st *core.State) {
	var ci []float64
	if s, ok := c.State.(*scaffoldState); ok {
		ci = s.ci
	}
	st.Vector("client control variate", &ci)
	if st.Loading() && ci != nil {
		c.State = &scaffoldState{ci: ci}
	}
}
