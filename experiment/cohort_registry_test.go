package experiment_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
)

// registryProblems are a dense and a sparse LASSO, the dense one without
// its penalty (for the algorithms that refuse one), and a neural classifier
// (a one-hidden-layer MLP, its default Kaiming-uniform start), small enough
// that every algorithm runs on each in a few milliseconds.
func registryProblems() map[string]plan.Problem {
	lasso := func(format string) plan.Problem {
		return plan.Problem{
			Data: plan.Component{Kind: registry.Dataset, Name: "lasso", Params: map[string]any{
				"variant": "custom", "support": 4, "dim": 24, "clients": 6, "samples": 10, "test_samples": 4, "format": format, "density": 0.5}},
			Loss: plan.Component{Kind: registry.Loss, Name: "squared", Params: map[string]any{"intercept": true}},
			Reg:  plan.Component{Kind: registry.Regularizer, Name: "l1", Params: map[string]any{"lambda": 0.05}},
		}
	}
	unregularized := lasso("dense")
	unregularized.Reg = plan.Component{}
	return map[string]plan.Problem{
		"dense":         lasso("dense"),
		"unregularized": unregularized,
		"sparse":        lasso("sparse"),
		"neural": {
			Data: plan.Component{Kind: registry.Dataset, Name: "sparse_federated", Params: map[string]any{
				"task": "classification", "format": "dense", "clients": 6, "samples": 10, "test_samples": 4, "dim": 40, "nnz": 8}},
			Loss: plan.Component{Kind: registry.Loss, Name: "mlp", Params: map[string]any{"hidden": []float64{5}}},
		},
	}
}

// requiredParams gives the required parameters of an algorithm a value: a
// small step for numbers and schedules, the first choice of a string. A
// new algorithm whose required parameter is of another type fails the test
// until it is given one here.
func requiredParams(t *testing.T, name string) map[string]any {
	spec, ok := registry.Lookup(registry.Algorithm, name)
	if !ok {
		t.Fatalf("algorithm %q is listed but not found", name)
	}
	params := map[string]any{}
	for _, p := range spec.Params {
		if !p.Required() {
			continue
		}
		switch {
		case p.Type == registry.Float || p.Type == registry.Sched:
			params[p.Name] = 0.01
		case p.Type == registry.String && len(p.Choices) > 0:
			params[p.Name] = p.Choices[0]
		default:
			t.Fatalf("algorithm %q: give its required parameter %q (%v) a value in requiredParams", name, p.Name, p.Type)
		}
	}
	return params
}

// solitary reports whether job j's algorithm is core.Solitary.
func solitary(t *testing.T, j experiment.Job) bool {
	alg, err := registry.BuildArgs[core.Algorithm](j.Args)
	if err != nil {
		t.Fatal(err)
	}
	_, ok := core.As[core.Solitary](alg)
	return ok
}

