package plan

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/registry"
	_ "github.com/fedlab/fedlab/registry/allbutparquet" // these tests read no Parquet file
)

func comp(kind registry.Kind, name string, params map[string]any) Component {
	return Component{Kind: kind, Name: name, Params: params}
}

var (
	lasso = Problem{
		Data: comp(registry.Dataset, "sparse_ar1", map[string]any{"dim": 16, "support": 4, "clients": 4, "samples": 10, "test_samples": 0}),
		Loss: comp(registry.Loss, "squared", map[string]any{"intercept": false}),
		Reg:  comp(registry.Regularizer, "l1", map[string]any{"lambda": 0.05}),
	}
	settings = core.Settings{Rounds: 6, ClientsPerRound: 2, LocalSteps: 2, Batch: 4, EvalEvery: 3}
)

// The keys of plain runs are those experiment.Jobs gives for the same
// problem, algorithm, settings and metrics (the identity the Lua API has
// always used), so run directories written before plans resume.
func TestKeysMatchTheJobIdentity(t *testing.T) {
	b := NewBuilder()
	algo := comp(registry.Algorithm, "fedmid", map[string]any{"eta_c": 0.01})
	jobs, err := b.Compare(Compare{Problem: lasso, Algorithms: []Algorithm{{Component: algo}}, Settings: settings, Seeds: []uint64{3}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := registry.Build[*core.Federated](registry.Dataset, "sparse_ar1", lasso.Data.Params)
	loss, _ := registry.Build[core.Loss](registry.Loss, "squared", lasso.Loss.Params)
	pen, _ := registry.Build[core.Penalty](registry.Regularizer, "l1", lasso.Reg.Params)
	obj, _ := registry.Build[core.Metric](registry.Metric, "objective", nil)
	p, err := core.NewProblem(data, loss, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := func(kind registry.Kind, c Component) experiment.Component {
		args, err := registry.Validate(kind, c.Name, c.Params)
		if err != nil {
			t.Fatal(err)
		}
		return experiment.NewComponent(c.Name, args.Values())
	}
	base := experiment.Base{Problem: p, Settings: settings, Metrics: []core.Metric{obj},
		ProblemID: experiment.ProblemID{Data: id(registry.Dataset, lasso.Data), Loss: id(registry.Loss, lasso.Loss), Reg: id(registry.Regularizer, lasso.Reg)},
		MetricIDs: []experiment.Component{id(registry.Metric, Component{Name: "objective"})}}
	want, err := experiment.Jobs(base, experiment.AlgoSpec{Name: "fedmid", Params: algo.Params}, nil, []uint64{3})
	if err != nil {
		t.Fatal(err)
	}
	if jobs[0].Key != want[0].Key {
		t.Errorf("plan key %s, job identity key %s", jobs[0].Key, want[0].Key)
	}
}

// A schedule given as a parameter is identified by its specification:
// equal specifications give equal keys, other parameters other keys, and
// the identity names the schedule's kind, name and parameters.
func TestNestedComponentsAreIdentifiedBySpec(t *testing.T) {
	b := NewBuilder()
	key := func(start float64) experiment.Job {
		eta := comp(registry.Schedule, "geometric", map[string]any{"start": start, "factor": 0.5, "every": 2})
		algo := comp(registry.Algorithm, "fedmid", map[string]any{"eta_c": eta})
		jobs, err := b.Compare(Compare{Problem: lasso, Algorithms: []Algorithm{{Component: algo}}, Settings: settings})
		if err != nil {
			t.Fatal(err)
		}
		return jobs[0]
	}
	a, a2, c := key(0.01), key(0.01), key(0.02)
	if a.Key != a2.Key || a.Key == c.Key {
		t.Errorf("keys %s %s %s: equal specs must agree, different ones differ", a.Key, a2.Key, c.Key)
	}
	n, ok := a.Identity.Algorithm.Params["eta_c"].(experiment.Nested)
	if !ok || n.Kind != "schedule" || n.Name != "geometric" || n.Params["start"] != 0.01 {
		t.Errorf("eta_c identity %#v, want the geometric schedule's spec", a.Identity.Algorithm.Params["eta_c"])
	}
	if a.Problem != c.Problem {
		t.Error("two calls on one problem built it twice")
	}
}

// Sweeps apply their settings to the algorithm or to a part of the
// problem; configurations that share problem settings share the problem.
func TestSweepConfigurations(t *testing.T) {
	b := NewBuilder()
	var configs [][]Setting
	for _, lam := range []float64{0.05, 0.1} {
		for _, eta := range []float64{0.01, 0.02} {
			configs = append(configs, []Setting{{Key: "reg.lambda", Value: lam}, {Key: "algo.eta_c", Value: eta}})
		}
	}
	sw := Sweep{Compare: Compare{Problem: lasso, Settings: settings, Seeds: []uint64{1, 2},
		Algorithms: []Algorithm{{Component: comp(registry.Algorithm, "fedmid", nil)}}},
		Configs: configs, Select: []experiment.Rule{{Metric: "objective", Mode: "min"}}}
	jobs, err := b.Sweep(sw)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 8 {
		t.Fatalf("%d jobs, want 4 configurations × 2 seeds", len(jobs))
	}
	if got := jobs[2].Config.String(); got != "eta_c=0.02 reg.lambda=0.05" || jobs[2].Params["eta_c"] == jobs[0].Params["eta_c"] {
		t.Errorf("job 2 config %q params %v", got, jobs[2].Params)
	}
	if jobs[0].Problem != jobs[2].Problem || jobs[0].Problem == jobs[4].Problem {
		t.Error("problems are not shared by the configurations with the same λ only")
	}
	if jobs[4].Problem.Penalty.Lambda.At(0) != 0.1 {
		t.Errorf("configuration λ %g, want 0.1", jobs[4].Problem.Penalty.Lambda.At(0))
	}
	for _, c := range []struct {
		settings []Setting
		want     string
	}{
		{[]Setting{{Key: "mu", Value: 1.0}}, `swept key "mu": algorithm "fedmid" has no parameter "mu"`},
		{[]Setting{{Key: "mirror.p", Value: 2.0}}, "the problem has no mirror"},
		{[]Setting{{Key: "eta_c", Value: 1.0}, {Key: "algo.eta_c", Value: 2.0}}, `key "eta_c" is given twice`},
		{[]Setting{{Key: "foo.bar", Value: 1.0}}, `"foo" is not a part of the problem`},
	} {
		sw.Configs = [][]Setting{c.settings}
		if _, err := b.Sweep(sw); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.settings, err, c.want)
		}
	}
}

// Stages: the identity covers every stage, so changing one stage's λ
// changes the key, and an inherited algorithm carries its parameters.
func TestStagesIdentity(t *testing.T) {
	b := NewBuilder()
	algo := &Algorithm{Component: comp(registry.Algorithm, "fedmid", map[string]any{"eta_c": 0.01})}
	st := Stages{Problem: lasso, Settings: settings, Seeds: []uint64{1, 2},
		Stages: []Stage{{Algorithm: algo, Lambda: 0.1, Rounds: 3}, {Lambda: 0.05, Rounds: 3}}}
	jobs, pl, err := b.Stages(st)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].Settings.Rounds != 6 || pl.Rounds() != 6 || jobs[0].Algorithm != "fedmid+fedmid" {
		t.Fatalf("jobs %d, rounds %d, algorithm %q", len(jobs), jobs[0].Settings.Rounds, jobs[0].Algorithm)
	}
	ids := jobs[0].Identity.Stages
	if len(ids) != 2 || ids[1].Algorithm.Name != "fedmid" || ids[1].Algorithm.Params["eta_c"] != 0.01 || ids[1].Restart != "last" {
		t.Errorf("stage identities %+v", ids)
	}
	st.Stages[1].Lambda = 0.04
	other, _, err := b.Stages(st)
	if err != nil {
		t.Fatal(err)
	}
	if other[0].Key == jobs[0].Key {
		t.Error("another λ in stage 2 kept the key")
	}
	st.Stages[1].Lambda = -1.0
	if _, _, err := b.Stages(st); err == nil || !strings.Contains(err.Error(), "λ must be a finite number ≥ 0") {
		t.Errorf("negative λ: %v", err)
	}
}

