package plan

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/registry"
)

// roundZero counts the evaluations of round 0: a run continued from a
// rung's state does not measure it again.
type roundZero struct {
	mu *sync.Mutex
	n  *int
}

func (roundZero) Name() string { return "round_zero" }
func (m roundZero) Eval(e *core.Eval) float64 {
	if e.Round == 0 {
		m.mu.Lock()
		*m.n++
		m.mu.Unlock()
	}
	return 0
}

// horizonAlg is fedmid declaring that it depends on the horizon.
type horizonAlg struct{ core.Algorithm }

func (h horizonAlg) State(st *core.State) { h.Algorithm.(core.Stateful).State(st) }
func (horizonAlg) DependsOnHorizon() bool { return true }

func init() {
	registry.Register[core.Algorithm](registry.Algorithm, registry.Spec{
		Name: "test_horizon_fedmid", Doc: "fedmid, declaring that it depends on the horizon",
		Params: []registry.Param{{Name: "eta_c", Type: registry.Float, Default: 0.01, Doc: "client step size"}},
	}, func(a registry.Args) (core.Algorithm, error) {
		alg, err := registry.Build[core.Algorithm](registry.Algorithm, "fedmid", map[string]any{"eta_c": a.Float("eta_c")})
		return horizonAlg{alg}, err
	})
}

// halvingSweep is a sweep of algo over 6 client step sizes, 2 seeds, 27
// rounds evaluated every 2 (so the rungs of 3 and 9 rounds end off the
// grid).
func halvingSweep(algo string) Sweep {
	s := settings
	s.Rounds, s.EvalEvery = 27, 2
	sw := Sweep{Compare: Compare{Problem: lasso, Settings: s, Seeds: []uint64{1, 2},
		Algorithms: []Algorithm{{Component: comp(registry.Algorithm, algo, nil)}}},
		Select: []experiment.Rule{{Metric: "objective", Mode: "min", Last: 4}}}
	for _, eta := range []float64{0.001, 0.003, 0.01, 0.03, 0.1, 0.3} {
		sw.Configs = append(sw.Configs, []Setting{{Key: "eta_c", Value: eta, Shown: eta}})
	}
	return sw
}

// measured executes each rung's jobs with experiment.Execute (options o),
// each job measuring the extra metric m too.
type measured struct {
	m core.Metric
	o experiment.Options
}

func (e measured) ExecuteRung(_ experiment.Rung, jobs []experiment.Job) ([]experiment.Run, error) {
	for i := range jobs {
		jobs[i].Metrics = append(slices.Clone(jobs[i].Metrics), e.m)
	}
	return experiment.Execute(jobs, e.o)
}

// drive runs sw by halving h (Builder.Halve) with experiment.Execute
// (options o), each job measuring the extra metric m too, and returns the
// outcome, the rungs and their job counts.
func drive(t *testing.T, b *Builder, sw Sweep, h experiment.Halving, m core.Metric, o experiment.Options) (res *Halved, rungs []experiment.Rung, counts []int) {
	t.Helper()
	res, err := b.Halve(sw, h, measured{m, o})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Rungs {
		rungs, counts = append(rungs, r.Rung), append(counts, len(r.Jobs))
	}
	return res, rungs, counts
}