// TestCohortsOfEveryRegisteredAlgorithm walks the registry: every
// algorithm, with its defaults (and a small step where one is required),
// on a dense, a sparse and a neural problem, 2 seeds, gives the same
// status, records and model bit for bit in a cohort as executed alone. An
// algorithm that refuses a problem when it is planned (a decentralized one
// without a topology's data, a constraint it needs) is skipped on that
// problem with its reason; every algorithm must run (done or diverged) on
// at least one problem, so a new algorithm is covered without editing this
// test.
func TestCohortsOfEveryRegisteredAlgorithm(t *testing.T) {
	names := registry.Names(registry.Algorithm)
	if len(names) < 30 {
		t.Fatalf("only %d algorithms registered", len(names))
	}
	covered := map[string][]string{}
	var refusals []string
	problems := registryProblems()
	for _, pname := range slices.Sorted(func(yield func(string) bool) {
		for k := range problems {
			if !yield(k) {
				return
			}
		}
	}) {
		b := plan.NewBuilder()
		settings := core.Settings{Rounds: 5, LocalEpochs: 1, Batch: 3, EvalEvery: 2}
		metrics := []plan.Component{{Kind: registry.Metric, Name: "objective"}, {Kind: registry.Metric, Name: "test_loss"}}
		var jobs []experiment.Job
		for _, name := range names {
			cmp := plan.Compare{Problem: problems[pname], Settings: settings, Metrics: metrics, Seeds: []uint64{1, 2},
				Algorithms: []plan.Algorithm{{Component: plan.Component{Kind: registry.Algorithm, Name: name, Params: requiredParams(t, name)}}}}
			js, err := b.Compare(cmp)
			if err != nil {
				refusals = append(refusals, fmt.Sprintf("%s on %s: %v", name, pname, err))
				continue
			}
			jobs = append(jobs, js...)
		}
		alone, err := experiment.Execute(jobs, experiment.Options{Jobs: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []experiment.Options{{Jobs: 1, Workers: 1}, {Jobs: 2, Workers: 2}} {
			o.Cohorts = experiment.Cohorts{MaxState: 1 << 30}
			runs, err := experiment.Execute(jobs, o)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range runs {
				c := r.Result
				sameRun(t, fmt.Sprintf("%s, %+v: %s seed %d", pname, o, r.Label, r.Seed), c, alone[i].Result)
				if c.Cohort < 2 && !solitary(t, jobs[i]) {
					t.Errorf("%s: %s seed %d ran alone (cohort %d) under cohorts", pname, r.Label, r.Seed, c.Cohort)
				}
			}
		}
		for _, r := range alone {
			switch r.Result.Status {
			case core.Done, core.Diverged:
				covered[r.Algorithm] = append(covered[r.Algorithm], pname)
			default:
				refusals = append(refusals, fmt.Sprintf("%s seed %d on %s: %s: %s", r.Label, r.Seed, pname, r.Result.Status, r.Result.Err))
			}
		}
	}
	var uncovered []string
	for _, name := range names {
		if len(covered[name]) == 0 {
			uncovered = append(uncovered, name)
		}
	}
	t.Logf("%d algorithms; problems refused when planned, or runs that failed:\n  %s", len(names), strings.Join(refusals, "\n  "))
	if len(uncovered) > 0 {
		t.Errorf("algorithms that ran on none of the problems: %v", uncovered)
	}
}

// solitaryAlg wraps an algorithm and declares it Solitary.
type solitaryAlg struct{ core.Algorithm }

func (solitaryAlg) Solitary()                {}
func (a solitaryAlg) Unwrap() core.Algorithm { return a.Algorithm }

// A Solitary algorithm in a cohort runs alone (Cohort 0) with the records
// it has alone; the others run together.
func TestSolitaryAlgorithmsRunAlone(t *testing.T) {
	b := plan.NewBuilder()
	jobs, err := b.Compare(plan.Compare{Problem: registryProblems()["dense"], Seeds: []uint64{1},
		Settings:   core.Settings{Rounds: 4, LocalSteps: 2, Batch: 3, EvalEvery: 2},
		Metrics:    []plan.Component{{Kind: registry.Metric, Name: "objective"}},
		Algorithms: []plan.Algorithm{{Component: plan.Component{Kind: registry.Algorithm, Name: "feddualavg", Params: map[string]any{"eta_c": 0.01}}}}})
	if err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	build := func() core.Algorithm {
		alg, err := registry.BuildArgs[core.Algorithm](j.Args)
		if err != nil {
			t.Fatal(err)
		}
		return alg
	}
	s := j.Settings
	s.Seed = j.Seed
	alone := core.Run(j.Problem, build(), s, j.Metrics)
	res := core.RunCohort(j.Problem, []core.Member{{Alg: build(), Settings: s}, {Alg: solitaryAlg{build()}, Settings: s}, {Alg: build(), Settings: s}}, j.Metrics)
	for k, r := range res {
		want := 2
		if k == 1 {
			want = 0
		}
		if r.Cohort != want {
			t.Fatalf("member %d: cohort %d, want %d", k, r.Cohort, want)
		}
		sameRun(t, fmt.Sprintf("member %d", k), r, alone)
	}
}
