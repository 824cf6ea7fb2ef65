package core

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Member is one run of a cohort: an algorithm and its settings.
type Member struct {
	Alg      Algorithm
	Settings Settings
}

// RunCohort executes runs on the same problem in lockstep and returns, for
// each, what Run would return for it alone, bit for bit: every run keeps its
// own engine, state and random streams, and only the order of the work
// changes. Round t of every run is computed before round t+1 of any, and
// the client updates of a round are grouped by client, so a client's data
// is read from memory once for all the runs that sampled it (runs with the
// same seed sample the same clients); the training loss of an evaluated
// round is measured the same way, client by client for all runs. This pays
// where reading the data costs more than the arithmetic (linear models on
// large dense data); see docs/architecture.md, "Cohorts".
//
// The runs share one pool of client workers: the Workers of the first
// member's settings. A run that fails (a panic in one of its components),
// diverges or is interrupted ends alone; the others go on. Each run's
// Elapsed is its share of the cohort's wall-clock time, in proportion to
// the time spent on its own steps, so that the Elapsed of all members add
// up to the cohort's time; the member that reads a client's data first
// (and pays for the cache misses) rotates from round to round.
//
// A member whose algorithm is Solitary runs alone (Run, with the cohort's
// workers) before the others, and its result has Cohort 0.
func RunCohort(p *Problem, members []Member, metrics []Metric) []*Result {
	workers := 1
	if len(members) > 0 {
		workers = max(members[0].Settings.Workers, 1)
	}
	results := make([]*Result, len(members))
	var together []Member
	var at []int
	for k, m := range members {
		if _, ok := As[Solitary](m.Alg); ok {
			s := m.Settings
			s.Workers = workers
			results[k] = Run(p, m.Alg, s, metrics)
			continue
		}
		together, at = append(together, m), append(at, k)
	}
	for n, r := range runCohort(p, together, metrics, workers) {
		results[at[n]] = r
	}
	return results
}

// runCohort is RunCohort for members that are not Solitary, with the
// given number of client workers.
func runCohort(p *Problem, members []Member, metrics []Metric, workers int) []*Result {
	start := time.Now()
	c := &cohort{p: p, workers: workers}
	for range c.workers {
		c.scratch = append(c.scratch, NewScratch(p))
		c.evals = append(c.evals, p.Loss.NewEvaluator(p.Layout))
	}
	results := make([]*Result, len(members))
	for k := range members {
		c.checkpoints = c.checkpoints || members[k].Settings.Checkpoint != nil
		m := &runner{res: newResult(members[k].Alg, metrics)}
		results[k] = m.res
		c.all = append(c.all, m)
	}
	// Each member's engine and its round 0, one member per worker.
	c.parallel(len(members), func(k, wk int) {
		m := c.all[k]
		s := members[k].Settings
		s.Workers = c.workers
		m.step(func() bool {
			if err := s.Check(); err != nil {
				m.res.Status, m.res.Err = Failed, err.Error()
				return true
			}
			e, err := newEngine(p, members[k].Alg, &s, metrics, m.res)
			if err != nil {
				m.res.Status, m.res.Err = Failed, err.Error()
				return true
			}
			e.scratch = c.scratch // a worker updates one client at a time, whichever member's
			e.evalEv = c.evals[wk]
			m.e = e
			if !e.resumed && e.begin() {
				e.keepModel()
				return true
			}
			return false
		})
	})
	for _, m := range c.all {
		if !m.ended {
			c.active = append(c.active, m)
		}
	}
	for t := 0; len(c.active) > 0; t++ {
		c.round(t)
	}
	c.apportion(time.Since(start))
	for _, r := range results {
		r.Cohort = len(members)
	}
	return results
}

// newResult returns a result with the metric columns of alg's records.
func newResult(alg Algorithm, metrics []Metric) *Result {
	res := &Result{Status: Done}
	_, nodes := As[Nodes](alg)
	for _, m := range metrics {
		res.Metrics = append(res.Metrics, m.Name())
		if nodes {
			res.Metrics = append(res.Metrics, m.Name()+"_min", m.Name()+"_max")
		}
	}
	return res
}

