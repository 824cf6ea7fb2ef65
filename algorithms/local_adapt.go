package algorithms

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// LocalAdaptParams are Local-Adapt's parameters.
type LocalAdaptParams struct {
	stepSizes
	adamCoefficients
	amsgradEps
	Tau float64 `param:"tau" min:"0" doc:"adaptivity constant τ of the server step x += η_s·m/(√v + τ); v starts at τ²"`
}

func init() {
	registry.Define(registry.Algorithm, "local_adapt",
		"Local-Adapt (Wang, Lin & Chen 2021): local AMSGrad restarted every round, server Adam step on the averaged update; ignores ψ",
		LocalAdaptParams{stepSizes: defaultStepSizes, adamCoefficients: defaultAdamCoefficients,
			amsgradEps: defaultAMSGradEps, Tau: 1e-3},
		func(p LocalAdaptParams) (core.Algorithm, error) {
			return &LocalAdapt{rates: p.rates(), beta1: p.Beta1, beta2: p.Beta2, eps: p.Eps,
				server: serverAdam(p.adamCoefficients, p.Tau)}, nil
		})
}

// LocalAdapt combines local and global adaptivity, after Wang, Lin & Chen,
// "Local Adaptivity in Federated Learning: Convergence and Consistency"
// (2021), as the FedDA paper describes it ("performs both local and global
// adaptive gradients, but the state of the local adaptive gradient is
// refreshed per epoch"). Each client runs K AMSGrad steps with η_c from the
// server model and zero optimizer states (m = v = v̂ = 0 every round),
//
//	m ← β₁m + (1−β₁)g,  v ← β₂v + (1−β₂)g²,  v̂ ← max(v̂, v),  x ← x − η_c·m/(√v̂ + ε),
//
// and replies x_K − x_r; the server takes FedAdam's step on their mean Δ
// (m_s ← β₁m_s + (1−β₁)Δ, v_s ← β₂v_s + (1−β₂)Δ², x ← x + η_s·m_s/(√v_s + τ),
// v_s starting at τ² as in Reddi et al.'s Alg. 2).
// The same β₁, β₂ serve both levels. This is a reconstruction from the
// two papers' descriptions; Wang et al. also study other local optimizers
// and correction terms, which are not implemented.
type LocalAdapt struct {
	rates
	beta1, beta2, eps float64
	server            core.ServerOptimizer
	x                 []float64
	step              core.ServerStepper
}

// Init sets x₀ = w₀ and starts the server Adam state.
func (a *LocalAdapt) Init(env *core.Env) error {
	a.x = append([]float64(nil), env.W0...)
	a.step = a.server.Start(len(a.x))
	return nil
}

// Shape: the model down, the model difference up.
func (a *LocalAdapt) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1}
}

// Broadcast sends x_r.
func (a *LocalAdapt) Broadcast(rd *core.Round, down *core.Message) {
	a.at(rd.R)
	copy(down.Vecs[0], a.x)
}

// ClientUpdate runs K AMSGrad steps from fresh states and replies x_K − x_r.
func (a *LocalAdapt) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	x, g, m, v, vhat := c.Vec(0), c.Vec(1), c.Vec(2), c.Vec(3), c.Vec(4)
	copy(x, down.Vecs[0])
	clear(m)
	clear(v)
	clear(vhat)
	for range c.Steps {
		c.Gradient(x, g)
		amsgradStep(x, g, m, v, vhat, a.c, a.beta1, a.beta2, a.eps)
	}
	floats.SubTo(up.Vecs[0], x, down.Vecs[0])
}

// Aggregate takes the server Adam step.
func (a *LocalAdapt) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	a.step.Step(a.x, mean.Vecs[0], a.s)
}

// Model is the server model.
func (a *LocalAdapt) Model(dst []float64) { copy(dst, a.x) }

// State declares the server model and the server optimizer's state (core.Stateful).
func (a *LocalAdapt) State(st *core.State) {
	st.Floats("server model", a.x)
	st.Stepper(a.step)
}
