// Package proxsgdavg is the example algorithm of the README, kept compiling
// and tested here: clients run proximal SGD and the server averages models.
package proxsgdavg

import (
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// params declares the parameters once, as tagged fields; the factory gets them typed.
type params struct {
	Eta sched.Schedule `param:"eta" min:"0" doc:"client step size"`
}

func init() {
	registry.Define(registry.Algorithm, "prox_sgd_avg", "clients run proximal SGD, the server averages models",
		params{Eta: sched.Constant(0.01)}, // the defaults
		func(p params) (core.Algorithm, error) { return &ProxSGDAvg{eta: p.Eta}, nil })
}

// ProxSGDAvg: clients take K proximal SGD steps; the server averages the models.
type ProxSGDAvg struct {
	eta  sched.Schedule
	step float64   // the round's step size, fixed by Broadcast on the coordinator
	w    []float64 // server model
}

func (a *ProxSGDAvg) Init(env *core.Env) error { a.w = append([]float64(nil), env.W0...); return nil }
func (a *ProxSGDAvg) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1}
}
func (a *ProxSGDAvg) Broadcast(rd *core.Round, down *core.Message) {
	a.step = a.eta.At(rd.R)
	copy(down.Vecs[0], a.w)
}
func (a *ProxSGDAvg) ClientUpdate(rd *core.Round, c *core.Client, down, up *core.Message) {
	w, g := up.Vecs[0], c.Vec(0) // c.Vec: per-client scratch, allocated once
	copy(w, down.Vecs[0])
	for range c.Steps {
		c.Gradient(w, g) // next minibatch, from the (seed, run, round, client) stream
		for i := range w {
			w[i] -= a.step * g[i]
		}
		rd.Psi.Prox(w, w, a.step) // prox of step·λ·ψ₁ on the regularized blocks
	}
}
func (a *ProxSGDAvg) Aggregate(rd *core.Round, mean *core.Message, _ []*core.Message) {
	copy(a.w, mean.Vecs[0]) // the engine computed the weighted mean of the replies
}
func (a *ProxSGDAvg) Model(dst []float64) { copy(dst, a.w) }

// State declares what an update changes, the server model (core.Stateful), so that a run can
// be checkpointed and resumed bit for bit; step is not state: Broadcast sets it every round.
func (a *ProxSGDAvg) State(st *core.State) { st.Floats("server model", a.w) }