// cohort is the state of RunCohort. Its members share one scratch and one
// evaluator per client worker: scratch contents last for one client update
// (see Client.Vec), so the members need no copies of their own, which for a
// neural model's buffers would multiply the memory by the cohort's size.
type cohort struct {
	p       *Problem
	workers int
	scratch []*Scratch  // per worker, for the client updates
	evals   []Evaluator // per worker, for the training losses
	all     []*runner   // every member, in order
	active  []*runner   // members that have not ended
	// checkpoints: some member takes checkpoints (Settings.Checkpoint),
	// so the rounds end with a phase that offers them
	checkpoints bool
}

// runner is one member of a cohort.
type runner struct {
	e     *engine
	res   *Result
	ended bool
	busy  time.Duration // time spent on its own steps (see apportion)
	mu    sync.Mutex    // guards busy and failure during a parallel phase
	// failure is the first panic of one of its client updates in the
	// current round.
	failure any
}

// step runs f, one sequential step of the member, timed; true from f, or a
// panic (the run failed, as in Run), ends the member.
func (m *runner) step(f func() bool) {
	begin := time.Now()
	defer func() {
		if r := recover(); r != nil {
			m.res.Status, m.res.Err, m.res.Model = Failed, fmt.Sprint(r), nil
			m.ended = true
		}
		m.busy += time.Since(begin)
	}()
	if f() {
		m.ended = true
	}
}

// stepKeeping is step for the steps after which a run that ended keeps
// its model (it diverged or was interrupted in an evaluation), as in Run.
func (m *runner) stepKeeping(f func() bool) {
	m.step(func() bool {
		if f() {
			m.e.keepModel()
			return true
		}
		return false
	})
}

// work is the part of a parallel phase that belongs to one client: an
// item per member that uses the client's data, with the member's slot (its
// index of the client among the round's sampled ones, or of the member
// among those evaluated).
type work struct {
	client int
	items  []item
}

// item is one member's share of a work: the member and its slot.
type item struct {
	m    *runner
	slot int
}

// balance orders works for the workers: split, the largest first, until
// there are at least two per worker or each holds one item (a round that
// samples fewer clients than there are workers still keeps them all busy),
// then the largest first, so that the workers finish together.
func balance(works []*work, workers int) []*work {
	bySize := func(a, b *work) int {
		return cmp.Or(cmp.Compare(len(b.items), len(a.items)), cmp.Compare(a.client, b.client))
	}
	slices.SortStableFunc(works, bySize)
	for len(works) < 2*workers && len(works) > 0 && len(works[0].items) > 1 {
		w := works[0]
		half := len(w.items) / 2
		works = append(works[1:], &work{client: w.client, items: w.items[:half]}, &work{client: w.client, items: w.items[half:]})
		slices.SortStableFunc(works, bySize)
	}
	return works
}

// run does the work's items in turn, rotating who begins with offset (the
// one that reads the client's data first and pays for the cache misses).
func (w *work) run(offset int, do func(it item)) {
	n := len(w.items)
	for q := range n {
		do(w.items[(q+offset)%n])
	}
}

// round advances every active member by its round t (t after the rounds
// it resumed from, see engine.start). Every phase runs on the
// client workers: the members' own steps (each member on one worker), then
// the client updates grouped by client, the server steps, the training
// losses of the members that evaluate, and the evaluations.
func (c *cohort) round(t int) {
	for _, m := range c.active {
		if m.e.start+t >= m.e.s.Rounds {
			m.step(func() bool { m.e.keepModel(); return true })
		}
	}
	c.each(func(m *runner, _ int) { m.step(func() bool { return m.e.startRound(m.e.start + t) }) })
	var works []*work
	byClient := map[int]*work{}
	for _, m := range c.active {
		for i, id := range m.e.round.Sampled {
			w := byClient[id]
			if w == nil {
				w = &work{client: id}
				byClient[id] = w
				works = append(works, w)
			}
			w.items = append(w.items, item{m, i})
		}
	}
	works = balance(works, c.workers)
	c.parallel(len(works), func(j, wk int) {
		works[j].run(t+works[j].client, func(it item) {
			it.m.timed(func() { it.m.e.updateClient(it.slot, wk) })
		})
	})
	c.each(func(m *runner, _ int) {
		if m.failure != nil {
			m.res.Status, m.res.Err, m.res.Model = Failed, fmt.Sprint(m.failure), nil
			m.ended = true
			return
		}
		m.stepKeeping(func() bool { return m.e.serverStep(m.e.start + t) })
	})
	var evaluating []*runner
	for _, m := range c.active {
		if !m.ended && m.e.evalAt[m.e.start+t+1] && m.e.tracking() && m.e.nodes == nil {
			evaluating = append(evaluating, m)
		}
	}
	c.trainLosses(evaluating)
	c.each(func(m *runner, wk int) {
		m.e.evalEv = c.evals[wk] // the evaluations use the worker's evaluator
		m.stepKeeping(func() bool { return m.e.endRound(m.e.start + t) })
	})
	if c.checkpoints {
		c.each(func(m *runner, _ int) { m.step(func() bool { return m.e.checkpoint(m.e.start + t) }) })
	}
}

