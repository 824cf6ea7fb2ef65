package plan

import (
	"fmt"
	"slices"

	"github.com/fedlab/fedlab/experiment"
)

// RungExecutor executes the jobs of one rung (1-based, of rungs, with the
// given rounds) and returns their runs in the jobs' order, e.g. with
// rundir.Dir.Execute as one call named after the rung.
type RungExecutor func(rung, rungs, rounds int, jobs []experiment.Job) ([]experiment.Run, error)

// Halving runs sw by successive halving (experiment.Halving): each rung
// plans, for every algorithm, its surviving configurations with the rung's
// rounds, and exec runs them; then the best h.Keep(n) of each algorithm by
// sw.Select continue. It returns the runs of the last rung and one
// selection per algorithm holding every configuration, scored at the rung
// it stopped at (Candidate.Rung), its Best chosen among the last rung's.
// fedlab.sweep's halving key calls it; a Go program can too.
func (b *Builder) Halving(sw Sweep, h experiment.Halving, exec RungExecutor) ([]experiment.Run, []experiment.Selection, error) {
	rungs, err := h.Rungs(sw.Settings.Rounds)
	if err != nil {
		return nil, nil, err
	}
	rules := sw.Select
	alive := make([][]int, len(sw.Algorithms)) // per algorithm: indices of sw.Configs still running
	for a := range alive {
		for i := range sw.Configs {
			alive[a] = append(alive[a], i)
		}
	}
	final := make([]map[int]experiment.Candidate, len(sw.Algorithms)) // per algorithm: config index → its last candidate
	labels := make([]string, len(sw.Algorithms))
	for a := range final {
		final[a] = map[int]experiment.Candidate{}
	}
	var last []experiment.Run
	for k, rounds := range rungs {
		if err := b.stopped(); err != nil {
			return nil, nil, err
		}
		var jobs []experiment.Job
		blocks := make([]int, len(sw.Algorithms)) // jobs per algorithm
		for a, algo := range sw.Algorithms {
			if len(alive[a]) == 0 {
				continue
			}
			rung := sw
			rung.Algorithms = []Algorithm{algo}
			rung.Configs = nil
			for _, i := range alive[a] {
				rung.Configs = append(rung.Configs, sw.Configs[i])
			}
			rung.Settings.Rounds = rounds
			js, err := b.Sweep(rung)
			if err != nil {
				return nil, nil, fmt.Errorf("rung %d: %w", k+1, err)
			}
			jobs = append(jobs, js...)
			blocks[a] = len(js)
		}
		runs, err := exec(k+1, len(rungs), rounds, jobs)
		if err != nil {
			return nil, nil, err
		}
		last = runs
		pos := 0
		for a := range sw.Algorithms {
			block := runs[pos : pos+blocks[a]]
			pos += blocks[a]
			if len(block) == 0 {
				continue
			}
			sel := experiment.Select(block, rules)[0] // candidates in the order of alive[a]
			labels[a] = sel.Label
			for i, cand := range sel.Candidates {
				cand.Rung, cand.Rungs, cand.Rounds = k+1, len(rungs), rounds
				final[a][alive[a][i]] = cand
			}
			ranked := sel.Ranked(rules)
			var next []int
			for _, i := range ranked[:min(h.Keep(len(sel.Candidates)), len(ranked))] {
				next = append(next, alive[a][i])
			}
			slices.Sort(next)
			alive[a] = next
		}
	}
	var sels []experiment.Selection
	for a := range sw.Algorithms {
		if len(final[a]) == 0 {
			continue
		}
		sel := experiment.Selection{Label: labels[a], Best: -1}
		for i := range sw.Configs {
			cand, ok := final[a][i]
			if !ok {
				continue
			}
			if cand.Rung == len(rungs) && cand.Status == "" && (sel.Best < 0 || experiment.Beats(rules, cand.Scores, sel.Candidates[sel.Best].Scores)) {
				sel.Best = len(sel.Candidates)
			}
			sel.Candidates = append(sel.Candidates, cand)
		}
		sels = append(sels, sel)
	}
	return last, sels, nil
}
