package algorithms

import (
	"math"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// amsgradEps is the ε of the clients' AMSGrad step x −= η·m/(√v̂ + ε).
type amsgradEps struct {
	Eps float64 `param:"eps" min:"0" doc:"ε of the local AMSGrad step x −= η_c·m/(√v̂ + ε)"`
}

var defaultAMSGradEps = amsgradEps{Eps: 1e-8}

// LocalAMSGradParams are Local-AMSGrad's parameters.
type LocalAMSGradParams struct {
	clientStep
	adamCoefficients
	amsgradEps
}

func init() {
	registry.Define(registry.Algorithm, "local_amsgrad",
		"Local-AMSGrad (Chen, Li & Li 2020): clients run AMSGrad; the server averages models and optimizer states; ignores ψ",
		LocalAMSGradParams{defaultClientStep, defaultAdamCoefficients, defaultAMSGradEps},
		func(p LocalAMSGradParams) (core.Algorithm, error) {
			return &LocalAMSGrad{etaC: p.EtaC, beta1: p.Beta1, beta2: p.Beta2, eps: p.Eps}, nil
		})
}

// LocalAMSGrad is local AMSGrad with periodic averaging of the model and of
// the optimizer states, after Chen, Li & Li, "Toward Communication Efficient
// Adaptive Gradient Method" (FODS 2020), as the FedDA paper describes it
// ("clients update adaptive learning rates locally and average at the
// synchronization step"). Each client starts the round from the averaged
// (x, m, v̂), sets v = v̂, and runs K AMSGrad steps
//
//	m ← β₁m + (1−β₁)g,  v ← β₂v + (1−β₂)g²,  v̂ ← max(v̂, v),  x ← x − η_c·m/(√v̂ + ε)
//
// (no bias correction, as in AMSGrad); the server averages x, m and v̂.
// Restarting v at v̂ keeps messages at 3d each way (v ≤ v̂ is the only part
// of the state that is not averaged). Averaging v̂, a non-linear state, is
// what the FedDA paper contrasts with averaging dual states.
type LocalAMSGrad struct {
	etaC              sched.Schedule
	c                 float64 // η_c of the current round
	beta1, beta2, eps float64
	x, m, vhat        []float64
}

// Init sets x₀ = w₀ and zero optimizer states.
func (a *LocalAMSGrad) Init(env *core.Env) error {
	a.x = append([]float64(nil), env.W0...)
	a.m = make([]float64, len(a.x))
	a.vhat = make([]float64, len(a.x))
	return nil
}

// Shape: x, m and v̂ both ways.
func (a *LocalAMSGrad) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 3}, core.MessageShape{Vecs: 3}
}

// Broadcast sends the averaged model and states.
func (a *LocalAMSGrad) Broadcast(rd *core.Round, down *core.Message) {
	a.c = a.etaC.At(rd.R)
	copy(down.Vecs[0], a.x)
	copy(down.Vecs[1], a.m)
	copy(down.Vecs[2], a.vhat)
}

// ClientUpdate runs K AMSGrad steps and replies x, m and v̂.
func (a *LocalAMSGrad) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	x, m, vhat := up.Vecs[0], up.Vecs[1], up.Vecs[2]
	v, g := c.Vec(0), c.Vec(1)
	copy(x, down.Vecs[0])
	copy(m, down.Vecs[1])
	copy(vhat, down.Vecs[2])
	copy(v, vhat)
	for range c.Steps {
		c.Gradient(x, g)
		amsgradStep(x, g, m, v, vhat, a.c, a.beta1, a.beta2, a.eps)
	}
}

// Aggregate keeps the averages.
func (a *LocalAMSGrad) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	copy(a.x, mean.Vecs[0])
	copy(a.m, mean.Vecs[1])
	copy(a.vhat, mean.Vecs[2])
}

// Model is the server model.
func (a *LocalAMSGrad) Model(dst []float64) { copy(dst, a.x) }

// amsgradStep applies one AMSGrad step with gradient g in place.
func amsgradStep(x, g, m, v, vhat []float64, eta, beta1, beta2, eps float64) {
	for i, gi := range g {
		m[i] = beta1*m[i] + (1-beta1)*gi
		v[i] = beta2*v[i] + (1-beta2)*gi*gi
		vhat[i] = max(vhat[i], v[i])
		x[i] -= eta * m[i] / (math.Sqrt(vhat[i]) + eps)
	}
}

// State declares the server model and the AMSGrad moments (core.Stateful).
func (a *LocalAMSGrad) State(st *core.State) {
	st.Floats("server model", a.x)
	st.Floats("first moment", a.m)
	st.Floats("max second moment", a.vhat)
}
