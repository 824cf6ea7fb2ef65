package algorithms

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// CentralizedParams are the centralized baseline's parameters.
type CentralizedParams struct {
	Eta    sched.Schedule `param:"eta" min:"0" doc:"step size; 0 = backtracking on the Lipschitz constant"`
	Method string         `param:"method" choices:"fista|pgd" doc:"fista (accelerated, restarted) or pgd (plain proximal gradient)"`
}

// LocalParams are the local baseline's parameters.
type LocalParams struct {
	Client int `param:"client" min:"0" doc:"index of the client (0-based)"`
	clientStep
}

func init() {
	registry.Define(registry.Algorithm, "centralized",
		"non-federated baseline: one full-batch proximal-gradient (or FISTA) step on the pooled data per round",
		CentralizedParams{Eta: sched.Constant(0), Method: "fista"},
		func(p CentralizedParams) (core.Algorithm, error) {
			return &Centralized{eta: p.Eta, accelerated: p.Method == "fista"}, nil
		})
	registry.Define(registry.Algorithm, "local",
		"non-federated baseline: one client alone runs proximal SGD on its own data, no communication",
		LocalParams{clientStep: defaultClientStep},
		func(p LocalParams) (core.Algorithm, error) { return &Local{client: p.Client, etaC: p.EtaC}, nil })
}

// Centralized runs proximal gradient descent or FISTA on the pooled training
// objective Φ = Σ_m p_m F_m + ψ, one full-gradient step per round, with no
// clients and no communication. With eta = 0 it backtracks, and it is the
// same iteration core.Solve uses for the reference optimum.
type Centralized struct {
	eta         sched.Schedule
	accelerated bool
	pg          *core.ProxGrad
	p           *core.Problem
	w0          []float64
}

// Init starts the iteration at w_0.
func (a *Centralized) Init(env *core.Env) error {
	a.p, a.w0 = env.Problem, env.W0
	return nil
}

// Participants: none; the work happens on the server.
func (a *Centralized) Participants(int) []int { return []int{} }

// Shape: no messages.
func (a *Centralized) Shape() (down, up core.MessageShape) { return }

// Broadcast fixes the round's step size.
func (a *Centralized) Broadcast(rd *core.Round, _ *core.Message) {
	if a.pg == nil {
		a.pg = core.NewProxGrad(a.p, a.w0, a.eta.At(rd.R), a.accelerated)
	}
}

// ClientUpdate is never called (no participants).
func (a *Centralized) ClientUpdate(*core.Round, *core.Client, *core.Message, *core.Message) {}

// Aggregate takes one proximal-gradient step with the round's penalty.
func (a *Centralized) Aggregate(rd *core.Round, _ *core.Message, _ []*core.Message) {
	a.pg.Step(rd.Psi)
}

// Model is the current iterate.
func (a *Centralized) Model(dst []float64) {
	if a.pg == nil {
		copy(dst, a.w0)
		return
	}
	copy(dst, a.pg.X)
}

// Local trains one client alone with proximal SGD (the FedMiD client step,
// w ← ∇(h + η_c ψ)*(∇h(w) − η_c g)) and never communicates. The model lives
// with the client; the engine evaluates it on the whole federation.
type Local struct {
	client int
	etaC   sched.Schedule
	c      float64
	w      []float64
}

// Init copies the initial model.
func (a *Local) Init(env *core.Env) error {
	if M := env.Problem.Data.Clients(); a.client >= M {
		return fmt.Errorf("algorithm \"local\": client %d does not exist (there are %d clients, 0-based)", a.client, M)
	}
	a.w = append([]float64(nil), env.W0...)
	return nil
}

// Participants is the chosen client.
func (a *Local) Participants(int) []int { return []int{a.client} }

// Shape: no messages (the only client owns the model).
func (a *Local) Shape() (down, up core.MessageShape) { return }

// Broadcast fixes the round's step size.
func (a *Local) Broadcast(rd *core.Round, _ *core.Message) { a.c = a.etaC.At(rd.R) }

// ClientUpdate runs K proximal SGD steps on the client's own model. It is the
// only worker of the round, so it may update the model in place.
func (a *Local) ClientUpdate(rd *core.Round, c *core.Client, _, _ *core.Message) {
	g, y := c.Vec(0), c.Vec(1)
	for range c.Steps {
		c.Gradient(a.w, g)
		rd.Mirror.Grad(y, a.w)
		floats.AddScaled(y, -a.c, g)
		rd.Mirror.Composite(a.w, y, a.c, rd.Psi)
	}
}

// Aggregate has nothing to do.
func (a *Local) Aggregate(*core.Round, *core.Message, []*core.Message) {}

// Model is the client's model.
func (a *Local) Model(dst []float64) { copy(dst, a.w) }

// State declares the iteration, which starts at the first round (core.Stateful).
func (a *Centralized) State(st *core.State) {
	started := a.pg != nil
	st.Bool("started", &started)
	if st.Loading() && started && st.Err() == nil {
		a.pg = core.NewProxGrad(a.p, a.w0, 0, a.accelerated)
	}
	if started && st.Err() == nil {
		a.pg.State(st)
	}
}

// State declares the client's model (core.Stateful).
func (a *Local) State(st *core.State) { st.Floats("model", a.w) }
