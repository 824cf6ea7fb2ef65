// Package claims evaluates a paper's claims against the records of runs:
// a threshold at or from a round, an ordering of algorithms, a rate of
// convergence, a value within a tolerance of another, or a general check.
// Evaluate is a pure function of a claim and runs; its verdict is Holds,
// Fails or NotEvaluated, with the numbers that decided it (docs/lua-api.md,
// "Claims").
package claims

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// Verdict is the outcome of a claim.
type Verdict string

// Verdicts.
const (
	Holds        Verdict = "holds"
	Fails        Verdict = "fails"
	NotEvaluated Verdict = "not evaluated"
)

// Kind is what a claim checks.
type Kind string

// Kinds of claim.
const (
	Threshold Kind = "threshold" // a metric of one algorithm above or below a value, at or from a round
	Order     Kind = "order"     // algorithms ordered by a metric, at or from a round
	Rate      Kind = "rate"      // the slope of log(metric) against the round, within bounds
	Within    Kind = "within"    // a metric at a round within a tolerance of a value or of another run's
	General   Kind = "check"     // a function of the runs
)

// Seeds says how the seeds of an algorithm combine.
type Seeds string

// Seed combinations.
const (
	EverySeed Seeds = "every"     // the claim holds for each seed (an ordering: seed by seed)
	MeanSeeds Seeds = "mean"      // the claim holds for the mean over seeds
	Separated Seeds = "separated" // it holds with the mean ± sample standard deviation on the unfavourable side
)

// SeedChoices are the valid Seeds, for messages.
var SeedChoices = []string{string(EverySeed), string(MeanSeeds), string(Separated)}

// Run is what a claim reads of one run.
type Run struct {
	Label  string
	Seed   uint64
	Result *core.Result
}

// Rounds are the rounds a claim is about: one round (At), or the
// evaluated rounds from From to To (To < 0: the last).
type Rounds struct {
	At       int // ≥ 0: this round only
	From, To int // with At < 0: the rounds in [From, To]
}

// AtRound is the single round r.
func AtRound(r int) Rounds { return Rounds{At: r, From: -1, To: -1} }

// FromRound is the rounds from r to the last.
func FromRound(r int) Rounds { return Rounds{At: -1, From: r, To: -1} }

// String says which rounds, e.g. "at round 500", "from round 30 on".
func (r Rounds) String() string {
	switch {
	case r.At >= 0:
		return fmt.Sprintf("at round %d", r.At)
	case r.To >= 0:
		return fmt.Sprintf("in rounds %d–%d", r.From, r.To)
	}
	return fmt.Sprintf("from round %d on", r.From)
}

// Bound is an interval: Min ≤ x ≤ Max, either side open when NaN.
type Bound struct{ Min, Max float64 }

// Unbounded is the bound with neither side.
var Unbounded = Bound{math.NaN(), math.NaN()}

// holds reports whether x lies in b (NaN never does).
func (b Bound) holds(x float64) bool {
	return !math.IsNaN(x) && (math.IsNaN(b.Min) || x >= b.Min) && (math.IsNaN(b.Max) || x <= b.Max)
}

// String renders b, e.g. "≥ 0.99", "≤ -0.01", "in [0.1, 0.2]".
func (b Bound) String() string {
	switch {
	case !math.IsNaN(b.Min) && !math.IsNaN(b.Max):
		return fmt.Sprintf("in [%s, %s]", num(b.Min), num(b.Max))
	case !math.IsNaN(b.Min):
		return "≥ " + num(b.Min)
	case !math.IsNaN(b.Max):
		return "≤ " + num(b.Max)
	}
	return "any value"
}

// Ref is a metric of a labelled run at a round (Within's other value).
type Ref struct {
	Label, Metric string
	At            int
}

// Claim is a claim of a paper about runs.
type Claim struct {
	Text   string // the paper's words
	Source string // where the paper says it, e.g. "FCO Fig. 3"
	Where  string // where the script declares it, e.g. "fco_lasso.lua:60"
	Kind   Kind
	Seeds  Seeds
	Metric string
	Rounds Rounds
	// Label is the algorithm (run label) of Threshold, Rate and Within.
	Label string
	// Bound is Threshold's bound on the metric and Rate's on the slope.
	Bound Bound
	// Groups are Order's labels, best first: a group's labels each beat
	// every label of the next group; Decreasing says the metric is larger
	// for the better (FedMiD densest: {{"FedMiD"}, {"FedDualAvg", …}}).
	Groups     [][]string
	Decreasing bool
	// Value or Other (when Other.Label != "") is Within's target, Tol its
	// tolerance, relative to |target| when Relative.
	Value    float64
	Other    Ref
	Tol      float64
	Relative bool
	// Check is the General claim: ok, and the numbers that decided it; an
	// error makes the claim not evaluated.
	Check func(runs []Run) (ok bool, measured string, err error)
}