// TestHalvingContinuesItsSurvivors: a survivor of every rung continues
// from its state at the end of the rung before, and its final records
// and model equal bit for bit an uninterrupted run of its configuration
// (the rungs of 3 and 9 rounds evaluate off the grid of every 2: that
// record is not in the continued run's); round 0 is measured only by the
// first rung's runs; the rounds computed are the sum over rungs of the
// runs times the budget's increase, not the runs times the budget.
func TestHalvingContinuesItsSurvivors(t *testing.T) {
	b := NewBuilder()
	sw := halvingSweep("fedmid")
	var mu sync.Mutex
	zeros := 0
	p, rungs, counts := drive(t, b, sw, experiment.Halving{Eta: 3, First: 3}, roundZero{&mu, &zeros}, experiment.Options{Jobs: 2, Workers: 1})
	if fmt.Sprint(rungs) != "[{1 3 3} {2 3 9} {3 3 27}]" || fmt.Sprint(counts) != "[12 4 2]" {
		t.Fatalf("rungs %v with %v jobs, want 3, 9 and 27 rounds with 12, 4 and 2 (6 configurations, 2 seeds, eta 3)", rungs, counts)
	}
	if zeros != 12 {
		t.Errorf("round 0 measured %d times, want 12 (the first rung's runs only)", zeros)
	}
	if got, want := p.Rounds, 12*3+4*(9-3)+2*(27-9); got != want || want >= 12*3+4*9+2*27 {
		t.Errorf("rounds computed %d, want %d (recomputed: %d)", got, want, 12*3+4*9+2*27)
	}
	if len(p.Notes) != 0 {
		t.Errorf("notes %v", p.Notes)
	}
	last, sels := p.Runs, p.Selections
	if len(last) != 2 || sels[0].Best < 0 {
		t.Fatalf("last rung %d runs, best %d", len(last), sels[0].Best)
	}
	// the survivor's configuration, uninterrupted
	full := sw
	full.Configs = nil
	for _, c := range sw.Configs {
		if fmt.Sprint(c[0].Value) == fmt.Sprint(last[0].Config[0].Value) {
			full.Configs = append(full.Configs, c)
		}
	}
	jobs, err := b.Sweep(full)
	if err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		jobs[i].Metrics = append(slices.Clone(jobs[i].Metrics), roundZero{&mu, new(int)})
	}
	want, err := experiment.Execute(jobs, experiment.Options{Jobs: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range last {
		w := want[i]
		if r.Key != w.Key || r.Result.Status != core.Done {
			t.Fatalf("run %d: key %s status %s, uninterrupted %s", i, r.Key, r.Result.Status, w.Key)
		}
		if !reflect.DeepEqual(r.Result.Records, w.Result.Records) || !slices.Equal(r.Result.Model, w.Result.Model) {
			t.Errorf("seed %d: continued records %v model %v,\nuninterrupted %v %v", r.Seed, r.Result.Records, r.Result.Model, w.Result.Records, w.Result.Model)
		}
	}

	// in cohorts (runs in lockstep, continued and fresh members mixed), the same runs
	zeros = 0
	p, _, _ = drive(t, b, sw, experiment.Halving{Eta: 3, First: 3}, roundZero{&mu, &zeros}, experiment.Options{Jobs: 2, Workers: 1, Cohorts: experiment.Cohorts{MaxState: 1 << 30}})
	cohort := p.Runs
	if zeros != 12 {
		t.Errorf("in cohorts: round 0 measured %d times, want 12", zeros)
	}
	for i, r := range cohort {
		if r.Result.Cohort < 2 || !reflect.DeepEqual(r.Result.Records, want[i].Result.Records) || !slices.Equal(r.Result.Model, want[i].Result.Model) {
			t.Errorf("in cohorts (of %d): seed %d differs from the uninterrupted run", r.Result.Cohort, r.Seed)
		}
	}
}

// TestHalvingRecomputesHorizonDependentAlgorithms: an algorithm that
// declares it depends on the horizon is recomputed from round 0 at every
// rung, and the planner says so.
func TestHalvingRecomputesHorizonDependentAlgorithms(t *testing.T) {
	var mu sync.Mutex
	zeros := 0
	p, _, _ := drive(t, NewBuilder(), halvingSweep("test_horizon_fedmid"), experiment.Halving{Eta: 3, First: 3}, roundZero{&mu, &zeros}, experiment.Options{Jobs: 2, Workers: 1})
	if zeros != 12+4+2 || p.Rounds != 12*3+4*9+2*27 {
		t.Errorf("round 0 measured %d times, %d rounds: want every run from round 0 (18, %d)", zeros, p.Rounds, 12*3+4*9+2*27)
	}
	if want := []string{"test_horizon_fedmid depends on the horizon (core.HorizonDependent): its survivors are recomputed from round 0 at each rung"}; !slices.Equal(p.Notes, want) {
		t.Errorf("notes %q, want %q", p.Notes, want)
	}
}

// The planner is driven in order: a rung planned is reported before the
// next, with one run per job.
func TestHalvingPlannerIsDrivenInOrder(t *testing.T) {
	p, err := NewBuilder().halving(halvingSweep("fedmid"), experiment.Halving{Eta: 3, First: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.report(nil); err == nil || err.Error() != "halving: no rung planned to report" {
		t.Errorf("report before next: %v", err)
	}
	if _, _, _, err := p.next(); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := p.next(); err == nil || err.Error() != "halving: rung 1 was planned but its runs were not reported" {
		t.Errorf("next twice: %v", err)
	}
	if err := p.report(make([]experiment.Run, 3)); err == nil || err.Error() != "halving: rung 1 planned 12 jobs, 3 runs reported" {
		t.Errorf("report of 3 runs: %v", err)
	}
}