// The divergence factor is the Go counterpart of the Lua key divergence:
// a Go plan that sets it gets other keys (identity "divergence") for
// comparisons and pipelines, the default keeps them, and a factor ≤ 1 is
// refused before anything runs.
func TestDivergenceSetting(t *testing.T) {
	b := NewBuilder()
	algo := comp(registry.Algorithm, "fedmid", map[string]any{"eta_c": 0.01})
	key := func(divergence float64) (string, string, error) {
		s := settings
		s.Divergence = divergence
		jobs, err := b.Compare(Compare{Problem: lasso, Algorithms: []Algorithm{{Component: algo}}, Settings: s, Seeds: []uint64{1}})
		if err != nil {
			return "", "", err
		}
		st, _, err := b.Stages(Stages{Problem: lasso, Settings: s, Seeds: []uint64{1},
			Stages: []Stage{{Algorithm: &Algorithm{Component: algo}, Rounds: 3}, {Rounds: 3}}})
		if err != nil {
			return "", "", err
		}
		return jobs[0].Key, st[0].Key, nil
	}
	c0, s0, err := key(0)
	if err != nil {
		t.Fatal(err)
	}
	c1, s1, _ := key(core.DefaultDivergence)
	c2, s2, _ := key(1e9)
	if c1 != c0 || s1 != s0 || c2 == c0 || s2 == s0 {
		t.Errorf("keys: default %s %s, 1e6 %s %s, 1e9 %s %s", c0, s0, c1, s1, c2, s2)
	}
	if _, _, err := key(0.5); err == nil || !strings.Contains(err.Error(), "divergence must be a factor > 1") {
		t.Errorf("divergence 0.5: %v", err)
	}
}

// TestSweepPlanningStopsWithTheContext: expanding a sweep of many
// configurations checks the Builder's context, so --timeout and Ctrl-C
// stop it (a 65,536-configuration grid planned on for 3–6 s past the
// time limit, found by FuzzLuaNestedTables).
func TestSweepPlanningStopsWithTheContext(t *testing.T) {
	b := NewBuilder()
	ctx, cancel := context.WithCancelCause(context.Background())
	b.Context = ctx
	var configs [][]Setting
	for i := range 1000 {
		configs = append(configs, []Setting{{Key: "eta_c", Value: 0.001 * float64(i+1)}})
	}
	sw := Sweep{Compare: Compare{Problem: lasso, Settings: settings,
		Algorithms: []Algorithm{{Component: comp(registry.Algorithm, "fedavg", nil)}}},
		Configs: configs, Select: []experiment.Rule{{Metric: "objective", Mode: "min"}}}
	if jobs, err := b.Sweep(sw); err != nil || len(jobs) != 1000 {
		t.Fatalf("before the context ends: %d jobs, %v", len(jobs), err)
	}
	cancel(errors.New("time limit reached (--timeout 5s)"))
	if _, err := b.Sweep(sw); err == nil || !strings.Contains(err.Error(), "planning stopped: time limit reached (--timeout 5s)") {
		t.Errorf("after the context ends: %v", err)
	}
}