// Result is a claim's verdict, with the measured numbers that decided it
// or why it was not evaluated.
type Result struct {
	Text     string  `json:"text"`
	Source   string  `json:"source,omitempty"`
	Where    string  `json:"where,omitempty"`
	Verdict  Verdict `json:"verdict"`
	Measured string  `json:"measured,omitempty"`
	Why      string  `json:"why,omitempty"` // why it was not evaluated
}

// notEvaluated is an error that makes a claim not evaluated.
type notEvaluated struct{ why string }

func (e notEvaluated) Error() string { return e.why }

func skip(format string, args ...any) error { return notEvaluated{fmt.Sprintf(format, args...)} }

// Evaluate judges c on runs.
func Evaluate(c Claim, runs []Run) Result {
	out := Result{Text: c.Text, Source: c.Source, Where: c.Where}
	if err := Check(c, runs); err != nil {
		out.Verdict, out.Why = NotEvaluated, err.Error()
		return out
	}
	var ok bool
	var measured string
	var err error
	switch c.Kind {
	case Threshold:
		ok, measured, err = threshold(c, runs)
	case Order:
		ok, measured, err = order(c, runs)
	case Rate:
		ok, measured, err = rate(c, runs)
	case Within:
		ok, measured, err = within(c, runs)
	case General:
		for _, r := range runs {
			if r.Result == nil || r.Result.Status == experiment.Planned {
				out.Verdict, out.Why = NotEvaluated, skip("%s was not computed (a dry run, or a run directory that does not store it)", name(r)).Error()
				return out
			}
		}
		ok, measured, err = c.Check(runs)
	default:
		err = fmt.Errorf("unknown kind %q", c.Kind)
	}
	switch {
	case err != nil:
		out.Verdict, out.Why = NotEvaluated, err.Error()
	case ok:
		out.Verdict = Holds
	default:
		out.Verdict = Fails
	}
	out.Measured = measured
	return out
}

// labels are the labels c reads.
func labels(c Claim) []string {
	var out []string
	switch c.Kind {
	case Threshold, Rate:
		out = append(out, c.Label)
	case Within:
		out = append(out, c.Label)
		if c.Other.Label != "" {
			out = append(out, c.Other.Label)
		}
	case Order:
		for _, g := range c.Groups {
			out = append(out, g...)
		}
	}
	return out
}

