package claims

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
)

// Validate checks that c is a complete claim of its kind (not the runs:
// see Check).
func Validate(c Claim) error {
	if c.Text == "" {
		return errors.New("a claim needs its text (the paper's words)")
	}
	if !slices.Contains(SeedChoices, string(c.Seeds)) && c.Kind != General {
		return fmt.Errorf("seeds %q: want one of %s", c.Seeds, quoteAll(SeedChoices))
	}
	if c.Kind != General && c.Metric == "" {
		return fmt.Errorf("a %s claim needs a metric", c.Kind)
	}
	if c.Kind != General && c.Kind != Within && c.Rounds.At < 0 && c.Rounds.From < 0 {
		return fmt.Errorf("a %s claim needs its rounds: at, from or throughout", c.Kind)
	}
	switch c.Kind {
	case Threshold, Rate:
		if c.Label == "" {
			return fmt.Errorf("a %s claim needs the label of its algorithm", c.Kind)
		}
		if math.IsNaN(c.Bound.Min) && math.IsNaN(c.Bound.Max) {
			return fmt.Errorf("a %s claim needs a bound (at_least, at_most)", c.Kind)
		}
		if c.Kind == Rate && c.Rounds.At >= 0 {
			return errors.New("a rate is a slope over rounds: give from (and to), not at")
		}
	case Order:
		if len(c.Groups) < 2 {
			return errors.New("an order claim needs at least two algorithms (or groups of them)")
		}
		for _, g := range c.Groups {
			if len(g) == 0 {
				return errors.New("an order claim has an empty group")
			}
		}
	case Within:
		if c.Label == "" || c.Rounds.At < 0 {
			return errors.New("a within claim needs the label of its algorithm and its round (at)")
		}
		if !(c.Tol >= 0) || math.IsInf(c.Tol, 0) {
			return fmt.Errorf("tolerance %g: want a finite number ≥ 0", c.Tol)
		}
		if c.Seeds == Separated {
			return errors.New(`seeds = "separated" applies to thresholds, orders and rates; a within claim takes "every" or "mean"`)
		}
	case General:
		if c.Check == nil {
			return errors.New("a claim needs a check")
		}
	default:
		return fmt.Errorf("unknown claim kind %q", c.Kind)
	}
	return nil
}

// point is one value judged against a bound: the seed it comes from (when
// judged seed by seed) and its round.
type point struct {
	lo, hi float64 // the values compared with the lower and the upper side
	seed   uint64
	bySeed bool
	round  int
}

// where says where a point was measured.
func (p point) where() string {
	if p.bySeed {
		return fmt.Sprintf("seed %d, round %d", p.seed, p.round)
	}
	return fmt.Sprintf("round %d", p.round)
}

// points are the values of s as c.Seeds combines them.
func points(s series, seeds Seeds) []point {
	var out []point
	for i, r := range s.rounds {
		switch seeds {
		case EverySeed:
			for k, v := range s.values {
				out = append(out, point{lo: v[i], hi: v[i], seed: s.seeds[k], bySeed: true, round: r})
			}
		default:
			m, sd := s.stat(i)
			if seeds == MeanSeeds {
				sd = 0
			}
			out = append(out, point{lo: m - sd, hi: m + sd, round: r})
		}
	}
	return out
}

// combined says how the seeds combine, for the measured text.
func combined(seeds Seeds, n int) string {
	switch {
	case n == 1:
		return "1 seed"
	case seeds == EverySeed:
		return fmt.Sprintf("each of %d seeds", n)
	case seeds == MeanSeeds:
		return fmt.Sprintf("mean of %d seeds", n)
	}
	return fmt.Sprintf("mean ± std of %d seeds", n)
}

