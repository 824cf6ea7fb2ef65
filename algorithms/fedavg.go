package algorithms

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// FedAvgParams are the parameters of the algorithm "fedavg": the step
// sizes and the server optimizer.
type FedAvgParams struct {
	stepSizes
	Server core.ServerOptimizer `param:"server" kind:"optimizer" default:"sgd" doc:"server optimizer (fedlab.opt.*) applied to the averaged update, its step scaled by η_s: sgd (default, lr 1: plain FedAvg), momentum (FedAvgM), adam, yogi, adagrad (FedAdam, FedYogi, FedAdagrad)"`
}

var defaultServerParams = FedAvgParams{stepSizes: defaultStepSizes}

// FedAvgSubgradParams are the parameters of the algorithm "fedavg_subgrad".
type FedAvgSubgradParams struct{ FedAvgParams }

func init() {
	registry.Define(registry.Algorithm, "fedavg",
		"FedAvg with a server optimizer: local SGD, server step on Δ = mean(w_K − w_r), w += η_s·Δ with the default sgd; ignores ψ",
		defaultServerParams, func(p FedAvgParams) (core.Algorithm, error) {
			return &FedAvg{rates: p.rates(), Server: p.Server}, nil
		})
	registry.Define(registry.Algorithm, "fedavg_subgrad",
		"FedAvg(∂): local SGD step then a subgradient step w −= η_c·λ·sign(w) for ψ; no prox anywhere",
		FedAvgSubgradParams{defaultServerParams}, func(p FedAvgSubgradParams) (core.Algorithm, error) {
			return &FedAvg{rates: p.rates(), Server: p.Server, Subgradient: true}, nil
		})
}

// FedAvg is federated averaging with client and server learning rates
// (Alg. 1 of the FCO paper, after Reddi et al. 2020). With Subgradient set it
// is the paper's FedAvg(∂): after each SGD step the client takes the step
// w ← w − η_c·∂ψ(w), with the subgradient evaluated at the post-gradient
// point and sign(0) = 0, as the authors' code does.
//
// The server step hands Δ_r to the server optimizer, which takes the step
// η_s·u(Δ_r): with sgd{lr = 1} it is the paper's w_{r+1} = w_r + η_s·Δ_r;
// with adam it is FedAdam (Reddi et al. 2021), with momentum FedAvgM.
type FedAvg struct {
	rates
	Server      core.ServerOptimizer
	Subgradient bool
	w           []float64
	step        core.ServerStepper
}

// Init copies the initial model and starts the server optimizer.
func (a *FedAvg) Init(env *core.Env) error {
	a.w = append([]float64(nil), env.W0...)
	a.step = a.Server.Start(len(a.w))
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
		floats.AddScaled(w, -a.c, g)
		if a.Subgradient {
			rd.Psi.Subgradient(g, w)
			floats.AddScaled(w, -a.c, g)
		}
	}
	floats.SubTo(up.Vecs[0], w, down.Vecs[0])
}

// Aggregate takes the server optimizer's step on Δ_r (w_{r+1} = w_r + η_s·Δ_r for sgd).
func (a *FedAvg) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	a.step.Step(a.w, mean.Vecs[0], a.s)
}

// Model is the server model.
func (a *FedAvg) Model(dst []float64) { copy(dst, a.w) }

// State declares the server model and the server optimizer's state (core.Stateful).
func (a *FedAvg) State(st *core.State) {
	st.Floats("server model", a.w)
	st.Stepper(a.step)
}
