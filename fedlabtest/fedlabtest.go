// Package fedlabtest registers tiny components under "test_" names for the
// tests of the experiment, run-directory and Lua layers, so those tests do
// not depend on the real component packages, as net/http/httptest serves
// the tests of net/http. Import it only from _test.go files: importing it
// registers its components in the process.
//
// Registered: datasets test_data and test_undeclared (the same without a
// declared size), loss test_squared, regularizer test_l1, algorithm
// test_gd, metrics test_objective and test_lambda, schedule test_step; and
// per test, test_gd recording its server step sizes (NewRecorder).
package fedlabtest

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// Recorder is test_gd registered under a name of its own (Name), whose
// runs record the server step size (eta_s) of each round they compute in
// the recorder: each test makes its own, as net/http/httptest.NewServer
// gives each test its own server.
type Recorder struct {
	name  string
	mu    sync.Mutex
	steps []float64
}

// recorders counts the recorders made, to name them.
var recorders atomic.Int64

// NewRecorder registers a new recorder's algorithm (test_gd_recorded_N).
func NewRecorder() *Recorder {
	r := &Recorder{name: fmt.Sprintf("test_gd_recorded_%d", recorders.Add(1))}
	registry.Register[core.Algorithm](registry.Algorithm, gdSpec(r.name, "test_gd recording its server step sizes (fedlabtest.Recorder)"),
		func(a registry.Args) (core.Algorithm, error) { return newGD(a, r.record), nil })
	return r
}

// Name is the name of the recorder's algorithm: fedlab.algo[Name] in a
// script.
func (r *Recorder) Name() string { return r.name }

// Steps returns the server step sizes the recorder's runs used in their
// rounds since the last call, and forgets them.
func (r *Recorder) Steps() []float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.steps
	r.steps = nil
	return out
}

func (r *Recorder) record(step float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps = append(r.steps, step)
}

// gdSpec is the specification of test_gd under name.
func gdSpec(name, doc string) registry.Spec {
	return registry.Spec{
		Name: name, Doc: doc,
		Params: []registry.Param{
			{Name: "eta_c", Type: registry.Sched, Default: 0.1, Min: registry.Bound(0), Doc: "client step size"},
			{Name: "eta_s", Type: registry.Sched, Default: 1.0, Min: registry.Bound(0), Doc: "server step size"},
			{Name: "fail", Type: registry.Bool, Default: false, Doc: "panic in the first client update"},
		},
	}
}

// newGD builds test_gd from its arguments; record, if not nil, receives
// the server step size of each round.
func newGD(a registry.Args, record func(float64)) *gd {
	return &gd{etaC: a.Schedule("eta_c"), etaS: a.Schedule("eta_s"), fail: a.Bool("fail"), record: record}
}

func init() {
	registry.Define(registry.Dataset, "test_data", "deterministic linear-regression data for tests",
		dataParams{Clients: 4, Samples: 8, Features: 3},
		func(p dataParams) (*core.Federated, error) { return dataset(p.Clients, p.Samples, p.Features), nil })
	registry.Define(registry.Dataset, "test_undeclared",
		"test_data without a declared size: the memory ceiling's watchdog must stop it",
		undeclaredParams{Clients: 4, Samples: 8, Features: 3},
		func(p undeclaredParams) (*core.Federated, error) {
			return dataset(p.Clients, p.Samples, p.Features), nil
		})
	registry.Register[core.Loss](registry.Loss, registry.Spec{Name: "test_squared", Doc: "½(xᵀw − y)² without intercept"},
		func(registry.Args) (core.Loss, error) { return squared{}, nil })
	registry.Register[core.Penalty](registry.Regularizer, registry.Spec{
		Name: "test_l1", Doc: "λ‖w‖₁",
		Params: []registry.Param{{Name: "lambda", Type: registry.Sched, Default: 0.0, Min: registry.Bound(0), Doc: "weight λ"}},
	}, func(a registry.Args) (core.Penalty, error) {
		return core.Penalty{Name: "test_l1", Reg: l1{}, Lambda: a.Schedule("lambda")}, nil
	})
	registry.Register[core.Algorithm](registry.Algorithm, gdSpec("test_gd", "local gradient steps, averaged, then a server prox step"),
		func(a registry.Args) (core.Algorithm, error) { return newGD(a, nil), nil })
	registry.Register[core.Metric](registry.Metric, registry.Spec{Name: "test_objective", Doc: "Φ(w)"},
		func(registry.Args) (core.Metric, error) { return metric{"test_objective", (*core.Eval).Objective}, nil })
	registry.Register[core.Metric](registry.Metric, registry.Spec{Name: "test_lambda", Doc: "λ at the evaluated round"},
		func(registry.Args) (core.Metric, error) {
			return metric{"test_lambda", func(e *core.Eval) float64 { return e.Psi.Lambda }}, nil
		})
	registry.Register[sched.Schedule](registry.Schedule, registry.Spec{
		Name: "test_step", Doc: "start·factor^⌊r/every⌋",
		Params: []registry.Param{
			{Name: "start", Type: registry.Float, Doc: "value at round 0"},
			{Name: "factor", Type: registry.Float, Default: 0.5, Doc: "decay factor"},
			{Name: "every", Type: registry.Int, Default: 1, Min: registry.Bound(1), Doc: "rounds per stage"},
		},
	}, func(a registry.Args) (sched.Schedule, error) {
		return step{a.Float("start"), a.Float("factor"), a.Int("every")}, nil
	})
}