// threshold: the metric of c.Label lies in c.Bound at every round of c.Rounds.
func threshold(c Claim, runs []Run) (bool, string, error) {
	s, err := collect(runs, c.Label, c.Metric, c.Rounds)
	if err != nil {
		return false, "", err
	}
	ps := points(s, c.Seeds)
	lo, hi := ps[0], ps[0]
	for _, p := range ps {
		if p.lo < lo.lo {
			lo = p
		}
		if p.hi > hi.hi {
			hi = p
		}
	}
	ok := c.Bound.holds(lo.lo) && c.Bound.holds(hi.hi)
	low, high := "lowest", "highest"
	if c.Seeds == Separated {
		low, high = "lowest mean − std", "highest mean + std"
	}
	var parts []string
	if !math.IsNaN(c.Bound.Min) {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", low, num(lo.lo), lo.where()))
	}
	if !math.IsNaN(c.Bound.Max) {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", high, num(hi.hi), hi.where()))
	}
	what := fmt.Sprintf("%s of %q %s (%s): ", c.Metric, c.Label, c.Rounds, combined(c.Seeds, len(s.seeds)))
	return ok, what + strings.Join(parts, ", ") + "; claimed " + c.Bound.String(), nil
}

// order: each label of a group beats each label of the next group, by
// c.Metric, at every round of c.Rounds.
func order(c Claim, runs []Run) (bool, string, error) {
	all := map[string]series{}
	for _, g := range c.Groups {
		for _, l := range g {
			s, err := collect(runs, l, c.Metric, c.Rounds)
			if err != nil {
				return false, "", err
			}
			all[l] = s
		}
	}
	// the tightest comparison: the smallest margin (better − worse, in
	// the claimed direction) over pairs, rounds and seeds
	type margin struct {
		gap          float64
		better, wrse string
		bv, wv       float64
		p            point
	}
	best := margin{gap: math.Inf(1)}
	for gi := 0; gi+1 < len(c.Groups); gi++ {
		for _, a := range c.Groups[gi] {
			for _, b := range c.Groups[gi+1] {
				sa, sb := all[a], all[b]
				if !slices.Equal(sa.rounds, sb.rounds) {
					return false, "", skip("%q and %q evaluated different rounds %s", a, b, c.Rounds)
				}
				pa, pb := points(sa, c.Seeds), points(sb, c.Seeds)
				if c.Seeds == EverySeed {
					if !slices.Equal(sa.seeds, sb.seeds) {
						return false, "", skip("%q and %q have different seeds (%v, %v): seed by seed needs the same", a, b, sa.seeds, sb.seeds)
					}
				}
				for i := range pa {
					av, bv := pa[i].lo, pb[i].hi // decreasing: a's lower side above b's upper side
					if !c.Decreasing {
						av, bv = pa[i].hi, pb[i].lo
					}
					gap := av - bv
					if !c.Decreasing {
						gap = bv - av
					}
					if gap < best.gap {
						best = margin{gap, a, b, av, bv, pa[i]}
					}
				}
			}
		}
	}
	rel := ">"
	if !c.Decreasing {
		rel = "<"
	}
	n := len(all[c.Groups[0][0]].seeds)
	side := ""
	if c.Seeds == Separated {
		side = " (mean ∓ std)"
	}
	measured := fmt.Sprintf("%s %s (%s): closest %q %s%s vs %q %s at %s, margin %s",
		c.Metric, c.Rounds, combined(c.Seeds, n), best.better, num(best.bv), side, best.wrse, num(best.wv), best.p.where(), num(best.gap))
	if best.gap <= 0 {
		measured = fmt.Sprintf("%s %s (%s): %q %s%s is not %s %q %s at %s",
			c.Metric, c.Rounds, combined(c.Seeds, n), best.better, num(best.bv), side, rel, best.wrse, num(best.wv), best.p.where())
	}
	return best.gap > 0, measured, nil
}

