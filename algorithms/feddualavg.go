package algorithms

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// FedDualAvgParams are the parameters of the algorithm "feddualavg".
type FedDualAvgParams struct{ stepSizes }

// FedDualAvgOSPParams are the parameters of the algorithm "feddualavg_osp".
type FedDualAvgOSPParams struct{ stepSizes }

func init() {
	registry.Define(registry.Algorithm, "feddualavg",
		"FedDualAvg (federated dual averaging): dual states averaged, primal retrieved with a cumulative prox",
		FedDualAvgParams{defaultStepSizes}, func(p FedDualAvgParams) (core.Algorithm, error) { return &FedDualAvg{rates: p.rates()}, nil })
	registry.Define(registry.Algorithm, "feddualavg_osp",
		"FedDualAvg-OSP: clients skip the prox (w = ∇h*(z)); ψ enters only the server's primal",
		FedDualAvgOSPParams{defaultStepSizes}, func(p FedDualAvgOSPParams) (core.Algorithm, error) {
			return &FedDualAvg{rates: p.rates(), OnlyServerProx: true}, nil
		})
}

// FedDualAvg is Federated Dual Averaging (Alg. 3 of the FCO paper); with
// OnlyServerProx it is FedDualAvg-OSP (Alg. 5).
//
// The server keeps the dual state z_r and the elapsed step size ẽ_r, the
// running sum of server-scaled client step sizes; the paper's
// η̃_{r,k} = η_s η_c r K + η_c k is ẽ_r + η_c k when every client takes K
// steps, and the running sum keeps it right for unequal K_m (as the authors'
// code does). Client step k:
//
//	w = ∇(h + η̃ ψ)*(z),  z ← z − η_c ∇f(w; ξ),  η̃ ← η̃ + η_c.
//
// Server: z_{r+1} = z_r + η_s·mean(z_K − z_r), ẽ_{r+1} = ẽ_r + η_s·mean(η_c K_m),
// and the evaluated primal is w_{r+1} = ∇(h + ẽ_{r+1} ψ)*(z_{r+1}), which is
// η_s η_c (r+1) K for equal K.
type FedDualAvg struct {
	rates
	OnlyServerProx bool
	z              []float64
	elapsed        float64
	psi            core.Psi
	mirror         core.Mirror
}

// Init sets z_0 = ∇h(w_0) and ẽ_0 = 0.
func (a *FedDualAvg) Init(env *core.Env) error {
	p := env.Problem
	a.mirror = p.Mirror
	a.psi = p.Penalty.At(env.Settings.RoundOffset, p.Layout)
	a.z = make([]float64, len(env.W0))
	a.mirror.Grad(a.z, env.W0)
	return nil
}

// Shape: z_r and ẽ_r down; the dual update and Σ_k η_c up.
func (a *FedDualAvg) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 1, Scalars: 1}, core.MessageShape{Vecs: 1, Scalars: 1}
}

// Broadcast sends the dual state and the elapsed step size.
func (a *FedDualAvg) Broadcast(rd *core.Round, down *core.Message) {
	a.at(rd.R)
	copy(down.Vecs[0], a.z)
	down.Scalars[0] = a.elapsed
}

// ClientUpdate runs K dual-averaging steps and replies z_K − z_r.
func (a *FedDualAvg) ClientUpdate(rd *core.Round, c *core.Client, down, up *core.Message) {
	if prox, ok := lazyProx(rd, c); ok {
		a.lazyClientUpdate(rd, c, prox, down, up) // O(nnz) steps on sparse data (lazy.go)
		return
	}
	z, w, g := c.Vec(0), c.Vec(1), c.Vec(2)
	copy(z, down.Vecs[0])
	eta := down.Scalars[0]
	for range c.Steps {
		if a.OnlyServerProx {
			rd.Mirror.GradConj(w, z)
		} else {
			rd.Mirror.Composite(w, z, eta, rd.Psi)
		}
		c.Gradient(w, g)
		floats.AddScaled(z, -a.c, g)
		eta += a.c
	}
	floats.SubTo(up.Vecs[0], z, down.Vecs[0])
	up.Scalars[0] = a.c * float64(c.Steps)
}

// Aggregate applies the server dual step and advances the elapsed step size.
func (a *FedDualAvg) Aggregate(rd *core.Round, mean *core.Message, _ []*core.Message) {
	floats.AddScaled(a.z, a.s, mean.Vecs[0])
	a.elapsed += a.s * mean.Scalars[0]
	a.psi = rd.Psi
}

// Model is the server primal ∇(h + ẽ ψ)*(z).
func (a *FedDualAvg) Model(dst []float64) { a.mirror.Composite(dst, a.z, a.elapsed, a.psi) }

// State declares the server dual state, the elapsed step size and the λ
// of the last aggregated round's ψ (core.Stateful).
func (a *FedDualAvg) State(st *core.State) {
	st.Floats("server dual state", a.z)
	st.Float("elapsed step size", &a.elapsed)
	st.Float("penalty weight", &a.psi.Lambda)
}
