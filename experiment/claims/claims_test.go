package claims

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// run builds a completed run recording metric m at the given rounds.
func run(label string, seed uint64, m string, rounds []int, values []float64) Run {
	res := &core.Result{Status: core.Done, Metrics: []string{m}}
	for i, r := range rounds {
		res.Records = append(res.Records, core.Record{Round: r, Values: []float64{values[i]}})
	}
	return Run{Label: label, Seed: seed, Result: res}
}

var rounds = []int{0, 10, 20, 30}

func threshold099(label string, seeds Seeds) Claim {
	return Claim{Text: "F1 ≥ 0.99 from round 20", Kind: Threshold, Seeds: seeds, Metric: "f1", Label: label,
		Rounds: FromRound(20), Bound: Bound{Min: 0.99, Max: math.NaN()}}
}

func verdict(t *testing.T, c Claim, runs []Run, want Verdict) Result {
	t.Helper()
	if err := Validate(c); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	r := Evaluate(c, runs)
	if r.Verdict != want {
		t.Fatalf("%s: verdict %q (measured %q, why %q), want %q", c.Text, r.Verdict, r.Measured, r.Why, want)
	}
	return r
}

func TestThreshold(t *testing.T) {
	a := run("A", 1, "f1", rounds, []float64{0, 0.5, 0.99, 1}) // reaches 0.99 exactly at round 20: the boundary holds
	b := run("A", 2, "f1", rounds, []float64{0, 0.5, 0.98, 1}) // seed 2 misses at round 20
	c := run("A", 3, "f1", rounds, []float64{0, 0.5, 1.00, 1}) // mean of seeds 2 and 3 at round 20: 0.99
	r := verdict(t, threshold099("A", EverySeed), []Run{a}, Holds)
	if want := `f1 of "A" from round 20 on (1 seed): lowest 0.99 (seed 1, round 20); claimed ≥ 0.99`; r.Measured != want {
		t.Errorf("measured %q, want %q", r.Measured, want)
	}
	r = verdict(t, threshold099("A", EverySeed), []Run{a, b}, Fails)
	if !strings.Contains(r.Measured, "lowest 0.98 (seed 2, round 20)") {
		t.Errorf("measured %q does not name the seed and round that failed", r.Measured)
	}
	verdict(t, threshold099("A", MeanSeeds), []Run{b, c}, Holds) // (0.98 + 1)/2 = 0.99
	// separated: mean − std = 0.99 − 0.01·√2 < 0.99
	r = verdict(t, threshold099("A", Separated), []Run{b, c}, Fails)
	if !strings.Contains(r.Measured, "lowest mean − std 0.9759") {
		t.Errorf("measured %q", r.Measured)
	}
	// at most, at one round
	atMost := Claim{Text: "density ≤ 0.5 at round 30", Kind: Threshold, Seeds: EverySeed, Metric: "f1", Label: "A",
		Rounds: AtRound(30), Bound: Bound{Min: math.NaN(), Max: 0.5}}
	verdict(t, atMost, []Run{a}, Fails)
	atMost.Bound.Max = 1
	verdict(t, atMost, []Run{a}, Holds)
}

