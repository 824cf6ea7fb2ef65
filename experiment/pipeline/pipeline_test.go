package pipeline

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"

	// The components the tests build by name (every kind but datasets,
	// whose readers would make the test binary three times larger:
	// testProblem makes its data).
	_ "github.com/fedlab/fedlab/algorithms"
	_ "github.com/fedlab/fedlab/algorithms/serveropt"
	_ "github.com/fedlab/fedlab/effects/availability"
	_ "github.com/fedlab/fedlab/effects/compress"
	_ "github.com/fedlab/fedlab/effects/privacy"
	_ "github.com/fedlab/fedlab/losses"
	_ "github.com/fedlab/fedlab/metrics"
	_ "github.com/fedlab/fedlab/regularizers"
	_ "github.com/fedlab/fedlab/schedules"
	_ "github.com/fedlab/fedlab/topology"
)

// probeLog records what the probe algorithm saw.
type probeLog struct {
	w0      [][]float64
	offsets []int
	steps   []int
	radius  []float64
	lambdas []float64 // rd.Psi.Lambda per round
	inits   int
}

var probes probeLog

// probe takes full-gradient-free steps: every round the server model moves
// by +1 in every coordinate (so the models after each round are known
// exactly), and it records its start, settings and the round's λ.
type probe struct {
	radius float64
	w      []float64
}

func init() {
	registry.Register[core.Algorithm](registry.Algorithm, registry.Spec{
		Name: "pipeline_probe", Doc: "test probe",
		Params: []registry.Param{{Name: "radius", Type: registry.Float, Default: 0.0, Doc: "recorded"}},
	}, func(a registry.Args) (core.Algorithm, error) { return &probe{radius: a.Float("radius")}, nil })
}

func (p *probe) Init(env *core.Env) error {
	p.w = append([]float64(nil), env.W0...)
	probes.inits++
	probes.w0 = append(probes.w0, append([]float64(nil), env.W0...))
	probes.offsets = append(probes.offsets, env.Settings.RoundOffset)
	probes.steps = append(probes.steps, env.Settings.LocalSteps)
	probes.radius = append(probes.radius, p.radius)
	return nil
}
func (p *probe) Shape() (core.MessageShape, core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1}
}
func (p *probe) Broadcast(rd *core.Round, down *core.Message) {
	probes.lambdas = append(probes.lambdas, rd.Psi.Lambda)
	copy(down.Vecs[0], p.w)
}
func (p *probe) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	g := c.Vec(0)
	for range c.Steps {
		c.Gradient(down.Vecs[0], g)
	}
	for i, x := range down.Vecs[0] {
		up.Vecs[0][i] = x + 1
	}
}
func (p *probe) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	copy(p.w, mean.Vecs[0])
}
func (p *probe) Model(dst []float64) { copy(dst, p.w) }