// Check checks that the runs c reads exist and record its metric at its
// rounds, without reading any value: what a dry run verifies. Its error
// says which label, metric or round is missing.
func Check(c Claim, runs []Run) error {
	if c.Kind == General {
		return nil
	}
	var known []string
	for _, r := range runs {
		if !slices.Contains(known, r.Label) {
			known = append(known, r.Label)
		}
	}
	for _, l := range labels(c) {
		if !slices.Contains(known, l) {
			return skip("no run labelled %q among the claim's runs (labels: %s)", l, quoteAll(known))
		}
		metric, rounds := c.Metric, c.Rounds
		if c.Kind == Within && l == c.Other.Label && c.Other.Label != c.Label {
			metric, rounds = c.Other.Metric, AtRound(c.Other.At)
		}
		for _, r := range runs {
			if r.Label == l {
				if err := recorded(r, metric, rounds); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// recorded checks that run r records metric at rounds.
func recorded(r Run, metric string, rounds Rounds) error {
	res := r.Result
	if res == nil {
		return skip("%s has no result", name(r))
	}
	if !slices.Contains(res.Metrics, metric) {
		return skip("%s does not record %q (it records %s)", name(r), metric, quoteAll(res.Metrics))
	}
	if res.Status == core.Diverged || res.Status == core.Failed {
		return nil // its records end early: Evaluate says why it is not evaluated
	}
	// done, or planned (a dry run's placeholder records the rounds it would evaluate)
	if len(rounded(res, rounds)) == 0 {
		return skip("%s has no record %s (it evaluated %s)", name(r), rounds, roundList(res))
	}
	return nil
}

// usable returns an error naming r if it did not complete.
func usable(r Run) error {
	if r.Result == nil {
		return skip("%s has no result", name(r))
	}
	switch res := r.Result; res.Status {
	case core.Done:
		return nil
	case core.Diverged:
		return skip("%s diverged at round %d", name(r), res.DivergedAt)
	case core.Failed:
		return skip("%s failed: %s", name(r), res.Err)
	case experiment.Planned:
		return skip("%s was not computed (a dry run, or a run directory that does not store it)", name(r))
	default:
		return skip("%s was not computed (%s)", name(r), res.Status)
	}
}

// rounded returns the indices of the records of res in rounds.
func rounded(res *core.Result, rounds Rounds) []int {
	var idx []int
	for i, rec := range res.Records {
		if rounds.At >= 0 && rec.Round == rounds.At ||
			rounds.At < 0 && rec.Round >= rounds.From && (rounds.To < 0 || rec.Round <= rounds.To) {
			idx = append(idx, i)
		}
	}
	return idx
}

// series is a metric of the runs of one label by round: one row per seed
// (in seed order), aligned on the rounds they all evaluated.
type series struct {
	label  string
	seeds  []uint64
	rounds []int
	values [][]float64 // values[seed][round index]
}

// collect returns the series of metric for label over rounds; every run
// must have completed and evaluated the same rounds.
func collect(runs []Run, label, metric string, rounds Rounds) (series, error) {
	s := series{label: label}
	for _, r := range runs {
		if r.Label != label {
			continue
		}
		if err := usable(r); err != nil {
			return s, err
		}
		col := slices.Index(r.Result.Metrics, metric)
		if col < 0 {
			return s, skip("%s does not record %q (it records %s)", name(r), metric, quoteAll(r.Result.Metrics))
		}
		var rs []int
		var vs []float64
		for _, i := range rounded(r.Result, rounds) {
			rec := r.Result.Records[i]
			rs = append(rs, rec.Round)
			vs = append(vs, rec.Values[col])
		}
		if len(rs) == 0 {
			return s, skip("%s has no record %s (it evaluated %s)", name(r), rounds, roundList(r.Result))
		}
		if s.rounds != nil && !slices.Equal(s.rounds, rs) {
			return s, skip("the seeds of %q evaluated different rounds %s", label, rounds)
		}
		for i, v := range vs {
			if math.IsNaN(v) {
				return s, skip("%s has %s = NaN at round %d", name(r), metric, rs[i])
			}
		}
		s.rounds = rs
		s.seeds = append(s.seeds, r.Seed)
		s.values = append(s.values, vs)
	}
	if len(s.seeds) == 0 {
		return s, skip("no run labelled %q", label)
	}
	// in seed order, so that orders compare seed by seed
	idx := make([]int, len(s.seeds))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(s.seeds[a], s.seeds[b]) })
	seeds, values := make([]uint64, len(idx)), make([][]float64, len(idx))
	for i, j := range idx {
		seeds[i], values[i] = s.seeds[j], s.values[j]
	}
	s.seeds, s.values = seeds, values
	return s, nil
}

// stat is the mean and sample standard deviation at round index i.
func (s series) stat(i int) (mean, std float64) {
	n := float64(len(s.values))
	for _, v := range s.values {
		mean += v[i]
	}
	mean /= n
	if len(s.values) < 2 {
		return mean, 0
	}
	for _, v := range s.values {
		std += (v[i] - mean) * (v[i] - mean)
	}
	return mean, math.Sqrt(std / (n - 1))
}

// name names a run in messages.
func name(r Run) string { return fmt.Sprintf("%q (seed %d)", r.Label, r.Seed) }

func quoteAll(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}

// roundList lists the rounds res evaluated, shortened.
func roundList(res *core.Result) string {
	if len(res.Records) == 0 {
		return "no round"
	}
	var rs []string
	for _, rec := range res.Records {
		rs = append(rs, fmt.Sprint(rec.Round))
	}
	if len(rs) > 6 {
		rs = append(rs[:3:3], "…", rs[len(rs)-2], rs[len(rs)-1])
	}
	return "rounds " + strings.Join(rs, ", ")
}

// num formats a measured number with 4 significant digits.
func num(x float64) string { return fmt.Sprintf("%.4g", x) }

// FromRuns are the runs of experiment results as claims read them.
func FromRuns(runs []experiment.Run) []Run {
	out := make([]Run, len(runs))
	for i, r := range runs {
		out[i] = Run{Label: r.Label, Seed: r.Seed, Result: r.Result}
	}
	return out
}
