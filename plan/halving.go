package plan

import (
	"fmt"
	"slices"
	"sync"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/registry"
)

// RungExecutor executes the jobs of one rung of a halving sweep and
// returns their runs in the jobs' order. experiment.Rungs on a run
// directory runs each rung as one call of the directory, named after the
// rung and marked with it.
type RungExecutor interface {
	ExecuteRung(rung experiment.Rung, jobs []experiment.Job) ([]experiment.Run, error)
}

// Halved is the outcome of a halving sweep (Builder.Halve).
type Halved struct {
	Halving    experiment.Halving     // the halving run, its defaults taken (experiment.Halving.For)
	Budgets    []int                  // the rounds of every rung
	Rungs      []HalvedRung           // the rungs executed, in order
	Runs       []experiment.Run       // the runs of the last rung executed
	Selections []experiment.Selection // one per algorithm, every configuration scored at the rung it stopped at (experiment.SelectRungs)
	Notes      []string               // which algorithms' survivors are recomputed from round 0 rather than continued, and why
	Rounds     int                    // rounds the jobs compute, continuations counted from their state
}

// HalvedRung is a rung executed and its jobs.
type HalvedRung struct {
	Rung experiment.Rung
	Jobs []experiment.Job
}

// RungError is an error of a rung's execution (its RungExecutor's), as
// Halve returns it, to tell it from an error of planning; its message is
// the executor's.
type RungError struct {
	Rung experiment.Rung
	Err  error
}

func (e *RungError) Error() string { return e.Err.Error() }
func (e *RungError) Unwrap() error { return e.Err }

// Halve runs sw by successive halving h (its defaults taken for
// sw.Settings, experiment.Halving.For), the one entry point of a halving
// sweep for Lua scripts (fedlab.sweep's halving key) and Go plans alike:
// rung by rung, it plans the rung's jobs, has exec execute them, and keeps
// per algorithm the best h.Keep(n) configurations by the sweep's rules for
// the next rung. A survivor continues from its state at the end of its
// rung (experiment.Job.Continue: the rung's jobs keep their final state,
// KeepState), unless its algorithm depends on the horizon
// (core.HorizonDependent) or does not declare its state (core.Stateful):
// those are recomputed from round 0, and Notes says so. A run directory
// stores the states and hands those of a rung it finds stored to the
// jobs' KeepState (rundir), so a resumed sweep continues too. On an error
// the outcome holds the rungs executed before it; an error of exec comes
// as a *RungError.
func (b *Builder) Halve(sw Sweep, h experiment.Halving, exec RungExecutor) (*Halved, error) {
	h = h.For(sw.Settings)
	p, err := b.halving(sw, h)
	if err != nil {
		return nil, err
	}
	out := &Halved{Halving: h, Budgets: p.rungs}
	for {
		rung, jobs, ok, err := p.next()
		out.Notes, out.Rounds = p.notes, p.rounds
		if err != nil {
			return out, err
		}
		if !ok {
			break
		}
		runs, err := exec.ExecuteRung(rung, jobs)
		if err != nil {
			return out, &RungError{Rung: rung, Err: err}
		}
		out.Rungs = append(out.Rungs, HalvedRung{Rung: rung, Jobs: jobs})
		if err := p.report(runs); err != nil {
			return out, err
		}
	}
	out.Runs, out.Selections = p.result()
	return out, nil
}

// halvingPlanner runs a sweep by successive halving (experiment.Halving),
// driven one rung at a time (by Halve): next plans the next rung's jobs,
// the caller executes them and hands their runs, in the jobs' order, to
// report; when next says there is no rung left, result gives the last
// rung's runs and the selections.
type halvingPlanner struct {
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

// halving returns the planner of sw by successive halving h; the rung
// budgets are h.Rungs(sw.Settings.Rounds).
func (b *Builder) halving(sw Sweep, h experiment.Halving) (*halvingPlanner, error) {
	rungs, err := h.Rungs(sw.Settings.Rounds)
	if err != nil {
		return nil, err
	}
	p := &halvingPlanner{b: b, sw: sw, h: h, rungs: rungs, alive: make([][]int, len(sw.Algorithms)),
		states: map[string]*experiment.State{}}
	for a := range p.alive {
		for i := range sw.Configs {
			p.alive[a] = append(p.alive[a], i)
		}
	}
	return p, nil
}

// next plans the next rung and returns it with its jobs, or ok false when
// every rung was run (or no configuration is left). A survivor's job
// continues the state its run of the rung before kept.
func (p *halvingPlanner) next() (rung experiment.Rung, jobs []experiment.Job, ok bool, err error) {
	if p.open {
		return experiment.Rung{}, nil, false, fmt.Errorf("halving: rung %d was planned but its runs were not reported", p.k+1)
	}
	if p.k == len(p.rungs) || !slices.ContainsFunc(p.alive, func(a []int) bool { return len(a) > 0 }) {
		return experiment.Rung{}, nil, false, nil
	}
	if err := p.b.stopped(); err != nil {
		return experiment.Rung{}, nil, false, err
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
			return experiment.Rung{}, nil, false, fmt.Errorf("rung %d: %w", p.k+1, err)
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
	return experiment.Rung{Index: p.k + 1, Of: len(p.rungs), Rounds: rounds}, jobs, true, nil
}

// continuationKey names a job's configuration across rungs: its label,
// configuration and seed.
func continuationKey(j *experiment.Job) string {
	return fmt.Sprintf("%s\x00%s\x00%d", j.Label, j.Config, j.Seed)
}

// keep is the rung's jobs' KeepState: it holds their final states until
// the next rung is planned.
func (p *halvingPlanner) keep(st *experiment.State) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.states[st.Key] = st
}

// takeStates returns the states kept by the last rung's runs, by their
// continuation key, and forgets the rest.
func (p *halvingPlanner) takeStates() map[string]*experiment.State {
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
func (p *halvingPlanner) continues(j *experiment.Job) bool {
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

// report takes the runs of the rung next planned, in its jobs' order:
// per algorithm, the best h.Keep(n) configurations by the sweep's rules
// survive to the next rung.
func (p *halvingPlanner) report(runs []experiment.Run) error {
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

// result returns the runs of the last rung reported and one selection per
// algorithm holding every configuration, scored at the rung it stopped at
// (experiment.SelectRungs).
func (p *halvingPlanner) result() ([]experiment.Run, []experiment.Selection) {
	if len(p.ran) == 0 {
		return nil, nil
	}
	return p.ran[len(p.ran)-1], experiment.SelectRungs(p.ran, p.rungs, p.sw.Select)
}
