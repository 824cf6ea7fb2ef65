package experiment_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
	_ "github.com/fedlab/fedlab/registry/allbutparquet" // these tests read no Parquet file
)

// cohortJobs plans, on one small LASSO problem, the paper algorithms and
// the baselines whose state differs most (per-client control variates,
// proximal local solvers, skipped communication, one model per node over
// a ring, with all clients in every round), plus a configuration that
// diverges, with 2 seeds, and the paper algorithms with uplink compression,
// client dropout and client-level differential privacy (server and local
// noise); rounds rounds each.
func cohortJobs(t *testing.T, rounds int) []experiment.Job {
	t.Helper()
	b := plan.NewBuilder()
	problem := plan.Problem{
		Data: plan.Component{Kind: registry.Dataset, Name: "lasso", Params: map[string]any{
			"variant": "custom", "support": 4, "dim": 24, "clients": 9, "samples": 14, "test_samples": 6}},
		Loss: plan.Component{Kind: registry.Loss, Name: "squared", Params: map[string]any{"intercept": true}},
		Reg:  plan.Component{Kind: registry.Regularizer, Name: "l1", Params: map[string]any{"lambda": 0.05}},
	}
	algo := func(name string, params map[string]any) plan.Algorithm {
		return plan.Algorithm{Component: plan.Component{Kind: registry.Algorithm, Name: name, Params: params}}
	}
	algorithms := []plan.Algorithm{
		algo("feddualavg", map[string]any{"eta_c": 0.01, "eta_s": 1}),
		algo("feddualavg_osp", map[string]any{"eta_c": 0.01, "eta_s": 1}),
		algo("fedmid", map[string]any{"eta_c": 0.01, "eta_s": 1}),
		algo("fedmid_osp", map[string]any{"eta_c": 0.01, "eta_s": 1}),
		{Component: plan.Component{Kind: registry.Algorithm, Name: "fedmid", Params: map[string]any{"eta_c": 5, "eta_s": 1}}, Label: "fedmid (diverges)"},
		algo("scaffold", map[string]any{"eta_c": 0.01}),
		algo("fedprox", map[string]any{"eta_c": 0.01}),
		algo("fedadam", map[string]any{"eta_c": 0.01}),
	}
	everyClient := []plan.Algorithm{
		algo("fedpd", map[string]any{"eta": 0.005, "p": 0.5}),
		algo("dfedda", map[string]any{"eta_c": 0.01, "topology": "ring"}),
		algo("fedmid", map[string]any{"eta_c": 0.01, "eta_s": 1}),
	}
	metric := func(name string) plan.Component { return plan.Component{Kind: registry.Metric, Name: name} }
	compare := plan.Compare{Problem: problem, Algorithms: algorithms,
		Settings: core.Settings{Rounds: rounds, ClientsPerRound: 4, LocalEpochs: 1, Batch: 3, EvalEvery: 4},
		Metrics:  []plan.Component{metric("objective"), metric("f1"), metric("l2_error"), metric("test_loss"), metric("consensus")},
		Seeds:    []uint64{1, 2}}
	jobs, err := b.Compare(compare)
	if err != nil {
		t.Fatal(err)
	}
	compare.System = plan.System{
		CompressUp:   &plan.Component{Kind: registry.Compressor, Name: "top_k", Params: map[string]any{"k": 5, "error_feedback": true}},
		Availability: &plan.Component{Kind: registry.Availability, Name: "dropout", Params: map[string]any{"p": 0.3}},
		Privacy:      &plan.Component{Kind: registry.Privacy, Name: "gaussian", Params: map[string]any{"clip": 1, "noise": 0.5, "local_noise": 0.1}},
	}
	compare.Algorithms = algorithms[:4]
	more, err := b.Compare(compare)
	if err != nil {
		t.Fatal(err)
	}
	compare.System, compare.Algorithms, compare.Settings.ClientsPerRound = plan.System{}, everyClient, 0
	all, err := b.Compare(compare)
	if err != nil {
		t.Fatal(err)
	}
	return slices.Concat(jobs, more, all)
}

// TestCohortsGiveTheRunsOfOneByOne executes the same jobs one by one and in
// cohorts, with 1 or 2 runs at once and 1 or 2 client workers, and checks
// that every run has the same status, records and model, bit for bit.
func TestCohortsGiveTheRunsOfOneByOne(t *testing.T) {
	jobs := cohortJobs(t, 25)
	alone, err := experiment.Execute(jobs, experiment.Options{Jobs: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[core.Status]int{}
	for _, r := range alone {
		statuses[r.Result.Status]++
	}
	if statuses[core.Diverged] != 2 || statuses[core.Done] != len(jobs)-2 {
		t.Fatalf("statuses %v: want 2 diverged runs and the others done", statuses)
	}
	options := []experiment.Options{{Jobs: 1, Workers: 1}, {Jobs: 2, Workers: 2}, {Jobs: 2, Workers: 1}, {Jobs: 1}}
	if testing.Short() {
		options = options[:2] // one at a time, and both at once in runs and clients; the mixed ones in the full suite
	}
	for _, o := range options {
		o.Cohorts = experiment.Cohorts{MaxState: 1 << 30}
		runs, err := experiment.Execute(jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range runs {
			sameRun(t, fmt.Sprintf("%+v: run %d (%s, seed %d)", o, i, r.Label, r.Seed), r.Result, alone[i].Result)
		}
	}
}

// sameRun fails the test unless got (in a cohort) has want's status,
// error, divergence round and model, and its records (round, counts and
// values) bit for bit.
func sameRun(t *testing.T, what string, got, want *core.Result) {
	t.Helper()
	if got.Status != want.Status || got.Err != want.Err || got.DivergedAt != want.DivergedAt || !bitsEqual(got.Model, want.Model) || len(got.Records) != len(want.Records) {
		t.Fatalf("%s: %s %q, %d records; alone %s %q, %d records", what, got.Status, got.Err, len(got.Records), want.Status, want.Err, len(want.Records))
	}
	for k, rec := range got.Records {
		w := want.Records[k]
		if rec.Round != w.Round || rec.Up != w.Up || rec.Samples != w.Samples || !bitsEqual(rec.Values, w.Values) {
			t.Fatalf("%s, record %d: %+v, alone %+v", what, k, rec, w)
		}
	}
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// TestCohortsStopForTheContext: a context that ends interrupts the runs of
// a cohort at a round boundary, which Execute reports like runs executed
// one by one.
func TestCohortsStopForTheContext(t *testing.T) {
	jobs := cohortJobs(t, 1_000_000)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	runs, err := experiment.Execute(jobs, experiment.Options{Jobs: 2, Cohorts: experiment.Cohorts{MaxState: 1 << 30}, Context: ctx})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Execute returned %v, want the context's deadline", err)
	}
	for i, r := range runs {
		if r.Result != nil && r.Result.Status != core.Interrupted && r.Result.Status != core.Diverged {
			t.Fatalf("run %d (%s) ended %s (%s): want interrupted", i, r.Label, r.Result.Status, r.Result.Err)
		}
	}
	if runs[0].Result == nil || runs[0].Result.Status != core.Interrupted {
		t.Fatalf("the first run was not interrupted: %+v", runs[0].Result)
	}
}
