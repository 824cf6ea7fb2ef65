package experiment

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/fedlabtest"
	"github.com/fedlab/fedlab/registry"
)

func testBase(t *testing.T) Base {
	t.Helper()
	data, err := registry.Build[*core.Federated](registry.Dataset, "test_data", map[string]any{"clients": 6})
	if err != nil {
		t.Fatal(err)
	}
	loss, err := registry.Build[core.Loss](registry.Loss, "test_squared", nil)
	if err != nil {
		t.Fatal(err)
	}
	pen, err := registry.Build[core.Penalty](registry.Regularizer, "test_l1", map[string]any{"lambda": 0.01})
	if err != nil {
		t.Fatal(err)
	}
	p, err := core.NewProblem(data, loss, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := registry.Build[core.Metric](registry.Metric, "test_objective", nil)
	if err != nil {
		t.Fatal(err)
	}
	return Base{Problem: p,
		ProblemID: ProblemID{Data: NewComponent("test_data", map[string]any{"clients": 6}),
			Loss: NewComponent("test_squared", nil), Reg: NewComponent("test_l1", map[string]any{"lambda": 0.01})},
		Settings: core.Settings{Rounds: 20, ClientsPerRound: 2, LocalSteps: 3, Batch: 2, EvalEvery: 5},
		Metrics:  []core.Metric{obj}, MetricIDs: []Component{NewComponent("test_objective", nil)}}
}

// plan makes the jobs of algos × seeds on base.
func plan(t *testing.T, base Base, seeds []uint64, algos ...AlgoSpec) []Job {
	t.Helper()
	var jobs []Job
	for _, a := range algos {
		js, err := Jobs(base, a, nil, seeds)
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, js...)
	}
	return jobs
}

func TestExecuteRunsEveryJobAndKeepsGoing(t *testing.T) {
	jobs := plan(t, testBase(t), []uint64{1, 2},
		AlgoSpec{Name: "test_gd", Params: map[string]any{"eta_c": 0.1}},
		AlgoSpec{Name: "test_gd", Label: "broken", Params: map[string]any{"fail": true}},
		AlgoSpec{Name: "test_gd", Label: "wild", Params: map[string]any{"eta_c": 1e8}},
	)
	runs, err := Execute(jobs, Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		label  string
		seed   uint64
		status core.Status
	}{
		{"test_gd", 1, core.Done}, {"test_gd", 2, core.Done},
		{"broken", 1, core.Failed}, {"broken", 2, core.Failed},
		{"wild", 1, core.Diverged}, {"wild", 2, core.Diverged},
	}
	if len(runs) != len(want) {
		t.Fatalf("got %d runs, want %d", len(runs), len(want))
	}
	for i, w := range want {
		r := runs[i]
		if r.Label != w.label || r.Seed != w.seed || r.Result.Status != w.status {
			t.Errorf("run %d = %s seed %d %s (%s), want %s seed %d %s", i, r.Label, r.Seed, r.Result.Status, r.Result.Err, w.label, w.seed, w.status)
		}
	}
	if got := runs[0].Params["eta_s"]; got == nil {
		t.Errorf("resolved params lack the default eta_s: %v", runs[0].Params)
	}
	if len(runs[0].Result.Records) != 5 {
		t.Errorf("got %d records, want 5 (rounds 0, 5, 10, 15, 20)", len(runs[0].Result.Records))
	}
}

