package plan

import (
	"fmt"
	"slices"
	"sync"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/registry"
)

// Rung is one rung of a successive-halving sweep: rung Index of Of
// (1-based), whose runs have Rounds rounds.
type Rung struct {
	Index, Of, Rounds int
}

// HalvingPlanner runs a sweep by successive halving (experiment.Halving),
// driven by its caller one rung at a time: Next plans the next rung's
// jobs, the caller executes them (as one call of a run directory, named
// after the rung) and hands their runs, in the jobs' order, to Report;
// when Next says there is no rung left, Result gives the last rung's runs
// and the selections. A survivor continues from its state at the end of
// its rung (experiment.Job.Continue: the rung's jobs keep their final
// state, KeepState), unless its algorithm depends on the horizon
// (core.HorizonDependent) or does not declare its state (core.Stateful):
// those are recomputed from round 0, and Notes says so. A run directory
// stores the states and hands those of a rung it finds stored to the
// jobs' KeepState (rundir), so a resumed sweep continues too. fedlab.sweep's
// halving key drives it; a Go program can too.
type HalvingPlanner struct {
	b      *Builder
	sw     Sweep
	h      experiment.Halving
	rungs  []int
	k      int                // rungs reported
	alive  [][]int            // per algorithm: indices of sw.Configs still running
	ran    [][]experiment.Run // the runs of each rung reported
	blocks []int              // jobs per algorithm of the rung planned
	jobs   []experiment.Job   // the jobs of the rung planned last
	open   bool               // a rung was planned and not reported
	notes  []string
	rounds int // rounds the planned jobs compute, continuations counted from their state

	mu     sync.Mutex
	states map[string]*experiment.State // final state of the last rung's runs, by job key
}

// Halving returns the planner of sw by successive halving h; the rung
// budgets are h.Rungs(sw.Settings.Rounds).
func (b *Builder) Halving(sw Sweep, h experiment.Halving) (*HalvingPlanner, error) {
	rungs, err := h.Rungs(sw.Settings.Rounds)
	if err != nil {
		return nil, err
	}
	p := &HalvingPlanner{b: b, sw: sw, h: h, rungs: rungs, alive: make([][]int, len(sw.Algorithms)),
		states: map[string]*experiment.State{}}
	for a := range p.alive {
		for i := range sw.Configs {
			p.alive[a] = append(p.alive[a], i)
		}
	}
	return p, nil
}

// Rungs returns the rounds of every rung.
func (p *HalvingPlanner) Rungs() []int { return p.rungs }

// Next plans the next rung and returns it with its jobs, or ok false when
// every rung was run (or no configuration is left). A survivor's job
// continues the state its run of the rung before kept.
func (p *HalvingPlanner) Next() (rung Rung, jobs []experiment.Job, ok bool, err error) {
	if p.open {
		return Rung{}, nil, false, fmt.Errorf("halving: rung %d was planned but its runs were not reported", p.k+1)
	}
	if p.k == len(p.rungs) || !slices.ContainsFunc(p.alive, func(a []int) bool { return len(a) > 0 }) {
		return Rung{}, nil, false, nil
	}
	if err := p.b.stopped(); err != nil {
		return Rung{}, nil, false, err
	}
	rounds := p.rungs[p.k]
	p.blocks = make([]int, len(p.sw.Algorithms))
	for a, algo := range p.sw.Algorithms {
		if len(p.alive[a]) == 0 {
			continue
		}
		sw := p.sw
		sw.Algorithms = []Algorithm{algo}
		sw.Configs = nil
		for _, i := range p.alive[a] {
			sw.Configs = append(sw.Configs, p.sw.Configs[i])
		}
		sw.Settings.Rounds = rounds
		js, err := p.b.Sweep(sw)
		if err != nil {
			return Rung{}, nil, false, fmt.Errorf("rung %d: %w", p.k+1, err)
		}
		jobs = append(jobs, js...)
		p.blocks[a] = len(js)
	}
	prev := p.takeStates()
	for i := range jobs {
		j := &jobs[i]
		if p.k+1 < len(p.rungs) && p.continues(j) {
			j.KeepState = p.keep
		}
		from := 0
		if st := prev[continuationKey(j)]; st != nil {
			j.Continue, from = st, st.Rounds
		}
		p.rounds += rounds - from
	}
	p.jobs, p.open = jobs, true
	return Rung{Index: p.k + 1, Of: len(p.rungs), Rounds: rounds}, jobs, true, nil
}