// rate: the least-squares slope of log(metric) against the round, over
// c.Rounds, lies in c.Bound.
func rate(c Claim, runs []Run) (bool, string, error) {
	s, err := collect(runs, c.Label, c.Metric, c.Rounds)
	if err != nil {
		return false, "", err
	}
	if len(s.rounds) < 2 {
		return false, "", skip("%q evaluated %d round %s: a slope needs two", c.Label, len(s.rounds), c.Rounds)
	}
	x := make([]float64, len(s.rounds))
	for i, r := range s.rounds {
		x[i] = float64(r)
	}
	slope := func(v []float64) (float64, error) {
		y := make([]float64, len(v))
		for i, f := range v {
			if !(f > 0) || math.IsInf(f, 0) {
				return 0, skip("%s of %q is %g at round %d: log needs a positive value", c.Metric, c.Label, f, s.rounds[i])
			}
			y[i] = math.Log(f)
		}
		_, b := stat.LinearRegression(x, y, nil, false)
		return b, nil
	}
	var slopes []float64
	for _, v := range s.values {
		b, err := slope(v)
		if err != nil {
			return false, "", err
		}
		slopes = append(slopes, b)
	}
	what := fmt.Sprintf("slope of log(%s) of %q %s (%s): ", c.Metric, c.Label, c.Rounds, combined(c.Seeds, len(s.seeds)))
	claimed := "; claimed " + c.Bound.String()
	switch c.Seeds {
	case EverySeed:
		lo, hi := slices.Min(slopes), slices.Max(slopes)
		ok := c.Bound.holds(lo) && c.Bound.holds(hi)
		if lo == hi {
			return ok, what + fmt.Sprintf("%s (factor %s per round)", num(lo), num(math.Exp(lo))) + claimed, nil
		}
		return ok, what + fmt.Sprintf("%s to %s (factor %s to %s per round)", num(lo), num(hi), num(math.Exp(lo)), num(math.Exp(hi))) + claimed, nil
	case MeanSeeds:
		mean := make([]float64, len(s.rounds))
		for i := range mean {
			mean[i], _ = s.stat(i)
		}
		b, err := slope(mean)
		if err != nil {
			return false, "", err
		}
		return c.Bound.holds(b), what + fmt.Sprintf("%s (factor %s per round)", num(b), num(math.Exp(b))) + claimed, nil
	}
	m, sd := stat.MeanStdDev(slopes, nil)
	if len(slopes) < 2 {
		sd = 0
	}
	ok := c.Bound.holds(m-sd) && c.Bound.holds(m+sd)
	return ok, what + fmt.Sprintf("%s ± %s", num(m), num(sd)) + claimed, nil
}

// within: the metric of c.Label at c.Rounds.At is within c.Tol of c.Value
// or of c.Other's value (its mean over seeds).
func within(c Claim, runs []Run) (bool, string, error) {
	s, err := collect(runs, c.Label, c.Metric, c.Rounds)
	if err != nil {
		return false, "", err
	}
	target, targetText := c.Value, num(c.Value)
	if c.Other.Label != "" {
		o, err := collect(runs, c.Other.Label, c.Other.Metric, AtRound(c.Other.At))
		if err != nil {
			return false, "", err
		}
		target, _ = o.stat(0)
		targetText = fmt.Sprintf("%s of %q at round %d = %s", c.Other.Metric, c.Other.Label, c.Other.At, num(target))
	}
	tol := c.Tol
	if c.Relative {
		tol *= math.Abs(target)
	}
	var vals []float64
	if c.Seeds == EverySeed {
		for _, v := range s.values {
			vals = append(vals, v[0])
		}
	} else {
		m, _ := s.stat(0)
		vals = []float64{m}
	}
	worst := 0.0
	for _, v := range vals {
		worst = max(worst, math.Abs(v-target))
	}
	value := num(vals[0])
	if len(vals) > 1 {
		value = fmt.Sprintf("%s to %s", num(slices.Min(vals)), num(slices.Max(vals)))
	}
	tolText := fmt.Sprintf("tolerance %s", num(c.Tol))
	if c.Relative {
		tolText = fmt.Sprintf("tolerance %s relative (%s)", num(c.Tol), num(tol))
	}
	measured := fmt.Sprintf("%s of %q %s (%s): %s; target %s; |difference| %.3g; %s",
		c.Metric, c.Label, c.Rounds, combined(c.Seeds, len(s.seeds)), value, targetText, worst, tolText)
	return worst <= tol, measured, nil
}
