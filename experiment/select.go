package experiment

import (
	"fmt"
	"github.com/fedlab/fedlab/internal/stats"
	"math"
	"slices"

	"github.com/fedlab/fedlab/core"
)

// Rule scores a run by one metric, to be maximized or minimized: the
// metric at the last evaluated round or, with Last > 0, its mean over the
// evaluated rounds r > R − Last, where R is the last evaluated round (e.g.
// the mean F1 over the last 100 rounds).
type Rule struct {
	Metric string `json:"metric"`
	Mode   string `json:"mode"` // "max" or "min"
	Last   int    `json:"last,omitempty"`
}

// Check validates the rule.
func (r Rule) Check() error {
	switch {
	case r.Metric == "":
		return fmt.Errorf("a selection rule needs a metric")
	case r.Mode != "max" && r.Mode != "min":
		return fmt.Errorf("selection mode must be \"max\" or \"min\", got %q", r.Mode)
	case r.Last < 0:
		return fmt.Errorf("selection window last must be ≥ 0, got %d", r.Last)
	}
	return nil
}

// String describes the rule, e.g. "max f1 (mean over the last 100 rounds)".
func (r Rule) String() string {
	if r.Last > 0 {
		return fmt.Sprintf("%s %s (mean over the last %d rounds)", r.Mode, r.Metric, r.Last)
	}
	return fmt.Sprintf("%s %s (at the last round)", r.Mode, r.Metric)
}

// Score returns the run's score under the rule; ok is false if the run did
// not finish (diverged, failed or not run), has no such metric or no
// record, or the score is NaN. The window mean sums the records in order.
// A dry run's placeholder (status Planned) that has the metric scores NaN
// with ok true: a sweep of placeholders selects its first configuration.
func (r Rule) Score(run Run) (score float64, ok bool) {
	res := run.Result
	if res != nil && res.Status == Planned {
		return math.NaN(), slices.Contains(res.Metrics, r.Metric)
	}
	if res == nil || res.Status != core.Done || len(res.Records) == 0 {
		return 0, false
	}
	col := -1
	for i, m := range res.Metrics {
		if m == r.Metric {
			col = i
			break
		}
	}
	if col < 0 {
		return 0, false
	}
	last := res.Records[len(res.Records)-1]
	if r.Last == 0 {
		v := last.Values[col]
		return v, !math.IsNaN(v)
	}
	sum, n := 0.0, 0
	for _, rec := range res.Records {
		if rec.Round > last.Round-r.Last {
			sum += rec.Values[col]
			n++
		}
	}
	v := sum / float64(n)
	return v, !math.IsNaN(v)
}

// better reports whether score a beats score b.
func (r Rule) better(a, b float64) bool {
	if r.Mode == "max" {
		return a > b
	}
	return a < b
}

// Candidate is one configuration of one algorithm in a sweep, with its runs
// (one per seed) and its scores.
type Candidate struct {
	Config Config
	Runs   []Run
	// Scores holds, per rule, the mean of the runs' scores over the seeds,
	// and Spread their sample standard deviation (0 with one seed); both
	// are meaningful only when Status is "".
	Scores []float64
	Spread []float64
	// Status is "" when every run finished with a score; otherwise why the
	// candidate cannot be selected: "diverged@r" (the earliest divergence),
	// "failed", "pending" (not run yet) or "no score".
	Status string
	// Rung, Rungs and Rounds say, in a successive-halving sweep (see
	// Halving), the rung the candidate stopped at (1-based), of how many,
	// and that rung's rounds; Rung is 0 in a full grid.
	Rung, Rungs, Rounds int
}

// Selection is the outcome of a sweep for one algorithm label.
type Selection struct {
	Label      string
	Candidates []Candidate // in the order of first appearance of each configuration
	Best       int         // index of the selected candidate; −1 if none can be selected
}

// Select groups the runs by label and configuration (in order of first
// appearance) and picks, per label, the candidate whose scores are best
// under rules[0], ties broken by rules[1], and so on; remaining ties go to
// the first candidate. Candidates that did not finish on every seed are not
// selected.
func Select(runs []Run, rules []Rule) []Selection {
	var out []Selection
	labels := map[string]int{}
	configs := map[string]map[string]int{}
	for _, run := range runs {
		li, ok := labels[run.Label]
		if !ok {
			li = len(out)
			labels[run.Label] = li
			configs[run.Label] = map[string]int{}
			out = append(out, Selection{Label: run.Label, Best: -1})
		}
		s := &out[li]
		key := run.Config.String()
		ci, ok := configs[run.Label][key]
		if !ok {
			ci = len(s.Candidates)
			configs[run.Label][key] = ci
			s.Candidates = append(s.Candidates, Candidate{Config: run.Config})
		}
		s.Candidates[ci].Runs = append(s.Candidates[ci].Runs, run)
	}
	for i := range out {
		s := &out[i]
		for j := range s.Candidates {
			c := &s.Candidates[j]
			c.score(rules)
			if c.Status == "" && (s.Best < 0 || beats(rules, c.Scores, s.Candidates[s.Best].Scores)) {
				s.Best = j
			}
		}
	}
	return out
}

// BestRuns returns the runs of the selected candidate of every selection
// that has one.
func BestRuns(sels []Selection) []Run {
	var runs []Run
	for _, s := range sels {
		if s.Best >= 0 {
			runs = append(runs, s.Candidates[s.Best].Runs...)
		}
	}
	return runs
}

// score fills Scores, Spread and Status.
func (c *Candidate) score(rules []Rule) {
	diverged, failed, pending := -1, false, false
	for _, run := range c.Runs {
		switch {
		case run.Result == nil:
			pending = true
		case run.Result.Status == core.Diverged:
			if diverged < 0 || run.Result.DivergedAt < diverged {
				diverged = run.Result.DivergedAt
			}
		case run.Result.Status == core.Failed:
			failed = true
		}
	}
	switch {
	case diverged >= 0:
		c.Status = fmt.Sprintf("diverged@%d", diverged)
		return
	case failed:
		c.Status = "failed"
		return
	case pending:
		c.Status = "pending"
		return
	}
	scores := make([]float64, len(c.Runs))
	for _, r := range rules {
		for i, run := range c.Runs {
			v, ok := r.Score(run)
			if !ok {
				c.Status = "no score"
				return
			}
			scores[i] = v
		}
		m, sd := stats.MeanStd(scores)
		c.Scores = append(c.Scores, m)
		c.Spread = append(c.Spread, sd)
	}
}

// beats compares score lists lexicographically under the rules.
// Beats reports whether scores a beat scores b under rules (ties go to
// the next rule; equal scores do not beat).
func Beats(rules []Rule, a, b []float64) bool { return beats(rules, a, b) }

func beats(rules []Rule, a, b []float64) bool {
	for i, r := range rules {
		switch {
		case r.better(a[i], b[i]):
			return true
		case r.better(b[i], a[i]):
			return false
		}
	}
	return false
}
