package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// maxDefaultRounds bounds the rounds a table shows by default.
const maxDefaultRounds = 6

// evaluatedRounds lists, sorted, the rounds evaluated in any of the runs.
func evaluatedRounds(runs []experiment.Run) []int {
	var all []int
	for _, r := range runs {
		for _, rec := range r.Result.Records {
			all = append(all, rec.Round)
		}
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// defaultRounds picks at most maxDefaultRounds evenly spaced rounds among
// those evaluated in any run, always including the first and the last;
// round 0 alone when no run has a record (every run failed), so that
// each label still gets a row that says why.
func defaultRounds(runs []experiment.Run) []int {
	all := evaluatedRounds(runs)
	if len(all) == 0 {
		return []int{0}
	}
	if len(all) <= maxDefaultRounds {
		return all
	}
	out := make([]int, maxDefaultRounds)
	for i := range out {
		out[i] = all[(i*(len(all)-1)+(maxDefaultRounds-1)/2)/(maxDefaultRounds-1)]
	}
	return out
}

// checkRounds refuses a requested round that no run evaluated: a table
// never shows a value under a round it was not measured at. A round at or
// after a run's divergence is accepted (its cell reads "diverged@r"). The
// error names the evaluated rounds.
func checkRounds(runs []experiment.Run, rounds []int) error {
	evaluated := evaluatedRounds(runs)
	for _, round := range rounds {
		if slices.Contains(evaluated, round) || divergedBy(runs, round) {
			continue
		}
		if len(evaluated) == 0 {
			return fmt.Errorf("round %d: no run has a record (every run failed)", round)
		}
		if last := evaluated[len(evaluated)-1]; round > last {
			return fmt.Errorf("round %d is beyond the runs: their last evaluated round is %d", round, last)
		}
		return fmt.Errorf("round %d was not evaluated; the evaluated rounds are %s (set eval_every, or choose among them)", round, roundList(evaluated))
	}
	return nil
}

// divergedBy reports whether a run diverged at or before round.
func divergedBy(runs []experiment.Run, round int) bool {
	for _, r := range runs {
		if r.Result.Status == core.Diverged && r.Result.DivergedAt <= round {
			return true
		}
	}
	return false
}

// roundList renders rounds as "0, 30, 60", eliding the middle of a long
// list ("0, 1, 2, …, 98, 99, 100").
func roundList(rounds []int) string {
	text := func(rs []int) string {
		parts := make([]string, len(rs))
		for i, r := range rs {
			parts[i] = strconv.Itoa(r)
		}
		return strings.Join(parts, ", ")
	}
	if len(rounds) <= 12 {
		return text(rounds)
	}
	return text(rounds[:5]) + ", …, " + text(rounds[len(rounds)-5:])
}

// recordAt returns the record of exactly round, or nil when the run did
// not evaluate that round.
func recordAt(res *core.Result, round int) *core.Record {
	for i := range res.Records {
		if res.Records[i].Round == round {
			return &res.Records[i]
		}
	}
	return nil
}