// continuationKey names a job's configuration across rungs: its label,
// configuration and seed.
func continuationKey(j *experiment.Job) string {
	return fmt.Sprintf("%s\x00%s\x00%d", j.Label, j.Config, j.Seed)
}

// keep is the rung's jobs' KeepState: it holds their final states until
// the next rung is planned.
func (p *HalvingPlanner) keep(st *experiment.State) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.states[st.Key] = st
}

// takeStates returns the states kept by the last rung's runs, by their
// continuation key, and forgets the rest.
func (p *HalvingPlanner) takeStates() map[string]*experiment.State {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]*experiment.State{}
	for _, j := range p.jobs {
		if st := p.states[j.Key]; st != nil {
			out[continuationKey(&j)] = st
		}
	}
	p.states = map[string]*experiment.State{}
	return out
}

// continues reports whether job j's run can be continued by the next rung
// (its algorithm declares its state and does not depend on the horizon),
// noting once per algorithm why not.
func (p *HalvingPlanner) continues(j *experiment.Job) bool {
	if j.Stages != nil {
		return false
	}
	alg, err := registry.BuildArgs[core.Algorithm](j.Args)
	if err != nil {
		return false // the run fails the same way and stops at this rung
	}
	why := ""
	if _, ok := alg.(core.Stateful); !ok {
		why = "does not declare its state (core.Stateful)"
	} else if core.DependsOnHorizon(alg) {
		why = "depends on the horizon (core.HorizonDependent)"
	}
	if why == "" {
		return true
	}
	note := fmt.Sprintf("%s %s: its survivors are recomputed from round 0 at each rung", j.Label, why)
	if !slices.Contains(p.notes, note) {
		p.notes = append(p.notes, note)
	}
	return false
}

// Report takes the runs of the rung Next planned, in its jobs' order:
// per algorithm, the best h.Keep(n) configurations by the sweep's rules
// survive to the next rung.
func (p *HalvingPlanner) Report(runs []experiment.Run) error {
	if !p.open {
		return fmt.Errorf("halving: no rung planned to report")
	}
	if len(runs) != len(p.jobs) {
		return fmt.Errorf("halving: rung %d planned %d jobs, %d runs reported", p.k+1, len(p.jobs), len(runs))
	}
	rules := p.sw.Select
	pos := 0
	for a := range p.sw.Algorithms {
		block := runs[pos : pos+p.blocks[a]]
		pos += p.blocks[a]
		if len(block) == 0 {
			continue
		}
		sel := experiment.Select(block, rules)[0] // candidates in the order of alive[a]
		ranked := sel.Ranked(rules)
		var next []int
		for _, i := range ranked[:min(p.h.Keep(len(sel.Candidates)), len(ranked))] {
			next = append(next, p.alive[a][i])
		}
		slices.Sort(next)
		p.alive[a] = next
	}
	p.ran, p.k = append(p.ran, runs), p.k+1
	if p.k == len(p.rungs) {
		p.states = map[string]*experiment.State{}
	}
	p.open = false
	return nil
}

// Notes says which algorithms' survivors are recomputed from round 0
// rather than continued, and why, in the order met.
func (p *HalvingPlanner) Notes() []string { return p.notes }

// Rounds returns the rounds the jobs planned so far compute: a rung's
// budget for a job from round 0, the budget less the rounds of its state
// for a continued one (jobs a run directory finds stored are counted
// too).
func (p *HalvingPlanner) Rounds() int { return p.rounds }

// Result returns the runs of the last rung reported and one selection per
// algorithm holding every configuration, scored at the rung it stopped at
// (experiment.SelectRungs).
func (p *HalvingPlanner) Result() ([]experiment.Run, []experiment.Selection) {
	if len(p.ran) == 0 {
		return nil, nil
	}
	return p.ran[len(p.ran)-1], experiment.SelectRungs(p.ran, p.rungs, p.sw.Select)
}