func TestNotEvaluatedSaysWhy(t *testing.T) {
	ok := run("A", 1, "f1", rounds, []float64{0, 0.5, 0.99, 1})
	diverged := run("A", 2, "f1", rounds[:2], []float64{0, 0.5})
	diverged.Result.Status, diverged.Result.DivergedAt = core.Diverged, 17
	failed := run("A", 3, "f1", rounds, []float64{0, 0.5, 0.99, 1})
	failed.Result.Status, failed.Result.Err = core.Failed, "panic: boom"
	planned := run("A", 4, "f1", rounds, []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()})
	planned.Result.Status = "planned"
	for _, tc := range []struct {
		c    Claim
		runs []Run
		why  string
	}{
		{threshold099("A", EverySeed), []Run{ok, diverged}, `"A" (seed 2) diverged at round 17`},
		{threshold099("A", EverySeed), []Run{ok, failed}, `"A" (seed 3) failed: panic: boom`},
		{threshold099("A", EverySeed), []Run{planned}, `"A" (seed 4) was not computed (a dry run, or a run directory that does not store it)`},
		{threshold099("B", EverySeed), []Run{ok}, `no run labelled "B" among the claim's runs (labels: "A")`},
		{func() Claim { c := threshold099("A", EverySeed); c.Metric = "density"; return c }(), []Run{ok},
			`"A" (seed 1) does not record "density" (it records "f1")`},
		{func() Claim { c := threshold099("A", EverySeed); c.Rounds = FromRound(40); return c }(), []Run{ok},
			`"A" (seed 1) has no record from round 40 on (it evaluated rounds 0, 10, 20, 30)`},
		{func() Claim { c := threshold099("A", EverySeed); c.Rounds = AtRound(15); return c }(), []Run{ok},
			`"A" (seed 1) has no record at round 15 (it evaluated rounds 0, 10, 20, 30)`},
	} {
		r := verdict(t, tc.c, tc.runs, NotEvaluated)
		if r.Why != tc.why {
			t.Errorf("why %q, want %q", r.Why, tc.why)
		}
	}
	// a dry run's check (Check) accepts the planned run: its records are the rounds it would evaluate
	if err := Check(threshold099("A", EverySeed), []Run{planned}); err != nil {
		t.Errorf("Check of a placeholder: %v", err)
	}
}

func TestOrder(t *testing.T) {
	dense := func(label string, seed uint64, v float64) Run {
		return run(label, seed, "density", rounds, []float64{1, v, v, v})
	}
	c := Claim{Text: "FedMiD densest", Kind: Order, Seeds: EverySeed, Metric: "density", Rounds: FromRound(1),
		Groups: [][]string{{"FedMiD"}, {"FedDualAvg", "OSP"}}, Decreasing: true}
	runs := []Run{dense("FedMiD", 1, 0.5), dense("FedDualAvg", 1, 0.1), dense("OSP", 1, 0.4)}
	r := verdict(t, c, runs, Holds)
	if want := `density from round 1 on (1 seed): closest "FedMiD" 0.5 vs "OSP" 0.4 at seed 1, round 10, margin 0.1`; r.Measured != want {
		t.Errorf("measured %q, want %q", r.Measured, want)
	}
	runs[2] = dense("OSP", 1, 0.5) // a tie is not an order
	r = verdict(t, c, runs, Fails)
	if want := `density from round 1 on (1 seed): "FedMiD" 0.5 is not > "OSP" 0.5 at seed 1, round 10`; r.Measured != want {
		t.Errorf("measured %q, want %q", r.Measured, want)
	}
	// round 0 is common to all: throughout (from round 1) leaves it out, from 0 does not
	runs[2] = dense("OSP", 1, 0.4)
	c.Rounds = FromRound(0)
	verdict(t, c, runs, Fails)
	c.Rounds = FromRound(1)
	// seeds: seed 2 reverses the order, the mean keeps it
	two := []Run{dense("A", 1, 0.9), dense("B", 1, 0.1), dense("A", 2, 0.3), dense("B", 2, 0.4)}
	c2 := Claim{Text: "A above B", Kind: Order, Seeds: EverySeed, Metric: "density", Rounds: AtRound(30),
		Groups: [][]string{{"A"}, {"B"}}, Decreasing: true}
	verdict(t, c2, two, Fails)
	c2.Seeds = MeanSeeds // 0.6 > 0.25
	verdict(t, c2, two, Holds)
	c2.Seeds = Separated // 0.6 − 0.4243 < 0.25 + 0.2121
	verdict(t, c2, two, Fails)
	c2.Decreasing = false // B below A? B's mean 0.25 < A's 0.6: increasing means A < B: fails
	c2.Seeds = MeanSeeds
	verdict(t, c2, two, Fails)
	// seed by seed needs the same seeds
	c2.Decreasing, c2.Seeds = true, EverySeed
	r = verdict(t, c2, two[:3], NotEvaluated)
	if !strings.Contains(r.Why, "different seeds") {
		t.Errorf("why %q", r.Why)
	}
}

