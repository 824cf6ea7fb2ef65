package algorithms

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/topology"
)

// modelTrace is a metric that records every evaluated model (and node).
type modelTrace struct {
	models [][]float64
	nodes  []int
}

func (*modelTrace) Name() string { return "trace" }

func (m *modelTrace) Eval(e *core.Eval) float64 {
	m.models = append(m.models, append([]float64(nil), e.W...))
	m.nodes = append(m.nodes, e.Node)
	return e.W[0]
}

func decSettings(rounds int) core.Settings {
	return core.Settings{Rounds: rounds, LocalSteps: 4, Batch: 2, Seed: 3, EvalEvery: 1}
}

// TestDFedDAWithJMEqualsFedDualAvg: on the complete graph (U = J_M) and
// without tracking, every node of DFedDA follows FedDualAvg with full
// participation, round by round, here with an ℓ1 composite term.
func TestDFedDAWithJMEqualsFedDualAvg(t *testing.T) {
	p := problem(t, randomCenters(5, 6, 4, 11), "l1", map[string]any{"lambda": 0.2})
	params := map[string]any{"eta_c": 0.05, "eta_s": 1.5}
	s := decSettings(25)
	ref, dec := &modelTrace{}, &modelTrace{}
	resF := core.Run(p, algo(t, "feddualavg", params), s, []core.Metric{ref})
	resD := core.Run(p, algo(t, "dfedda", map[string]any{"eta_c": 0.05, "eta_s": 1.5, "topology": "complete"}), s, []core.Metric{dec})
	if resF.Status != core.Done || resD.Status != core.Done {
		t.Fatal(resF.Err, resD.Err)
	}
	M := 5
	if len(dec.models) != M*len(ref.models) {
		t.Fatalf("%d node evaluations for %d rounds", len(dec.models), len(ref.models))
	}
	moved := false
	for r, w := range ref.models {
		for m := range M {
			assertVec(t, "node model", dec.models[r*M+m], w, 1e-12)
		}
		moved = moved || slices.ContainsFunc(w, func(x float64) bool { return x != 0 })
	}
	if !moved {
		t.Fatal("the models never left 0; the comparison is vacuous")
	}
	assertVec(t, "final model", resD.Model, resF.Model, 1e-12)
	if got := resD.Records[0].Values; len(got) != 3 || got[0] != got[1] || got[1] != got[2] {
		t.Fatalf("nodes agree on J_M, so mean = min = max: %v", got)
	}
}

// TestDFedMiDWithJMEqualsFedMiD is the same identity for mirror descent.
func TestDFedMiDWithJMEqualsFedMiD(t *testing.T) {
	p := problem(t, randomCenters(4, 6, 3, 12), "l1", map[string]any{"lambda": 0.1})
	s := decSettings(20)
	ref, dec := &modelTrace{}, &modelTrace{}
	core.Run(p, algo(t, "fedmid", map[string]any{"eta_c": 0.05, "eta_s": 0.8}), s, []core.Metric{ref})
	core.Run(p, algo(t, "dfedmid", map[string]any{"eta_c": 0.05, "eta_s": 0.8}), s, []core.Metric{dec})
	for r, w := range ref.models {
		for m := range 4 {
			assertVec(t, "node model", dec.models[r*4+m], w, 1e-12)
		}
	}
}

// trackerProbe checks Σ_m c^m = 0 after Init and after every round.
type trackerProbe struct {
	*DFedDA
	t      *testing.T
	rounds int
	moved  bool
}

func (p *trackerProbe) Init(env *core.Env) error {
	if err := p.DFedDA.Init(env); err != nil {
		return err
	}
	p.check()
	return nil
}

func (p *trackerProbe) Aggregate(rd *core.Round, mean *core.Message, ups []*core.Message) {
	p.DFedDA.Aggregate(rd, mean, ups)
	p.rounds++
	p.check()
}

func (p *trackerProbe) check() {
	for i := range p.track[0] {
		sum, size := 0.0, 0.0
		for _, c := range p.track {
			sum += c[i]
			size += math.Abs(c[i])
		}
		if math.Abs(sum) > 1e-12*math.Max(1, size) {
			p.t.Fatalf("after %d rounds: Σ_m c^m[%d] = %g (Σ|c^m| = %g)", p.rounds, i, sum, size)
		}
		p.moved = p.moved || size > 0.1
	}
}

