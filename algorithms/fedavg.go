package algorithms

import (
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

func init() {
	registry.Register[core.Algorithm](registry.Algorithm, registry.Spec{
		Name:   "fedavg",
		Doc:    "FedAvg with a server learning rate: local SGD, server step w += η_s·mean(w_K − w_r); ignores ψ",
		Params: []registry.Param{etaCParam, etaSParam},
	}, func(a registry.Args) (core.Algorithm, error) {
		return &FedAvg{rates: newRates(a)}, nil
	})
	registry.Register[core.Algorithm](registry.Algorithm, registry.Spec{
		Name:   "fedavg_subgrad",
		Doc:    "FedAvg(∂): local SGD step then a subgradient step w −= η_c·λ·sign(w) for ψ; no prox anywhere",
		Params: []registry.Param{etaCParam, etaSParam},
	}, func(a registry.Args) (core.Algorithm, error) {
		return &FedAvg{rates: newRates(a), Subgradient: true}, nil
	})
}

// FedAvg is federated averaging with client and server learning rates
// (Alg. 1 of the FCO paper, after Reddi et al. 2020). With Subgradient set it
// is the paper's FedAvg(∂): after each SGD step the client takes the step
// w ← w − η_c·∂ψ(w), with the subgradient evaluated at the post-gradient
// point and sign(0) = 0, as the authors' code does.
type FedAvg struct {
	rates
	Subgradient bool
	w           []float64
}

// Init copies the initial model.
func (a *FedAvg) Init(env *core.Env) error {
	a.w = append([]float64(nil), env.W0...)
	return nil
}

// Shape: the model down, the model difference up.
func (a *FedAvg) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1}
}

// Broadcast sends w_r.
func (a *FedAvg) Broadcast(rd *core.Round, down *core.Message) {
	a.at(rd.R)
	copy(down.Vecs[0], a.w)
}

// ClientUpdate runs K SGD (or SGD + subgradient) steps and replies w_K − w_r.
func (a *FedAvg) ClientUpdate(rd *core.Round, c *core.Client, down, up *core.Message) {
	if step, ok := a.lazyStep(rd, c); ok {
		a.lazyClientUpdate(rd, c, step, down, up) // O(nnz) steps on sparse data (lazy.go)
		return
	}
	w, g := c.Vec(0), c.Vec(1)
	copy(w, down.Vecs[0])
	for range c.Steps {
		c.Gradient(w, g)
		axpy(-a.c, g, w)
		if a.Subgradient {
			rd.Psi.Subgradient(g, w)
			axpy(-a.c, g, w)
		}
	}
	sub(up.Vecs[0], w, down.Vecs[0])
}

// Aggregate applies w_{r+1} = w_r + η_s·Δ_r.
func (a *FedAvg) Aggregate(rd *core.Round, mean *core.Message, _ []*core.Message) {
	axpy(a.s, mean.Vecs[0], a.w)
}

// Model is the server model.
func (a *FedAvg) Model(dst []float64) { copy(dst, a.w) }
