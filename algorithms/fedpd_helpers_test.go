package algorithms

import (
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/datasets"
	"github.com/fedlab/fedlab/losses"
	_ "github.com/fedlab/fedlab/metrics"
	"github.com/fedlab/fedlab/registry"
)

// quadProblem builds a problem with the "quadratic" loss (label =
// curvature, features = center) and ψ = 0 from one list of (center,
// curvature) samples per client.
func quadProblem(t testing.TB, clients ...[][2]float64) *core.Problem {
	t.Helper()
	f := &core.Federated{Name: "quad", Features: 1}
	for _, samples := range clients {
		d := &core.Data{Features: 1}
		for _, s := range samples {
			d.X = append(d.X, s[0])
			d.Y = append(d.Y, s[1])
			d.N++
		}
		f.Train = append(f.Train, d)
	}
	return pdNewProblem(t, f, losses.Quadratic{})
}

// pdNewProblem makes a problem with ψ = 0 and the Euclidean mirror map.
func pdNewProblem(t testing.TB, f *core.Federated, l core.Loss) *core.Problem {
	t.Helper()
	pen, err := registry.Build[core.Penalty](registry.Regularizer, "none", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := core.NewProblem(f, l, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pdRegistered builds a registered problem: dataset and loss by name.
func pdRegistered(t testing.TB, data string, dp map[string]any, loss string, lp map[string]any) *core.Problem {
	t.Helper()
	f, err := registry.Build[*core.Federated](registry.Dataset, data, dp)
	if err != nil {
		t.Fatal(err)
	}
	l, err := registry.Build[core.Loss](registry.Loss, loss, lp)
	if err != nil {
		t.Fatal(err)
	}
	return pdNewProblem(t, f, l)
}

// pdDriver runs an algorithm round by round the way the engine does (every
// client, sequentially), so tests can look at client state between rounds.
type pdDriver struct {
	p       *core.Problem
	a       core.Algorithm
	s       core.Settings
	clients []*core.Client
	rd      core.Round
	down    *core.Message
	ups     []*core.Message
	mean    *core.Message
	r       int
}

func newPDDriver(t testing.TB, p *core.Problem, a core.Algorithm, s core.Settings) *pdDriver {
	t.Helper()
	w0 := s.W0
	if w0 == nil {
		w0 = make([]float64, p.Dim())
	}
	if err := a.Init(&core.Env{Problem: p, W0: w0, Settings: &s}); err != nil {
		t.Fatal(err)
	}
	dn, upShape := a.Shape()
	d := &pdDriver{p: p, a: a, s: s, down: core.NewMessage(dn, p.Dim()), mean: core.NewMessage(upShape, p.Dim())}
	d.rd.Mirror = p.Mirror
	w := p.ClientWeights()
	for m := range p.Data.Clients() {
		d.clients = append(d.clients, core.NewClient(p, m, &s))
		d.ups = append(d.ups, core.NewMessage(upShape, p.Dim()))
		d.rd.Sampled = append(d.rd.Sampled, m)
		d.rd.Weights = append(d.rd.Weights, w[m])
	}
	return d
}

// round runs one round and reports whether it communicated.
func (d *pdDriver) round() bool {
	rd := &d.rd
	rd.R, rd.Local = d.r, false
	rd.Psi = d.p.Penalty.At(d.r, d.p.Layout)
	for _, c := range d.clients {
		c.StartRound(d.s.Seed, d.s.Run, d.r)
	}
	d.a.Broadcast(rd, d.down)
	for m, c := range d.clients {
		d.a.ClientUpdate(rd, c, d.down, d.ups[m])
	}
	for j, v := range d.mean.Vecs {
		clear(v)
		for m, up := range d.ups {
			floats.AddScaled(v, rd.Weights[m], up.Vecs[j])
		}
	}
	d.a.Aggregate(rd, d.mean, d.ups)
	d.r++
	return !rd.Local
}

// model returns the algorithm's current model.
func (d *pdDriver) model() []float64 {
	w := make([]float64, d.p.Dim())
	d.a.Model(w)
	return w
}

// pd returns client m's FedPD state.
func (d *pdDriver) pd(m int) *pdState { return d.clients[m].State.(*pdState) }