func TestCommonRandomNumbers(t *testing.T) {
	// The same algorithm under two labels sees the same samples: identical records.
	jobs := plan(t, testBase(t), []uint64{1, 2}, AlgoSpec{Name: "test_gd"}, AlgoSpec{Name: "test_gd", Label: "again"})
	runs, err := Execute(jobs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := runs[0].Result.Records, runs[2].Result.Records
	for i := range a {
		if a[i].Values[0] != b[i].Values[0] {
			t.Fatalf("record %d differs across algorithms with the same seed: %v vs %v", i, a[i].Values, b[i].Values)
		}
	}
	if runs[0].Result.Records[4].Values[0] == runs[1].Result.Records[4].Values[0] {
		t.Errorf("different seeds gave identical results")
	}
}

func TestResultsDoNotDependOnRunOrClientWorkers(t *testing.T) {
	base := testBase(t)
	var algos []AlgoSpec
	for _, eta := range []float64{0.01, 0.03, 0.1, 0.3} {
		algos = append(algos, AlgoSpec{Name: "test_gd", Label: strings.Repeat("x", int(eta*100)), Params: map[string]any{"eta_c": eta}})
	}
	jobs := plan(t, base, []uint64{1, 2, 3}, algos...)
	ref, err := Execute(jobs, Options{Jobs: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Jobs: 3, Workers: 2}, {Jobs: 12, Workers: 3}, {Jobs: 2}} {
		got, err := Execute(jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range ref {
			a, b := ref[i].Result, got[i].Result
			if len(a.Records) != len(b.Records) || a.Status != b.Status {
				t.Fatalf("jobs %d workers %d: run %d differs in shape", o.Jobs, o.Workers, i)
			}
			for k := range a.Records {
				for m := range a.Records[k].Values {
					if math.Float64bits(a.Records[k].Values[m]) != math.Float64bits(b.Records[k].Values[m]) {
						t.Fatalf("jobs %d workers %d: run %d record %d differs", o.Jobs, o.Workers, i, k)
					}
				}
			}
			for k := range a.Model {
				if math.Float64bits(a.Model[k]) != math.Float64bits(b.Model[k]) {
					t.Fatalf("jobs %d workers %d: run %d model differs", o.Jobs, o.Workers, i)
				}
			}
		}
	}
}

func TestDoneStopsStartingRuns(t *testing.T) {
	jobs := plan(t, testBase(t), []uint64{1, 2, 3, 4, 5, 6}, AlgoSpec{Name: "test_gd"})
	stop := errors.New("stop")
	var seen []int
	runs, err := Execute(jobs, Options{Jobs: 1, Done: func(i int, r Run) error {
		seen = append(seen, i)
		if len(seen) == 2 {
			return stop
		}
		return nil
	}})
	if !errors.Is(err, stop) {
		t.Fatalf("got %v, want the Done error", err)
	}
	if len(seen) != 2 || seen[0] != 0 || seen[1] != 1 {
		t.Errorf("Done saw %v, want [0 1]", seen)
	}
	for i, r := range runs {
		if (r.Result != nil) != (i < 2) {
			t.Errorf("run %d has result %v", i, r.Result != nil)
		}
	}
}

func TestJobsRejectBadSpecsUpFront(t *testing.T) {
	cases := map[string]struct {
		algo AlgoSpec
		want string
	}{
		"unknown key":  {AlgoSpec{Name: "test_gd", Params: map[string]any{"eta": 1.0}}, `unknown parameter "eta"`},
		"unknown name": {AlgoSpec{Name: "nope"}, `unknown algorithm "nope"`},
	}
	for name, c := range cases {
		_, err := Jobs(testBase(t), c.algo, nil, []uint64{1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
	if err := DistinctLabels([]AlgoSpec{{Name: "test_gd"}, {Name: "test_gd"}}); err == nil || !strings.Contains(err.Error(), "distinct labels") {
		t.Errorf("duplicate labels: %v", err)
	}
	if err := DistinctLabels(nil); err == nil || !strings.Contains(err.Error(), "no algorithms") {
		t.Errorf("no algorithms: %v", err)
	}
}

func TestKeys(t *testing.T) {
	base := testBase(t)
	key := func(b Base, a AlgoSpec, seed uint64) string {
		js, err := Jobs(b, a, nil, []uint64{seed})
		if err != nil {
			t.Fatal(err)
		}
		return js[0].Key
	}
	k := key(base, AlgoSpec{Name: "test_gd", Params: map[string]any{"eta_c": 0.1}}, 1)
	if len(k) != 16 {
		t.Errorf("key %q has %d digits, want 16", k, len(k))
	}
	same := []string{
		key(base, AlgoSpec{Name: "test_gd", Label: "other label", Params: map[string]any{"eta_c": 0.1}}, 1),
		key(base, AlgoSpec{Name: "test_gd"}, 1), // 0.1 is the default
	}
	for _, s := range same {
		if s != k {
			t.Errorf("equal identities gave keys %s and %s", k, s)
		}
	}
	moreRounds := base
	moreRounds.Settings.Rounds++
	lambda := base
	lambda.ProblemID.Reg = NewComponent("test_l1", map[string]any{"lambda": 0.02})
	differ := []string{
		key(base, AlgoSpec{Name: "test_gd", Params: map[string]any{"eta_c": 0.2}}, 1),
		key(base, AlgoSpec{Name: "test_gd"}, 2),
		key(moreRounds, AlgoSpec{Name: "test_gd"}, 1),
		key(lambda, AlgoSpec{Name: "test_gd"}, 1),
	}
	for i, d := range differ {
		if d == k {
			t.Errorf("change %d kept the key", i)
		}
	}
}

// The divergence factor is part of the identity only when it is not the
// default: the runs of scripts that do not set it keep their keys (the
// key below is the one this job had before the setting existed).
func TestDivergenceKeepsDefaultKeys(t *testing.T) {
	key := func(divergence float64) string {
		b := testBase(t)
		b.Settings.Divergence = divergence
		js, err := Jobs(b, AlgoSpec{Name: "test_gd"}, nil, []uint64{1})
		if err != nil {
			t.Fatal(err)
		}
		return js[0].Key
	}
	const old = "a33ddb557dc8d9a6"
	for _, d := range []float64{0, core.DefaultDivergence} {
		if k := key(d); k != old {
			t.Errorf("divergence %g: key %s, want the old key %s", d, k, old)
		}
	}
	a, b := key(1e8), key(math.Inf(1))
	if a == old || b == old || a == b {
		t.Errorf("keys %s (1e8) and %s (+Inf) must differ from each other and from %s", a, b, old)
	}
}

func TestGrid(t *testing.T) {
	a := []Setting{NewSetting("a", 1.0), NewSetting("a", 2.0)}
	b := []Setting{NewSetting("b", "x"), NewSetting("b", "y"), NewSetting("b", "z")}
	var s []string
	for _, c := range Grid([][]Setting{b, a}) {
		s = append(s, NewConfig(c...).String())
	}
	want := "a=1 b=x|a=2 b=x|a=1 b=y|a=2 b=y|a=1 b=z|a=2 b=z"
	if strings.Join(s, "|") != want {
		t.Errorf("grid %q, want %q", strings.Join(s, "|"), want)
	}
	if Grid[Setting](nil) != nil {
		t.Errorf("an empty grid has configurations")
	}
	c := NewConfig(NewSetting("z", 0.001), NewSetting("reg.lambda", 3))
	if c.String() != "reg.lambda=3 z=0.001" {
		t.Errorf("config %q", c.String())
	}
}