func build[T any](t *testing.T, k registry.Kind, name string, raw map[string]any) T {
	t.Helper()
	v, err := registry.Build[T](k, name, raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// testProblem is a small sparse regression with ℓ1 (no intercept): 6
// clients of 15 samples of 20 standard normal features, labels from a
// ground truth of 5 nonzeros plus noise of standard deviation 0.1.
func testProblem(t *testing.T, lambda float64) *core.Problem {
	t.Helper()
	const dim, clients, samples = 20, 6, 15
	rng := rand.New(rand.NewPCG(1, 1))
	truth := make([]float64, dim)
	for j := range 5 {
		truth[3*j] = 1 + float64(j)/2
	}
	data := &core.Federated{Name: "sparse regression", Features: dim, Truth: &core.Truth{Weights: truth}}
	for range clients {
		d := &core.Data{X: make([]float64, samples*dim), Y: make([]float64, samples), N: samples, Features: dim}
		for i := range samples {
			for j := range dim {
				d.X[i*dim+j] = rng.NormFloat64()
				d.Y[i] += d.X[i*dim+j] * truth[j]
			}
			d.Y[i] += 0.1 * rng.NormFloat64()
		}
		data.Train = append(data.Train, d)
	}
	loss := build[core.Loss](t, registry.Loss, "squared", map[string]any{"intercept": false})
	pen := build[core.Penalty](t, registry.Regularizer, "l1", map[string]any{"lambda": lambda})
	p, err := core.NewProblem(data, loss, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func testMetrics(t *testing.T) []core.Metric {
	var out []core.Metric
	for _, n := range []string{"l2_error", "objective", "comm", "samples", "comm_rounds"} {
		out = append(out, build[core.Metric](t, registry.Metric, n, nil))
	}
	return out
}

var settings = core.Settings{ClientsPerRound: 3, LocalSteps: 4, Batch: 5, EvalEvery: 2, Init: "normal", InitScale: 1}

func newPipeline(t *testing.T, spec Spec) *Pipeline {
	t.Helper()
	p, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// withoutStage drops the stage column of a pipeline's records.
func withoutStage(recs []core.Record) []core.Record {
	out := make([]core.Record, len(recs))
	for i, r := range recs {
		r.Values = r.Values[1:]
		out[i] = r
	}
	return out
}

func TestOneStageEqualsPlainRun(t *testing.T) {
	prob := testProblem(t, 0.05)
	for _, name := range []string{"fedmid", "cfedda", "fastfedda"} {
		params := map[string]any{"eta_c": 0.01}
		if name != "fedmid" {
			params = map[string]any{"L": 50.0}
		}
		pl := newPipeline(t, Spec{Problem: prob, Settings: settings, Metrics: testMetrics(t),
			Stages: []Stage{{Algorithm: name, Params: params, Rounds: 9}}})
		got := pl.Run(3, 0, 0, nil)
		s := settings
		s.Rounds, s.Seed = 9, 3
		want := core.Run(prob, build[core.Algorithm](t, registry.Algorithm, name, params), s, testMetrics(t))
		if got.Status != core.Done || want.Status != core.Done {
			t.Fatalf("%s: status %s / %s: %s %s", name, got.Status, want.Status, got.Err, want.Err)
		}
		if !slices.Equal(got.Metrics, append([]string{"stage"}, want.Metrics...)) {
			t.Fatalf("%s: metrics %v, want stage + %v", name, got.Metrics, want.Metrics)
		}
		if !recordsEqual(withoutStage(got.Records), want.Records) {
			t.Fatalf("%s: records differ:\n%v\n%v", name, got.Records, want.Records)
		}
		for _, r := range got.Records {
			if r.Values[0] != 1 {
				t.Fatalf("%s: stage column %g, want 1", name, r.Values[0])
			}
		}
		if !slices.Equal(got.Model, want.Model) {
			t.Fatalf("%s: final models differ", name)
		}
	}
}

func recordsEqual(a, b []core.Record) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Round != b[i].Round || a[i].Up != b[i].Up || a[i].Down != b[i].Down ||
			a[i].Samples != b[i].Samples || a[i].CommRounds != b[i].CommRounds || !slices.Equal(a[i].Values, b[i].Values) {
			return false
		}
	}
	return true
}

// A warm restart resets the algorithm's state and continues the round
// count: the second stage equals a fresh run started at the first stage's
// final model with RoundOffset = the first stage's rounds, and differs from
// one uninterrupted run (FedDualAvg's dual state and elapsed step size are
// reset).
func TestWarmRestartResetsStateAndContinuesRounds(t *testing.T) {
	prob := testProblem(t, 0.05)
	params := map[string]any{"eta_c": 0.005}
	pl := newPipeline(t, Spec{Problem: prob, Settings: settings, Metrics: testMetrics(t), Restart: Last,
		Stages: []Stage{{Algorithm: "feddualavg", Params: params, Rounds: 6}, {Rounds: 8}}})
	got := pl.Run(1, 0, 0, nil)

	s := settings
	s.Rounds, s.Seed = 6, 1
	first := core.Run(prob, build[core.Algorithm](t, registry.Algorithm, "feddualavg", params), s, testMetrics(t))
	s.Rounds, s.RoundOffset, s.W0 = 8, 6, first.Model
	second := core.Run(prob, build[core.Algorithm](t, registry.Algorithm, "feddualavg", params), s, testMetrics(t))
	if !slices.Equal(got.Model, second.Model) {
		t.Fatal("the second stage is not a fresh run from the first stage's model")
	}
	// records: stage 1 as is; stage 2 without its start record (same model)
	want := append(append([]core.Record(nil), first.Records...), second.Records[1:]...)
	last := first.Records[len(first.Records)-1]
	for i := len(first.Records); i < len(want); i++ {
		want[i].Up += last.Up
		want[i].Down += last.Down
		want[i].Samples += last.Samples
		want[i].CommRounds += last.CommRounds
		// the comm, samples and comm_rounds metrics are cumulative too
		want[i].Values = append([]float64(nil), want[i].Values...)
		want[i].Values[2] += float64(last.Up + last.Down)
		want[i].Values[3] += float64(last.Samples)
		want[i].Values[4] += float64(last.CommRounds)
	}
	if !recordsEqual(withoutStage(got.Records), want) {
		t.Fatalf("records differ:\n got %v\nwant %v", got.Records, want)
	}
	var rounds []int
	for _, r := range got.Records {
		rounds = append(rounds, r.Round)
		if want := 1.0 + float64(b2i(r.Round > 6)); r.Values[0] != want {
			t.Errorf("round %d: stage %g, want %g", r.Round, r.Values[0], want)
		}
	}
	if !slices.Equal(rounds, []int{0, 2, 4, 6, 8, 10, 12, 14}) {
		t.Errorf("rounds %v", rounds)
	}
	s.Rounds, s.RoundOffset, s.W0 = 14, 0, nil
	whole := core.Run(prob, build[core.Algorithm](t, registry.Algorithm, "feddualavg", params), s, nil)
	if slices.Equal(whole.Model, got.Model) {
		t.Error("a warm restart gave the same model as an uninterrupted run: the state was not reset")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The probe's model after j rounds of a stage is w_start + j, so each
// restart mode's start point is known in closed form.
func TestRestartPoints(t *testing.T) {
	prob := testProblem(t, 0.05)
	d := prob.Dim()
	w0 := make([]float64, d)
	for i := range w0 {
		w0[i] = float64(i%7) - 3 // distinct magnitudes for top-s
	}
	s := settings
	s.W0 = w0
	const R = 4
	shift := func(v []float64, c float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = x + c
		}
		return out
	}
	end := shift(w0, R)
	// average: Σ_j j·(w0 + j) / Σ_j j, j = 1..R  →  w0 + Σj²/Σj
	avg := shift(w0, (1+4+9+16)/10.0)
	top := append([]float64(nil), end...)
	TopS(top, 3, prob.Layout)
	cases := map[Restart][]float64{Last: end, Average: avg, Top: top, Init: w0}
	for mode, want := range cases {
		probes = probeLog{}
		pl := newPipeline(t, Spec{Problem: prob, Settings: s, Restart: mode, Keep: 3,
			Stages: []Stage{{Algorithm: "pipeline_probe", Rounds: R}, {Rounds: 2, LocalSteps: 7}}})
		res := pl.Run(1, 0, 0, nil)
		if res.Status != core.Done {
			t.Fatal(res.Err)
		}
		if probes.inits != 2 {
			t.Fatalf("%s: %d algorithm inits, want one per stage", mode, probes.inits)
		}
		if !slices.Equal(probes.w0[0], w0) {
			t.Fatalf("%s: stage 1 started at %v", mode, probes.w0[0])
		}
		assertClose(t, string(mode)+" start of stage 2", probes.w0[1], want)
		if !slices.Equal(probes.offsets, []int{0, R}) || !slices.Equal(probes.steps, []int{4, 7}) {
			t.Errorf("%s: round offsets %v, local steps %v", mode, probes.offsets, probes.steps)
		}
		assertClose(t, "final model", res.Model, shift(want, 2))
	}
	nonzero := 0
	for _, x := range top {
		if x != 0 {
			nonzero++
		}
	}
	if nonzero != 3 {
		t.Errorf("top-3 kept %d nonzero weights", nonzero)
	}
}

func assertClose(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*max(1, math.Abs(want[i])) {
			t.Fatalf("%s[%d] = %g, want %g\n got %v\nwant %v", what, i, got[i], want[i], got, want)
		}
	}
}

func TestTopSAndRankS(t *testing.T) {
	l := core.NewLayout(core.Block{Name: "kernel", Rows: 2, Cols: 3, Regularized: true}, core.Block{Name: "bias", Rows: 1, Cols: 1})
	w := []float64{0.5, -3, 1, 2, -0.1, 3, 9}
	TopS(w, 3, l)
	if want := []float64{0, -3, 0, 2, 0, 3, 9}; !slices.Equal(w, want) {
		t.Errorf("TopS = %v, want %v (bias kept, ties to the lower index)", w, want)
	}
	// rank: diag-like matrix with singular values 5, 2
	m := []float64{5, 0, 0, 0, 2, 0, 7}
	RankS(m, 1, l)
	assertClose(t, "RankS", m, []float64{5, 0, 0, 0, 0, 0, 7})
}

func TestStageLambdaRadiusAndProblem(t *testing.T) {
	prob := testProblem(t, 0.05)
	probes = probeLog{}
	pl := newPipeline(t, Spec{Problem: prob, Settings: settings,
		Stages: []Stage{
			{Algorithm: "pipeline_probe", Lambda: sched.Constant(0.3), Radius: 5, Rounds: 2},
			{Rounds: 2, Radius: 2.5},
			{Rounds: 1, Lambda: sched.Table{0, 1, 2, 3, 4, 5.5}}, // a function of the global round
		}})
	if res := pl.Run(1, 0, 0, nil); res.Status != core.Done {
		t.Fatal(res.Err)
	}
	if want := []float64{0.3, 0.3, 0.05, 0.05, 4}; !slices.Equal(probes.lambdas, want) {
		t.Errorf("λ per round %v, want %v", probes.lambdas, want)
	}
	if want := []float64{5, 2.5, 2.5}; !slices.Equal(probes.radius, want) {
		t.Errorf("radius per stage %v, want %v (set, set, inherited)", probes.radius, want)
	}
	if b := pl.Boundaries(); !slices.Equal(b, []int{0, 2, 4}) || pl.Rounds() != 5 {
		t.Errorf("boundaries %v rounds %d", b, pl.Rounds())
	}
}

// MC-FedDA composed from cfedda stages equals the registered mcfedda
// algorithm, model for model.
func TestMCFedDAPipelineEqualsAlgorithm(t *testing.T) {
	prob := testProblem(t, 0.0125)
	params := map[string]any{"mu": 0.1, "L": 60.0, "weights": "constant"}
	for _, radius0 := range []float64{0, 3} {
		stages := mcfeddaStages(params, 0.05, radius0, []int{5, 5, 8})
		pl := newPipeline(t, Spec{Problem: prob, Settings: settings, Metrics: testMetrics(t)[:1], Stages: stages})
		got := pl.Run(2, 0, 0, nil)
		s := settings
		s.Rounds, s.Seed = 18, 2
		mc := build[core.Algorithm](t, registry.Algorithm, "mcfedda", map[string]any{"mu": 0.1, "L": 60.0, "weights": "constant",
			"stage_rounds": []float64{5, 5}, "radius0": radius0})
		want := core.Run(prob, mc, s, testMetrics(t)[:1])
		if got.Status != core.Done || want.Status != core.Done {
			t.Fatal(got.Err, want.Err)
		}
		if !slices.Equal(got.Model, want.Model) {
			t.Fatalf("radius0 %g: final models differ:\n%v\n%v", radius0, got.Model, want.Model)
		}
		// l2 errors agree at every round both evaluated
		at := map[int]float64{}
		for _, r := range want.Records {
			at[r.Round] = r.Values[0]
		}
		for _, r := range got.Records {
			if v, ok := at[r.Round]; ok && r.Values[1] != v && !(r.Round == 5 || r.Round == 10) {
				t.Fatalf("round %d: l2 error %g vs %g", r.Round, r.Values[1], v)
			}
		}
	}
}

// mcfeddaStages are the stages of MC-FedDA (Algorithm 3 of Bao et al.
// 2022): stage m runs C-FedDA for rounds[m] rounds with λ_m = λ_0·2^−m and,
// if radius0 > 0, the ball radius ε_m = radius0·λ_m/λ_0, each stage
// starting at the previous stage's weighted-average output.
func mcfeddaStages(params map[string]any, lambda0, radius0 float64, rounds []int) []Stage {
	var out []Stage
	for m, r := range rounds {
		lam := lambda0 * math.Pow(2, -float64(m))
		st := Stage{Lambda: sched.Constant(lam), Rounds: r}
		if radius0 > 0 {
			st.Radius = radius0 * lam / lambda0
		}
		if m == 0 {
			st.Algorithm, st.Params = "cfedda", params
		} else {
			st.Restart = Average
		}
		out = append(out, st)
	}
	return out
}

func TestNewRejects(t *testing.T) {
	prob := testProblem(t, 0.05)
	ball := build[core.Penalty](t, registry.Regularizer, "l1_ball", map[string]any{"radius": 1.0})
	cprob, err := core.NewProblem(prob.Data, prob.Loss, ball, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		spec Spec
		want string
	}{
		"no algorithm":  {Spec{Problem: prob, Settings: settings, Stages: []Stage{{Rounds: 1}}}, "first stage needs an algorithm"},
		"unknown":       {Spec{Problem: prob, Settings: settings, Stages: []Stage{{Algorithm: "nope", Rounds: 1}}}, `unknown algorithm "nope"`},
		"bad param":     {Spec{Problem: prob, Settings: settings, Stages: []Stage{{Algorithm: "fedmid", Params: map[string]any{"eta": 1.0}}}}, `unknown parameter "eta"`},
		"radius":        {Spec{Problem: prob, Settings: settings, Stages: []Stage{{Algorithm: "fedmid", Radius: 1}}}, "no constraint radius"},
		"lambda on set": {Spec{Problem: cprob, Settings: settings, Stages: []Stage{{Algorithm: "fedmid", Lambda: sched.Constant(1)}}}, "needs a penalty with a weight"},
		"top no keep":   {Spec{Problem: prob, Settings: settings, Stages: []Stage{{Algorithm: "fedmid"}, {Restart: Top}}}, "needs keep"},
		"restart first": {Spec{Problem: prob, Settings: settings, Stages: []Stage{{Algorithm: "fedmid", Restart: Average}}}, "first stage starts"},
		"bad restart":   {Spec{Problem: prob, Settings: settings, Restart: "warmish", Stages: []Stage{{Algorithm: "fedmid"}}}, `unknown restart "warmish"`},
		"stage metric":  {Spec{Problem: prob, Settings: settings, Metrics: []core.Metric{namedMetric(StageMetric)}, Stages: []Stage{{Algorithm: "fedmid"}}}, "reserved"},
		"no steps":      {Spec{Problem: prob, Stages: []Stage{{Algorithm: "fedmid"}}}, "local_steps"},
	}
	for name, c := range cases {
		_, err := New(c.spec)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}

// A diverging stage ends the pipeline with its status and a message naming it.
func TestDivergedStage(t *testing.T) {
	prob := testProblem(t, 0.05)
	pl := newPipeline(t, Spec{Problem: prob, Settings: settings, Metrics: testMetrics(t)[:1],
		Stages: []Stage{{Algorithm: "fedmid", Params: map[string]any{"eta_c": 0.001}, Rounds: 3},
			{Algorithm: "fedmid", Params: map[string]any{"eta_c": 1e6}, Rounds: 50}, {Rounds: 5}}})
	res := pl.Run(1, 0, 0, nil)
	if res.Status != core.Diverged || !strings.HasPrefix(res.Err, "stage 2: ") || res.DivergedAt <= 3 {
		t.Errorf("status %s at %d: %q", res.Status, res.DivergedAt, res.Err)
	}
}

// Records follow the pipeline's global evaluation grid (every EvalEvery
// rounds from its first round) plus each stage's first and last round, even
// when the stage boundaries are off the grid.
func TestGlobalEvaluationGrid(t *testing.T) {
	prob := testProblem(t, 0.05)
	s := settings
	s.EvalEvery = 4
	for _, c := range []struct {
		restart Restart
		want    []int
	}{{Last, []int{0, 4, 5, 8, 11, 12, 14}}, {Average, []int{0, 4, 5, 5, 8, 11, 11, 12, 14}}} {
		pl := newPipeline(t, Spec{Problem: prob, Settings: s, Metrics: testMetrics(t)[:1], Restart: c.restart,
			Stages: []Stage{{Algorithm: "fedmid", Params: map[string]any{"eta_c": 0.001}, Rounds: 5}, {Rounds: 6}, {Rounds: 3}}})
		res := pl.Run(1, 0, 0, nil)
		var rounds []int
		for _, r := range res.Records {
			rounds = append(rounds, r.Round)
			if math.IsNaN(r.Values[1]) {
				t.Errorf("%s: round %d has a NaN metric", c.restart, r.Round)
			}
		}
		if !slices.Equal(rounds, c.want) {
			t.Errorf("%s: evaluated rounds %v, want %v", c.restart, rounds, c.want)
		}
	}
}

// namedMetric is a metric with a given name (its value does not matter).
type namedMetric string

func (m namedMetric) Name() string          { return string(m) }
func (namedMetric) Eval(*core.Eval) float64 { return 0 }
