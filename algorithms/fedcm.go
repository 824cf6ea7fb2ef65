package algorithms

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// FedCMParams are FedCM's parameters.
type FedCMParams struct {
	stepSizes
	Alpha float64 `param:"alpha" min:"0" max:"1" doc:"weight α of the fresh gradient (FedCM's convention; the FedDA paper's \"α 0.9\" is 1 − α in Adam's convention)"`
}

func init() {
	registry.Define(registry.Algorithm, "fedcm",
		"FedCM (Xu et al. 2021): local steps along α·g + (1−α)·Δ with Δ the last round's average update direction; ignores ψ",
		FedCMParams{stepSizes: defaultStepSizes, Alpha: 0.1},
		func(p FedCMParams) (core.Algorithm, error) { return &FedCM{rates: p.rates(), alpha: p.Alpha}, nil })
}

// FedCM is federated averaging with client-level momentum, after Xu, Wang,
// Wang & Yao, "FedCM: Federated Learning with Client-level Momentum" (2021,
// Algorithm 1). The server keeps x_r and the global direction Δ_r (Δ₀ = 0);
// each client runs
//
//	v_k = α∇f(x_k; ξ) + (1 − α)Δ_r,  x_{k+1} = x_k − η_c v_k,
//
// and replies x_K − x_r; with Ū the weighted mean of the replies,
//
//	Δ_{r+1} = −Ū/(η_c K),  x_{r+1} = x_r + η_s Ū,
//
// so Δ is the average direction of the round and η_s = 1 is plain model
// averaging (the same server-rate convention as fedavg; FedCM writes
// x_{r+1} = x_r − η_g Δ_{r+1}, i.e. η_g = η_s η_c K). K is the mean number
// of local steps of the sampled clients.
type FedCM struct {
	rates
	alpha  float64
	x, dir []float64
}

// Init sets x₀ = w₀ and Δ₀ = 0.
func (a *FedCM) Init(env *core.Env) error {
	a.x = append([]float64(nil), env.W0...)
	a.dir = make([]float64, len(a.x))
	return nil
}

// Shape: x_r and Δ_r down; the model difference and the step count up.
func (a *FedCM) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 2}, core.MessageShape{Vecs: 1, Scalars: 1}
}

// Broadcast sends x_r and Δ_r.
func (a *FedCM) Broadcast(rd *core.Round, down *core.Message) {
	a.at(rd.R)
	copy(down.Vecs[0], a.x)
	copy(down.Vecs[1], a.dir)
}

// ClientUpdate runs K momentum-corrected SGD steps and replies x_K − x_r.
func (a *FedCM) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	x, g := c.Vec(0), c.Vec(1)
	dir := down.Vecs[1]
	copy(x, down.Vecs[0])
	for range c.Steps {
		c.Gradient(x, g)
		for i := range x {
			x[i] -= a.c * (a.alpha*g[i] + (1-a.alpha)*dir[i])
		}
	}
	floats.SubTo(up.Vecs[0], x, down.Vecs[0])
	up.Scalars[0] = float64(c.Steps)
}

// Aggregate sets Δ_{r+1} and takes the server step.
func (a *FedCM) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	u := mean.Vecs[0]
	if steps := mean.Scalars[0]; a.c > 0 && steps > 0 {
		for i, v := range u {
			a.dir[i] = -v / (a.c * steps)
		}
	}
	floats.AddScaled(a.x, a.s, u)
}

// Model is the server model.
func (a *FedCM) Model(dst []float64) { copy(dst, a.x) }

// State declares the server model and the momentum direction Δ_r (core.Stateful).
func (a *FedCM) State(st *core.State) {
	st.Floats("server model", a.x)
	st.Floats("momentum direction", a.dir)
}