func TestTrackersSumToZeroEveryRound(t *testing.T) {
	for _, top := range []topology.Topology{topology.ChainGraph{}, topology.RingGraph{}, topology.StarGraph{}, topology.CompleteGraph{}} {
		p := problem(t, randomCenters(6, 8, 5, 13), "l1", map[string]any{"lambda": 0.05})
		a := algo(t, "dfedda_gt", map[string]any{"eta_c": 0.05, "topology": top}).(*DFedDA)
		probe := &trackerProbe{DFedDA: a, t: t}
		res := core.Run(p, probe, core.Settings{Rounds: 40, LocalSteps: 3, Batch: 3, Seed: 5}, nil)
		if res.Status != core.Done || probe.rounds != 40 {
			t.Fatalf("%s: %s %s after %d rounds", top, res.Status, res.Err, probe.rounds)
		}
		if !probe.moved {
			t.Fatalf("%s: the trackers stayed near 0; the test is vacuous", top)
		}
	}
}

// TestGradientTrackingRemovesTheHeterogeneityBias: with full local batches
// (no noise), a constant step, K = 5 local steps and very different client
// optima, every node of DFedDA-GT on a chain converges to the optimum of
// (1/M) Σ f_m, while DFedDA's nodes stall at a heterogeneity bias (their
// average is exact here, the Hessians being equal, but no node is).
func TestGradientTrackingRemovesTheHeterogeneityBias(t *testing.T) {
	p := problem(t, randomCenters(6, 5, 3, 14), "none", nil)
	ref, err := p.Reference()
	if err != nil {
		t.Fatal(err)
	}
	s := core.Settings{Rounds: 2400, LocalSteps: 5}
	dist := func(name string) float64 { // the worst node's distance
		a := algo(t, name, map[string]any{"eta_c": 0.1, "topology": "chain"}).(*DFedDA)
		run(t, p, a, s)
		worst := 0.0
		w := make([]float64, p.Dim())
		for m := range a.Nodes() {
			a.NodeModel(m, w)
			d := 0.0
			for i, v := range w {
				d += (v - ref.W[i]) * (v - ref.W[i])
			}
			worst = math.Max(worst, math.Sqrt(d))
		}
		return worst
	}
	gt, plain := dist("dfedda_gt"), dist("dfedda")
	if gt > 1e-9 || plain < 1e-3 {
		t.Fatalf("distance to the optimum: DFedDA-GT %g (want ≈ 0), DFedDA %g (want a visible bias)", gt, plain)
	}
}

