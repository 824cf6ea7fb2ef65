package algorithms

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// mirrorServerParams are FedMiD's step sizes and server optimizer.
type mirrorServerParams struct {
	stepSizes
	Server    core.ServerOptimizer `param:"server" kind:"optimizer" default:"sgd" doc:"server optimizer (fedlab.opt.*) applied to the averaged dual update before the server prox, its step scaled by η_s: sgd (default, lr 1: the paper's FedMiD) or momentum; adaptive ones are refused"`
	Threshold string               `param:"server_threshold" choices:"sum|step" doc:"server prox weight: sum = η_s·Σ_k η_c (FCO reference code), step = η_s·η_c (Bao et al.'s MATLAB code)"`
}

var defaultMirrorServerParams = mirrorServerParams{stepSizes: defaultStepSizes, Threshold: "sum"}

// FedMiDParams are the parameters of the algorithm "fedmid".
type FedMiDParams struct{ mirrorServerParams }

// FedMiDOSPParams are the parameters of the algorithm "fedmid_osp".
type FedMiDOSPParams struct{ mirrorServerParams }

// Check refuses server optimizers without scalar steps: the server prox
// needs one step size (adaptive optimizers would need a prox in their
// diagonal metric, which FedMiD does not define).
func (p mirrorServerParams) Check() error {
	if _, ok := p.Server.(core.ScalarStep); !ok {
		return fmt.Errorf("server optimizer %T scales each coordinate, but FedMiD's server prox takes one step size: use fedlab.opt.sgd or fedlab.opt.momentum", p.Server)
	}
	return nil
}

func init() {
	registry.Define(registry.Algorithm, "fedmid",
		"FedMiD (federated mirror descent): client prox-SGD steps, server prox of the averaged update after a sgd or momentum server step",
		FedMiDParams{defaultMirrorServerParams}, func(p FedMiDParams) (core.Algorithm, error) { return newFedMiD(p.mirrorServerParams, false), nil })
	registry.Define(registry.Algorithm, "fedmid_osp",
		"FedMiD-OSP: plain mirror-descent (SGD) client steps, prox only at the server",
		FedMiDOSPParams{defaultMirrorServerParams}, func(p FedMiDOSPParams) (core.Algorithm, error) { return newFedMiD(p.mirrorServerParams, true), nil })
}

// newFedMiD builds FedMiD; Check has made sure the server takes scalar steps.
func newFedMiD(p mirrorServerParams, osp bool) *FedMiD {
	return &FedMiD{rates: p.rates(), Server: p.Server.(core.ScalarStep), OnlyServerProx: osp,
		StepThreshold: p.Threshold == "step"}
}

// FedMiD is Federated Mirror Descent (Alg. 2 of the FCO paper); with
// OnlyServerProx it is FedMiD-OSP (Alg. 4).
//
// Client step:  w ← ∇(h + η_c ψ)*(∇h(w) − η_c g)   (OSP: ∇h*(∇h(w) − η_c g)).
// Server step:  w_{r+1} = ∇(h + η_s·ē·ψ)*(∇h(w_r) + η_s Δ_r),
// where ē is the weighted mean over clients of Σ_k η_c (= η_c K for equal K,
// the paper's η_s η_c K threshold; η_c alone with StepThreshold, as Bao et
// al.'s code does) and Δ_r is the mean of ∇h(w_K) − ∇h(w_r).
// The paper writes Δ_r with primal differences; that agrees for Euclidean h
// (the only h in its experiments) and is inconsistent otherwise, so the
// dual-space difference is used (documented in docs/algorithms/fedmid.md).
//
// The server optimizer acts on the dual pseudo-gradient Δ_r: z = ∇h(w_r)
// moves by the optimizer's step (η_s·lr·Δ_r for sgd, η_s·lr·m_r for
// momentum with m_r = βm_{r−1} + Δ_r) and the prox threshold is
// η_s·lr·ē. With sgd{lr = 1} this is the paper's step bit for bit.
type FedMiD struct {
	rates
	Server         core.ScalarStep
	OnlyServerProx bool
	StepThreshold  bool      // server prox weight η_s·η_c instead of η_s·Σ_k η_c
	w, z           []float64 // server primal and its mirror image ∇h(w)
	step           core.ServerStepper
}

// Init copies the initial model and starts the server optimizer.
func (a *FedMiD) Init(env *core.Env) error {
	a.w = append([]float64(nil), env.W0...)
	a.z = make([]float64, len(a.w))
	a.step = a.Server.Start(len(a.w))
	return nil
}

// Shape: the model down; the dual-space update and Σ_k η_c up.
func (a *FedMiD) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1, Scalars: 1}
}

// Broadcast sends w_r.
func (a *FedMiD) Broadcast(rd *core.Round, down *core.Message) {
	a.at(rd.R)
	copy(down.Vecs[0], a.w)
}

// ClientUpdate runs K mirror-descent steps and replies ∇h(w_K) − ∇h(w_r).
func (a *FedMiD) ClientUpdate(rd *core.Round, c *core.Client, down, up *core.Message) {
	if prox, ok := lazyProx(rd, c); ok {
		a.lazyClientUpdate(rd, c, prox, down, up) // O(nnz) steps on sparse data (lazy.go)
		return
	}
	w, g, y := c.Vec(0), c.Vec(1), c.Vec(2)
	copy(w, down.Vecs[0])
	h := rd.Mirror
	for range c.Steps {
		c.Gradient(w, g)
		h.Grad(y, w)
		floats.AddScaled(y, -a.c, g)
		if a.OnlyServerProx {
			h.GradConj(w, y)
		} else {
			h.Composite(w, y, a.c, rd.Psi)
		}
	}
	h.Grad(y, w)
	h.Grad(g, down.Vecs[0])
	floats.SubTo(up.Vecs[0], y, g)
	up.Scalars[0] = a.c * float64(c.Steps)
	if a.StepThreshold {
		up.Scalars[0] = a.c
	}
}

// Aggregate applies the server mirror-prox step.
func (a *FedMiD) Aggregate(rd *core.Round, mean *core.Message, _ []*core.Message) {
	rd.Mirror.Grad(a.z, a.w)
	a.step.Step(a.z, mean.Vecs[0], a.s)
	rd.Mirror.Composite(a.w, a.z, a.s*a.Server.Rate()*mean.Scalars[0], rd.Psi)
}

// Model is the server model.
func (a *FedMiD) Model(dst []float64) { copy(dst, a.w) }

// State declares the server model, its mirror image and the server
// optimizer's state (core.Stateful).
func (a *FedMiD) State(st *core.State) {
	st.Floats("server model", a.w)
	st.Floats("server mirror image", a.z)
	st.Stepper(a.step)
}
