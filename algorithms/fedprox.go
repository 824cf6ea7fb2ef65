package algorithms

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// FedProxParams are FedProx's parameters.
type FedProxParams struct {
	clientStep
	Rho    float64 `param:"rho" min:"0" doc:"ρ: weight of the proximal term (ρ/2)‖x − x_r‖²"`
	Solver string  `param:"solver" choices:"sgd|sarah" doc:"sgd: K (stochastic) gradient steps (GD with batch = 0); sarah: SARAH estimator from the full local gradient"`
}

func init() {
	registry.Define(registry.Algorithm, "fedprox",
		"FedProx: clients minimize f_i(x) + (ρ/2)‖x − x_r‖² with K GD/SGD or SARAH steps from x_r; the server averages",
		FedProxParams{clientStep: defaultClientStep, Rho: 1, Solver: "sgd"},
		func(p FedProxParams) (core.Algorithm, error) {
			return &FedProx{etaC: p.EtaC, rho: p.Rho, sarah: p.Solver == "sarah"}, nil
		})
}

// FedProx (Li et al. 2020) as the FedPD paper runs it: client i starts from
// the server model x_r and takes K steps on f_i(x) + (ρ/2)‖x − x_r‖²,
//
//	x ← x − η_c (v + ρ (x − x_r)),
//
// where v is the minibatch gradient ∇f_i(x; ξ) (solver "sgd"; GD with the
// full local batch) or the SARAH estimator (solver "sarah"): v = ∇f_i(x_r)
// on the full local data at the start of the round, then
// v ← v + ∇f_i(x_new; ξ) − ∇f_i(x_old; ξ) on one minibatch ξ at both points.
// The server averages the local models: x_{r+1} = Σ_i p_i x_i. The estimator
// is not updated after the last step (it would not be used). Unlike the
// authors' MATLAB, which starts each round from the client's previous local
// iterate, every round starts from x_r, as FedProx is defined.
type FedProx struct {
	etaC  sched.Schedule
	rho   float64
	sarah bool
	c     float64
	w     []float64
}

// Init copies the initial model.
func (a *FedProx) Init(env *core.Env) error {
	a.w = append([]float64(nil), env.W0...)
	return nil
}

// Shape: the model down, the local model up.
func (a *FedProx) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1}
}

// Broadcast fixes the round's step size and sends x_r.
func (a *FedProx) Broadcast(rd *core.Round, down *core.Message) {
	a.c = a.etaC.At(rd.R)
	copy(down.Vecs[0], a.w)
}

// ClientUpdate runs K proximal-term steps from x_r and replies x_K.
func (a *FedProx) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	x, v, old, h := up.Vecs[0], c.Vec(0), c.Vec(1), c.Vec(2)
	x0 := down.Vecs[0]
	copy(x, x0)
	if a.sarah {
		c.GradientOn(nil, x, v)
	}
	for k := range c.Steps {
		if !a.sarah {
			c.Gradient(x, v)
		} else {
			copy(old, x)
		}
		for i := range x {
			x[i] -= a.c * (v[i] + a.rho*(x[i]-x0[i]))
		}
		if a.sarah && k < c.Steps-1 {
			idx := c.NextBatch()
			c.GradientOn(idx, x, h)
			floats.AddScaled(v, 1, h)
			c.GradientOn(idx, old, h)
			floats.AddScaled(v, -1, h)
		}
	}
}

// Aggregate sets x_{r+1} to the weighted mean of the local models.
func (a *FedProx) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	copy(a.w, mean.Vecs[0])
}

// Model is the server model.
func (a *FedProx) Model(dst []float64) { copy(dst, a.w) }

// State declares the server model (core.Stateful).
func (a *FedProx) State(st *core.State) { st.Floats("server model", a.w) }