// TestReFedDAWithJMIsAlgorithm2 replays Algorithm 2 of the paper, with the
// notes' fixes (primal w_c + clip(∇h*(z)); Δ_r from the dual increments) and
// its SCAFFOLD-style tracking g = ∇F − c^m + c, c^m_{r+1} = c^m_r − c_r −
// (z^m_K − z_r)/(Kη_c), c_{r+1} = mean c^m_{r+1}, on the engine's minibatch
// streams, and compares it with refedda_gt on the complete graph.
func TestReFedDAWithJMIsAlgorithm2(t *testing.T) {
	f := randomCenters(4, 7, 3, 15)
	pen := core.Penalty{Name: "none", Reg: regularizers.None{}, Lambda: constSched(1)}
	mirror := regularizers.PNorm{P: 3}
	p, err := core.NewProblem(f, centerLoss{}, pen, mirror)
	if err != nil {
		t.Fatal(err)
	}
	const etaC, etaS, Q, rounds, K = 0.1, 0.9, 0.8, 12, 3
	s := core.Settings{Rounds: rounds, LocalSteps: K, Batch: 2, Seed: 8, EvalEvery: 1}
	trace := &modelTrace{}
	core.Run(p, algo(t, "refedda_gt", map[string]any{"eta_c": etaC, "eta_s": etaS, "Q": Q}), s, []core.Metric{trace})

	M, d := 4, 3
	centre := make([]float64, d)
	z := make([]float64, d)
	c := make([]float64, d)
	cm := nodeVectors(M, d)
	clients := make([]*core.Client, M)
	for m := range clients {
		clients[m] = core.NewClient(p, m, &s)
	}
	w, g := make([]float64, d), make([]float64, d)
	clipped := false
	for r := range rounds {
		zK := nodeVectors(M, d)
		for m, cl := range clients {
			cl.StartRound(s.Seed, s.Run, r)
			copy(zK[m], z)
			for range K {
				mirror.Ball(w, centre, zK[m], math.Sqrt(Q))
				cl.Gradient(w, g)
				for i := range g {
					zK[m][i] -= etaC * (g[i] - cm[m][i] + c[i])
				}
			}
		}
		// eq. (4): c^m_{r+1} = c^m_r − c_r − (z^m_K − z_r)/(Kη_c) (the local
		// mean gradient) and c_{r+1} = c_r + mean_m (c^m_{r+1} − c^m_r)
		dc := make([]float64, d)
		for m := range M {
			for i := range d {
				next := cm[m][i] - c[i] - (zK[m][i]-z[i])/(K*etaC)
				dc[i] += (next - cm[m][i]) / float64(M)
				cm[m][i] = next
			}
		}
		for i := range d {
			c[i] += dc[i]
		}
		// the server step with the fixed Δ_r = mean_m (z^m_K − z_r)/(Kη_c)
		for i := range d {
			mean := 0.0
			for m := range M {
				mean += (zK[m][i] - z[i]) / float64(M)
			}
			z[i] += etaS * mean
		}
		mirror.Ball(w, centre, z, math.Sqrt(Q))
		free := make([]float64, d)
		mirror.GradConj(free, z)
		clipped = clipped || math.Abs(free[0]-w[0]) > 1e-9
		for m := range M {
			assertVec(t, "node model", trace.models[(r+1)*M+m], w, 1e-10)
		}
	}
	if !clipped {
		t.Fatal("the ball never clipped; choose a smaller Q")
	}
}

// TestMultistepRecentres: at the end of every stage the centre becomes the
// s-sparse node average, Q halves, and the duals and trackers restart.
func TestMultistepRecentres(t *testing.T) {
	p := problem(t, randomCenters(4, 6, 6, 16), "none", nil)
	a := algo(t, "mrefedda_gt", map[string]any{"eta_c": 0.1, "Q": 4.0, "stage_rounds": 5, "sparsity": 2, "topology": "ring"}).(*ReFedDA)
	run(t, p, a, core.Settings{Rounds: 10, LocalSteps: 2, Batch: 2, Seed: 1, EvalEvery: 1})
	nonzero := 0
	for _, v := range a.centre {
		if v != 0 {
			nonzero++
		}
	}
	if nonzero != 2 {
		t.Fatalf("centre %v has %d nonzeros, want 2", a.centre, nonzero)
	}
	if want := math.Sqrt(4.0) / 2; math.Abs(a.radius-want) > 1e-15 {
		t.Fatalf("radius after two stages %g, want √(Q_0/4) = %g", a.radius, want)
	}
	for m := range a.z {
		if slices.ContainsFunc(a.z[m], func(x float64) bool { return x != 0 }) || slices.ContainsFunc(a.track[m], func(x float64) bool { return x != 0 }) {
			t.Fatal("duals and trackers were not reset")
		}
		w := make([]float64, len(a.centre))
		a.NodeModel(m, w)
		assertVec(t, "node model after a restart", w, a.centre, 0)
	}
}

// TestDecentralizedRecordsAreWorkerIndependent: records and models are
// bit-identical for 1 and 4 workers.
func TestDecentralizedRecordsAreWorkerIndependent(t *testing.T) {
	p := problem(t, randomCenters(8, 6, 5, 17), "l1", map[string]any{"lambda": 0.05})
	pn := problem(t, randomCenters(8, 6, 5, 17), "none", nil)
	cases := []struct {
		p      *core.Problem
		name   string
		params map[string]any
	}{
		{p, "dfedda_gt", map[string]any{"eta_c": 0.05, "topology": "chain", "output": "average"}},
		{p, "dfedmid", map[string]any{"eta_c": 0.05, "topology": topology.GridGraph{Rows: 2}}},
		{pn, "mrefedda_gt", map[string]any{"eta_c": 0.05, "Q": 2.0, "stage_rounds": 4, "sparsity": 3, "topology": "ring", "restart": "average"}},
	}
	metrics := func() []core.Metric { return []core.Metric{&modelTrace{}} }
	for _, c := range cases {
		s := core.Settings{Rounds: 12, LocalSteps: 3, Batch: 2, Seed: 4, EvalEvery: 3}
		s.Workers = 1
		a := core.Run(c.p, algo(t, c.name, c.params), s, metrics())
		s.Workers = 4
		b := core.Run(c.p, algo(t, c.name, c.params), s, metrics())
		if a.Status != core.Done || !reflect.DeepEqual(a.Records, b.Records) || !reflect.DeepEqual(a.Model, b.Model) {
			t.Fatalf("%s: records differ between 1 and 4 workers (%s %s)", c.name, a.Err, b.Err)
		}
	}
}