// each calls f for every active member that has not ended, with the
// worker that runs it, then drops the members that have ended from the
// active ones.
func (c *cohort) each(f func(m *runner, wk int)) {
	live := c.active[:0]
	for _, m := range c.active {
		if !m.ended {
			live = append(live, m)
		}
	}
	c.active = live
	c.parallel(len(live), func(k, wk int) { f(live[k], wk) })
	live = c.active[:0]
	for _, m := range c.active {
		if !m.ended {
			live = append(live, m)
		}
	}
	c.active = live
}

// timed runs f, a part of a parallel phase that belongs to m: a panic is
// kept as m's failure.
func (m *runner) timed(f func()) {
	begin := time.Now()
	defer func() {
		r := recover()
		m.mu.Lock()
		if r != nil && m.failure == nil {
			m.failure = r
		}
		m.busy += time.Since(begin)
		m.mu.Unlock()
	}()
	f()
}

// parallel calls f(j, worker) for j in [0, n) on the cohort's client
// workers (forEach) and waits for them.
func (c *cohort) parallel(n int, f func(j, wk int)) { forEach(c.workers, n, f) }

// trainLosses measures the training loss of the members about to evaluate,
// client by client for all of them, and hands each its value (see
// engine.evaluate): the per-client losses are the evaluator's, and they are
// summed in client order with the client weights, exactly as
// Problem.smooth sums them. A member whose loss is not measured here (the
// run is being interrupted) measures it itself.
func (c *cohort) trainLosses(ms []*runner) {
	if len(ms) == 0 {
		return
	}
	parts := c.p.Data.Train
	losses := make([][]float64, len(ms))
	for k := range ms {
		losses[k] = make([]float64, len(parts))
	}
	var works []*work
	for client, d := range parts {
		if d.N == 0 {
			continue
		}
		w := &work{client: client}
		for k, m := range ms {
			w.items = append(w.items, item{m, k})
		}
		works = append(works, w)
	}
	works = balance(works, c.workers)
	c.parallel(len(works), func(j, wk int) {
		w := works[j]
		d := parts[w.client]
		w.run(w.client, func(it item) {
			if stop := it.m.e.evalInterrupt(); stop != nil && stop() {
				return
			}
			it.m.timed(func() { losses[it.slot][w.client] = c.evals[wk].Eval(it.m.e.model, d, nil, nil) })
		})
	})
	weights := c.p.ClientWeights()
	for k, m := range ms {
		if m.failure != nil {
			m.res.Status, m.res.Err, m.res.Model = Failed, fmt.Sprint(m.failure), nil
			m.ended = true
			continue
		}
		if stop := m.e.evalInterrupt(); stop != nil && stop() {
			continue
		}
		v := sumWeighted(weights, losses[k], parts)
		m.e.trainLoss = &v
	}
}

// apportion sets each member's Elapsed to its share of the cohort's wall
// time wall, in proportion to its busy time.
func (c *cohort) apportion(wall time.Duration) {
	var total time.Duration
	for _, m := range c.all {
		total += m.busy
	}
	for _, m := range c.all {
		if total > 0 {
			m.res.Elapsed = time.Duration(float64(wall) * float64(m.busy) / float64(total))
		}
	}
}