func TestRate(t *testing.T) {
	// gap = 2·0.9^t: log-linear with slope log 0.9 exactly
	rs := []int{0, 10, 20, 30, 40}
	geo := func(seed uint64, q float64) Run {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = 2 * math.Pow(q, float64(r))
		}
		return run("A", seed, "opt_gap", rs, v)
	}
	c := Claim{Text: "linear convergence", Kind: Rate, Seeds: EverySeed, Metric: "opt_gap", Label: "A", Rounds: FromRound(0),
		Bound: Bound{Min: math.NaN(), Max: math.Log(0.95)}}
	r := verdict(t, c, []Run{geo(1, 0.9)}, Holds)
	if want := `slope of log(opt_gap) of "A" from round 0 on (1 seed): -0.1054 (factor 0.9 per round); claimed ≤ -0.05129`; r.Measured != want {
		t.Errorf("measured %q, want %q", r.Measured, want)
	}
	c.Bound.Max = math.Log(0.85)
	verdict(t, c, []Run{geo(1, 0.9)}, Fails)
	// every seed: the slower seed decides; the mean of 0.9ᵗ and 0.96ᵗ is not log-linear but slower than 0.93
	c.Bound.Max = math.Log(0.93)
	verdict(t, c, []Run{geo(1, 0.9), geo(2, 0.96)}, Fails)
	c.Bound.Max = math.Log(0.97)
	verdict(t, c, []Run{geo(1, 0.9), geo(2, 0.96)}, Holds)
	// a gap of 0 has no logarithm
	zero := run("A", 1, "opt_gap", rs, []float64{1, 0.5, 0, 0, 0})
	r = verdict(t, c, []Run{zero}, NotEvaluated)
	if want := `opt_gap of "A" is 0 at round 20: log needs a positive value`; r.Why != want {
		t.Errorf("why %q, want %q", r.Why, want)
	}
}

func TestWithin(t *testing.T) {
	a := run("A", 1, "factor", rounds, []float64{1, 1, 1, 1.5})
	b := run("B", 1, "factor", rounds, []float64{1, 1, 1, 1.4})
	c := Claim{Text: "the factor equals the formula", Kind: Within, Seeds: MeanSeeds, Metric: "factor", Label: "A", Rounds: AtRound(30),
		Value: 1.25, Tol: 0.25}
	verdict(t, c, []Run{a}, Holds) // |1.5 − 1.25| = 0.25: the boundary holds
	c.Tol = 0.2499
	r := verdict(t, c, []Run{a}, Fails)
	if want := `factor of "A" at round 30 (1 seed): 1.5; target 1.25; |difference| 0.25; tolerance 0.2499`; r.Measured != want {
		t.Errorf("measured %q, want %q", r.Measured, want)
	}
	c.Other, c.Tol, c.Relative = Ref{Label: "B", Metric: "factor", At: 30}, 0.1, true // |1.5 − 1.4| ≤ 0.14
	verdict(t, c, []Run{a, b}, Holds)
	c.Tol = 0.05
	verdict(t, c, []Run{a, b}, Fails)
	c.Other.At = 5
	r = verdict(t, c, []Run{a, b}, NotEvaluated)
	if !strings.Contains(r.Why, `"B" (seed 1) has no record at round 5`) {
		t.Errorf("why %q", r.Why)
	}
}

func TestGeneralCheck(t *testing.T) {
	a := run("A", 1, "f1", rounds, []float64{0, 0.5, 0.99, 1})
	c := Claim{Text: "general", Kind: General, Check: func(runs []Run) (bool, string, error) {
		last := runs[0].Result.Records[len(runs[0].Result.Records)-1].Values[0]
		return last == 1, "last F1 1", nil
	}}
	verdict(t, c, []Run{a}, Holds)
	c.Check = func([]Run) (bool, string, error) { return false, "", errors.New("the check raised an error: boom") }
	r := verdict(t, c, []Run{a}, NotEvaluated)
	if r.Why != "the check raised an error: boom" {
		t.Errorf("why %q", r.Why)
	}
}