// dataParams are test_data's parameters.
type dataParams struct {
	Clients  int `param:"clients" min:"1" doc:"number of clients"`
	Samples  int `param:"samples" min:"1" doc:"samples per client"`
	Features int `param:"features" min:"1" doc:"number of features"`
}

// Memory declares test_data's memory, as the built-in generators do, so
// that a plan refuses a size over the memory ceiling before building it.
func (p dataParams) Memory() (uint64, string) {
	cells := budget.Product(p.Clients, p.Samples, p.Features+1)
	return budget.Product(int(min(cells, 1<<62)), 8),
		fmt.Sprintf("clients = %d, samples = %d, features = %d", p.Clients, p.Samples, p.Features)
}

// undeclaredParams are test_undeclared's: test_data's fields without its
// methods, so it declares no size.
type undeclaredParams dataParams

// dataset makes y = xᵀ(1, −1, 0, …) + small deterministic noise.
func dataset(clients, samples, features int) *core.Federated {
	f := &core.Federated{Name: "test_data", Features: features}
	k := 0
	for range clients {
		d := &core.Data{N: samples, Features: features}
		for range samples {
			y := 0.0
			for j := range features {
				k++
				x := math.Sin(float64(k) * 1.7)
				d.X = append(d.X, x)
				switch j {
				case 0:
					y += x
				case 1:
					y -= x
				}
			}
			d.Y = append(d.Y, y+0.01*math.Cos(float64(k)))
		}
		f.Train = append(f.Train, d)
	}
	return f
}

type squared struct{}

func (squared) Layout(f *core.Federated) (core.Layout, error) {
	return core.NewLayout(core.Block{Name: "kernel", Rows: f.Features, Cols: 1, Regularized: true}), nil
}

func (squared) NewEvaluator(core.Layout) core.Evaluator { return squared{} }

func (squared) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	n, loss := 0, 0.0
	visit := func(i int) {
		x := d.Row(i)
		r := -d.Y[i]
		for j, v := range x {
			r += v * w[j]
		}
		loss += r * r / 2
		if grad != nil {
			for j, v := range x {
				grad[j] += r * v
			}
		}
		n++
	}
	if idx == nil {
		for i := range d.N {
			visit(i)
		}
	} else {
		for _, i := range idx {
			visit(i)
		}
	}
	for j := range grad {
		grad[j] /= float64(n)
	}
	return loss / float64(n)
}

type l1 struct{}

func (l1) Value(w []float64, _ core.Layout) float64 {
	s := 0.0
	for _, v := range w {
		s += math.Abs(v)
	}
	return s
}

func (l1) Prox(dst, z []float64, t float64, _ core.Layout) {
	for i, v := range z {
		dst[i] = math.Copysign(math.Max(math.Abs(v)-t, 0), v)
	}
}

func (l1) Subgradient(dst, w []float64, _ core.Layout) {
	for i, v := range w {
		switch {
		case v > 0:
			dst[i] = 1
		case v < 0:
			dst[i] = -1
		default:
			dst[i] = 0
		}
	}
}

type gd struct {
	etaC, etaS sched.Schedule
	fail       bool
	record     func(float64) // the server step of each round, if not nil (Recorder)
	w          []float64
	eta        float64
}

func (g *gd) Init(env *core.Env) error {
	g.w = append([]float64(nil), env.W0...)
	return nil
}

func (g *gd) Shape() (core.MessageShape, core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1}
}

func (g *gd) Broadcast(rd *core.Round, down *core.Message) {
	g.eta = g.etaC.At(rd.R)
	if g.record != nil {
		g.record(g.etaS.At(rd.R))
	}
	copy(down.Vecs[0], g.w)
}

func (g *gd) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	if g.fail {
		panic("test_gd was asked to fail")
	}
	w := up.Vecs[0]
	copy(w, down.Vecs[0])
	grad := c.Vec(0)
	for range c.Steps {
		c.Gradient(w, grad)
		for i := range w {
			w[i] -= g.eta * grad[i]
		}
	}
}

func (g *gd) Aggregate(rd *core.Round, mean *core.Message, _ []*core.Message) {
	s := g.etaS.At(rd.R)
	for i := range g.w {
		g.w[i] += s * (mean.Vecs[0][i] - g.w[i])
	}
	rd.Psi.Prox(g.w, g.w, s*g.eta)
}

func (g *gd) Model(dst []float64) { copy(dst, g.w) }

type metric struct {
	name string
	f    func(*core.Eval) float64
}

func (m metric) Name() string              { return m.name }
func (m metric) Eval(e *core.Eval) float64 { return m.f(e) }

type step struct {
	start, factor float64
	every         int
}

func (s step) At(r int) float64 { return s.start * math.Pow(s.factor, float64(r/s.every)) }