// TestGossipCommunicationIsCountedPerEdge: a chain of 4 nodes has 6
// directed edges; each carries the node's message every round, the
// tracker initialisation costs one d-vector per directed edge, and a
// ReFedDA restart an all-reduce.
func TestGossipCommunicationIsCountedPerEdge(t *testing.T) {
	const d, R = 5, 7
	p := problem(t, randomCenters(4, 6, d, 18), "none", nil)
	pn := problem(t, randomCenters(4, 6, d, 18), "none", nil)
	for _, c := range []struct {
		name   string
		p      *core.Problem
		params map[string]any
		want   int64
	}{
		{"dfedda", p, nil, 6 * R * (d + 1)},
		{"dfedda_gt", p, nil, 6*R*(2*d+1) + 6*d},
		{"dfedmid", p, nil, 6 * R * (d + 1)},
		// two restarts (after rounds 3 and 6), each an all-reduce of 2·M·d floats
		{"mrefedda_gt", pn, map[string]any{"Q": 1.0, "stage_rounds": 3}, 6*R*2*d + 2*2*4*d},
	} {
		params := map[string]any{"topology": "chain"}
		for k, v := range c.params {
			params[k] = v
		}
		for _, alg := range []core.Algorithm{algo(t, c.name, params), askTwice{algo(t, c.name, params), t}} {
			res := run(t, c.p, alg, core.Settings{Rounds: R, LocalSteps: 2})
			last := res.Records[len(res.Records)-1]
			if last.Up != c.want || last.Down != 0 || last.CommRounds != R {
				t.Errorf("%s: up %d, down %d, %d rounds; want %d, 0, %d", c.name, last.Up, last.Down, last.CommRounds, c.want, R)
			}
		}
	}
}

// askTwice asks the wrapped algorithm for EdgeFloats twice per round and
// fails the test if the answers differ: counting must not change state.
type askTwice struct {
	core.Algorithm
	t *testing.T
}

func (w askTwice) EdgeFloats(rd *core.Round) int64 {
	g := w.Algorithm.(core.Gossiper)
	a, b := g.EdgeFloats(rd), g.EdgeFloats(rd)
	if a != b {
		w.t.Errorf("round %d: EdgeFloats %d, then %d", rd.R, a, b)
	}
	return b
}

func TestDecentralizedMisuseIsRejected(t *testing.T) {
	p := problem(t, randomCenters(4, 6, 3, 19), "l1", map[string]any{"lambda": 0.1})
	bad, err := topology.NewMatrixTopology([]float64{0.5, 0.5, 0.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		params map[string]any
		s      core.Settings
		want   string
	}{
		{"dfedda", nil, core.Settings{Rounds: 1, LocalSteps: 1, ClientsPerRound: 2}, "clients_per_round = 0"},
		{"dfedda", map[string]any{"topology": bad}, core.Settings{Rounds: 1, LocalSteps: 1}, "2 nodes but there are 4"},
		{"refedda_gt", map[string]any{"Q": 1.0}, core.Settings{Rounds: 1, LocalSteps: 1}, "unregularized"},
	} {
		res := core.Run(p, algo(t, c.name, c.params), c.s, nil)
		if res.Status != core.Failed || !strings.Contains(res.Err, c.want) {
			t.Errorf("%s: %s %q, want a failure mentioning %q", c.name, res.Status, res.Err, c.want)
		}
	}
}

type constSched float64

func (c constSched) At(int) float64 { return float64(c) }
