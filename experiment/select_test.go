package experiment

import (
	"math"
	"slices"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// handRun makes a run of label with config eta=eta whose metrics "f1" and
// "err" at rounds 0, 10, …, 100 are given by f.
func handRun(label string, eta float64, seed uint64, f func(round int) (f1, err float64)) Run {
	res := &core.Result{Metrics: []string{"f1", "err"}, Status: core.Done}
	for r := 0; r <= 100; r += 10 {
		a, b := f(r)
		res.Records = append(res.Records, core.Record{Round: r, Values: []float64{a, b}})
	}
	return Run{Label: label, Seed: seed, Config: NewConfig(NewSetting("eta", eta)), Result: res}
}

func diverge(r Run, at int) Run {
	res := *r.Result
	res.Status, res.DivergedAt = core.Diverged, at
	res.Records = res.Records[:at/10]
	r.Result = &res
	return r
}

func TestSelectPicksTheRightConfig(t *testing.T) {
	runs := []Run{
		// eta 1: best final F1 (0.95) but a poor mean over the last 30 rounds
		handRun("A", 1, 1, func(r int) (float64, float64) {
			if r == 100 {
				return 0.95, 1
			}
			return 0.5, 1
		}),
		// eta 2: F1 0.9 over the last 30 rounds (mean 0.9)
		handRun("A", 2, 1, func(r int) (float64, float64) { return 0.9, 2 }),
		// eta 3: the same mean F1 as eta 2 (final 0.8) with a smaller error: wins the tie-break
		handRun("A", 3, 1, func(r int) (float64, float64) {
			if r >= 80 {
				return []float64{1, 0.9, 0.8}[(r-80)/10], 0.5
			}
			return 0, 0.5
		}),
		// eta 4: would be best, but diverged
		diverge(handRun("A", 4, 1, func(int) (float64, float64) { return 1, 0 }), 50),
		// label B: two seeds; eta 1 has the higher mean
		handRun("B", 1, 1, func(int) (float64, float64) { return 0.6, 0 }),
		handRun("B", 1, 2, func(int) (float64, float64) { return 0.8, 0 }),
		handRun("B", 2, 1, func(int) (float64, float64) { return 0.65, 0 }),
		handRun("B", 2, 2, func(int) (float64, float64) { return 0.7, 0 }),
		// label C: every configuration diverged or failed
		diverge(handRun("C", 1, 1, func(int) (float64, float64) { return 1, 0 }), 30),
		{Label: "C", Seed: 1, Config: NewConfig(NewSetting("eta", 2.0)), Result: &core.Result{Status: core.Failed}},
	}
	window := []Rule{{Metric: "f1", Mode: "max", Last: 30}, {Metric: "err", Mode: "min", Last: 30}}
	sel := Select(runs, window)
	if len(sel) != 3 || sel[0].Label != "A" || sel[1].Label != "B" || sel[2].Label != "C" {
		t.Fatalf("selections %+v", sel)
	}
	a := sel[0]
	if len(a.Candidates) != 4 || a.Best != 2 {
		t.Errorf("A: best %d, want 2 (eta 3)", a.Best)
	}
	if got := a.Candidates[2].Scores[0]; math.Abs(got-0.9) > 1e-15 {
		t.Errorf("A eta 3 mean F1 %v, want 0.9", got)
	}
	if a.Candidates[3].Status != "diverged@50" {
		t.Errorf("A eta 4 status %q", a.Candidates[3].Status)
	}
	b := sel[1]
	if b.Best != 0 || len(b.Candidates[0].Runs) != 2 || math.Abs(b.Candidates[0].Scores[0]-0.7) > 1e-15 {
		t.Errorf("B: best %d, candidate %+v", b.Best, b.Candidates[0])
	}
	if sd := b.Candidates[0].Spread[0]; math.Abs(sd-math.Sqrt(0.02)) > 1e-12 {
		t.Errorf("B spread %v", sd)
	}
	if sel[2].Best != -1 || sel[2].Candidates[1].Status != "failed" {
		t.Errorf("C: %+v", sel[2])
	}
	// At the last round, eta 1 wins A (0.95); minimizing err at the last round, eta 3 (0.5).
	if s := Select(runs, []Rule{{Metric: "f1", Mode: "max"}}); s[0].Best != 0 {
		t.Errorf("final F1: best %d, want 0", s[0].Best)
	}
	if s := Select(runs, []Rule{{Metric: "err", Mode: "min"}}); s[0].Best != 2 {
		t.Errorf("min err: best %d, want 2", s[0].Best)
	}
	if s := Select(runs, []Rule{{Metric: "nope", Mode: "min"}}); s[0].Best != -1 || s[0].Candidates[0].Status != "no score" {
		t.Errorf("unknown metric: %+v", s[0])
	}
}

func TestRuleCheckAndString(t *testing.T) {
	for _, r := range []Rule{{Mode: "max"}, {Metric: "f1", Mode: "best"}, {Metric: "f1", Mode: "min", Last: -1}} {
		if r.Check() == nil {
			t.Errorf("%+v passed the check", r)
		}
	}
	if s := (Rule{Metric: "f1", Mode: "max", Last: 100}).String(); s != "max f1 (mean over the last 100 rounds)" {
		t.Errorf("%q", s)
	}
}

// MetricNames lists each metric once, in the order the runs first record
// it, and passes over a run not run yet.
func TestMetricNames(t *testing.T) {
	runs := []Run{
		{Result: &core.Result{Metrics: []string{"loss", "acc"}}},
		{},
		{Result: &core.Result{Metrics: []string{"acc", "gap", "loss"}}},
	}
	if got := MetricNames(runs); !slices.Equal(got, []string{"loss", "acc", "gap"}) {
		t.Errorf("MetricNames = %v, want [loss acc gap]", got)
	}
}