func TestValidateRefusesIncompleteClaims(t *testing.T) {
	for _, tc := range []struct {
		c    Claim
		want string
	}{
		{Claim{Kind: Threshold}, "a claim needs its text (the paper's words)"},
		{Claim{Text: "x", Kind: Threshold, Seeds: "all"}, `seeds "all": want one of "every", "mean", "separated"`},
		{Claim{Text: "x", Kind: Threshold, Seeds: EverySeed, Metric: "f1", Rounds: Rounds{-1, -1, -1}}, "a threshold claim needs its rounds: at, from or throughout"},
		{Claim{Text: "x", Kind: Rate, Seeds: EverySeed, Metric: "f1", Label: "A", Rounds: AtRound(3), Bound: Bound{math.NaN(), -1}}, "a rate is a slope over rounds: give from (and to), not at"},
		{Claim{Text: "x", Kind: Order, Seeds: EverySeed, Metric: "f1", Rounds: AtRound(3), Groups: [][]string{{"A"}}}, "an order claim needs at least two algorithms (or groups of them)"},
		{Claim{Text: "x", Kind: Within, Seeds: Separated, Metric: "f1", Label: "A", Rounds: AtRound(3)}, `seeds = "separated" applies to thresholds, orders and rates; a within claim takes "every" or "mean"`},
	} {
		if err := Validate(tc.c); err == nil || err.Error() != tc.want {
			t.Errorf("Validate: %v, want %q", err, tc.want)
		}
	}
}

func TestTableText(t *testing.T) {
	results := []Result{
		{Text: "FedDualAvg's F1 ≥ 0.99 from round 30 on", Source: "FCO Fig. 3", Where: "s.lua:7", Verdict: Holds,
			Measured: `f1 of "FedDualAvg" from round 30 on (mean of 3 seeds): lowest 0.9912 (round 40); claimed ≥ 0.99`},
		{Text: "FedMiD is densest", Verdict: Fails, Measured: `density at round 500 (1 seed): "FedMiD" 0.1 is not > "OSP" 0.2 at seed 1, round 500`},
		{Text: "a \x1b[31mred\x1b[0m claim", Verdict: NotEvaluated, Why: `"A" (seed 2) diverged at round 40`},
	}
	var b strings.Builder
	if err := Table(&b, "s.lua", results, 72); err != nil {
		t.Fatal(err)
	}
	want := `
Claims of s.lua: 1 holds, 1 fails, 1 not evaluated
1  holds          FCO Fig. 3: FedDualAvg's F1 ≥ 0.99 from round 30 on
                  (s.lua:7)
                  f1 of "FedDualAvg" from round 30 on (mean of 3 seeds):
                  lowest 0.9912 (round 40); claimed ≥ 0.99
2  fails          FedMiD is densest
                  density at round 500 (1 seed): "FedMiD" 0.1 is not >
                  "OSP" 0.2 at seed 1, round 500
3  not evaluated  "a \x1b[31mred\x1b[0m claim"
                  why: "A" (seed 2) diverged at round 40
`
	if got := b.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

// An order compares seed by seed whatever the order the runs come in, and
// a within claim against another metric of the same run that is not
// recorded is not evaluated (not a crash).
func TestSeedOrderAndMissingOtherMetric(t *testing.T) {
	a1 := run("A", 1, "m", rounds, []float64{1, 1, 1, 0.9})
	a2 := run("A", 2, "m", rounds, []float64{1, 1, 1, 0.1})
	b1 := run("B", 1, "m", rounds, []float64{1, 1, 1, 0.8})
	b2 := run("B", 2, "m", rounds, []float64{1, 1, 1, 0.0})
	c := Claim{Text: "A above B", Kind: Order, Seeds: EverySeed, Metric: "m", Rounds: AtRound(30), Groups: [][]string{{"A"}, {"B"}}, Decreasing: true}
	verdict(t, c, []Run{a2, a1, b1, b2}, Holds) // paired by seed: 0.9 > 0.8, 0.1 > 0
	w := Claim{Text: "m equals n", Kind: Within, Seeds: MeanSeeds, Metric: "m", Label: "A", Rounds: AtRound(30),
		Other: Ref{Label: "A", Metric: "n", At: 30}, Tol: 1}
	r := verdict(t, w, []Run{a1}, NotEvaluated)
	if want := `"A" (seed 1) does not record "n" (it records "m")`; r.Why != want {
		t.Errorf("why %q, want %q", r.Why, want)
	}
}
