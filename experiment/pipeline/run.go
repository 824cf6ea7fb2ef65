package pipeline

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/fedlab/fedlab/core"
)

// Run runs the pipeline with the given seed and run index (Settings.Seed
// and Settings.Run of every stage), workers client workers per stage
// (≤ 0: Settings.Workers) and an optional progress callback (rounds done
// over all stages, total rounds; nil: Settings.Progress). It returns one
// result: the records of all stages in order (a stage's first record, at
// its start round, is left out when its start point equals the previous
// stage's final model, so a round appears twice only where a restart
// changed the model), cumulative counts, the first metric "stage", and the
// last stage's final model. A stage that fails or diverges ends the
// pipeline with its status; its message names the stage.
//
// The metric columns are those of a plain run of the stages' algorithms:
// when an algorithm keeps one model per node (core.Nodes), every metric
// gets its _min and _max columns; a stage whose algorithm has a single
// model in such a pipeline leaves them NaN.
func (p *Pipeline) Run(seed, run uint64, workers int, progress func(done, total int)) *core.Result {
	return p.RunInterruptible(seed, run, workers, progress, nil)
}

// RunInterruptible is Run, stopped at a round boundary with status
// core.Interrupted when interrupt (if not nil) returns true (see
// core.Settings.Interrupt).
func (p *Pipeline) RunInterruptible(seed, run uint64, workers int, progress func(done, total int), interrupt func() bool) *core.Result {
	return p.RunCheckpointed(seed, run, workers, progress, interrupt, nil)
}

// RunCheckpointed is RunInterruptible, checkpointed and resumed as ck (if
// not nil) says. A checkpoint that does not fit the pipeline fails the run
// with an error starting "cannot resume from the checkpoint", as core.Run
// does.
func (p *Pipeline) RunCheckpointed(seed, run uint64, workers int, progress func(done, total int), interrupt func() bool, ck *Checkpointing) *core.Result {
	start := time.Now()
	res := &core.Result{Status: core.Done}
	defer func() { res.Elapsed = time.Since(start) }()
	algs, nodes, err := p.algorithms()
	if err != nil {
		res.Status, res.Err = core.Failed, err.Error()
		return res
	}
	res.Metrics = p.columns(nodes)
	if progress == nil {
		progress = p.spec.Settings.Progress
	}
	if workers <= 0 {
		workers = p.spec.Settings.Workers
	}
	// rs.divBase is the first stage's scale: every stage is tested against
	// the pipeline's start.
	rs := &runState{}
	if ck != nil && ck.Resume != nil {
		if rs, err = p.resume(ck, len(res.Metrics)); err != nil {
			res.Status, res.Err = core.Failed, "cannot resume from the checkpoint: "+err.Error()
			return res
		}
		res.Records = rs.records
	}
	total := p.Rounds()
	for i, st := range p.stages {
		if i < rs.stage {
			continue
		}
		round := p.spec.Settings.RoundOffset + rs.done
		s := p.spec.Settings
		s.Seed, s.Run, s.Workers = seed, run, workers
		if interrupt != nil {
			s.Interrupt = interrupt
		}
		s.Rounds, s.RoundOffset, s.Carry, s.DivergenceBase = st.Rounds, round, rs.carry, rs.divBase
		if st.LocalSteps > 0 {
			s.LocalSteps, s.LocalEpochs = st.LocalSteps, 0
		}
		if i > 0 {
			s.W0 = p.restartPoint(st, rs.w0, rs.prev, rs.prevAvg)
		}
		// The start is evaluated unless it is the previous stage's final
		// model (no new information).
		s.EvalRounds = p.grid(round, round+st.Rounds, i == 0 || !slices.Equal(s.W0, rs.prev))
		s.Progress = nil
		if progress != nil {
			done := rs.done
			s.Progress = func(d, _ int) { progress(done+d, total) }
		}
		if ck != nil {
			s.AlgorithmName, s.CheckpointKey = st.name, stageKey(ck.Key, i)
			s.Checkpoint = stageHook(ck, rs)
			s.Resume, rs.inner = rs.inner, nil
		}
		_, ownAverage := core.As[Averager](algs[i])
		w := &wrapped{Algorithm: algs[i], name: st.name, stage: i, average: p.averages[i] && !ownAverage}
		r := core.Run(st.problem, w, s, p.spec.Metrics)
		if i == 0 { // the first stage starts from the pipeline's initial model
			res.Unmoved = r.Unmoved
		}
		if i == 0 && r.Status != core.Failed {
			rs.w0 = w.w0
			if len(p.stages) > 1 && !math.IsInf(s.Divergence, 1) {
				rs.divBase = core.DivergenceScale(st.problem, rs.w0)
			}
		}
		_, stageNodes := core.As[core.Nodes](algs[i])
		for _, rec := range r.Records {
			rec.Values = stageValues(i+1, rec.Values, nodes && !stageNodes)
			res.Records = append(res.Records, rec)
		}
		res.Model = r.Model
		if r.Status != core.Done {
			res.Status, res.DivergedAt = r.Status, r.DivergedAt
			res.Err = fmt.Sprintf("stage %d: %s", i+1, r.Err)
			if s.Resume != nil && strings.HasPrefix(r.Err, "cannot resume from the checkpoint") {
				res.Err = fmt.Sprintf("cannot resume from the checkpoint: stage %d: %s", i+1, strings.TrimPrefix(r.Err, "cannot resume from the checkpoint: "))
			}
			return res
		}
		if n := len(r.Records); n > 0 {
			last := r.Records[n-1]
			rs.carry = core.Counts{Up: last.Up, Down: last.Down, CommRounds: last.CommRounds, Samples: last.Samples}
		}
		rs.prev = r.Model
		rs.prevAvg = nil
		if i+1 < len(p.stages) && p.stages[i+1].restart == Average {
			rs.prevAvg = w.averageOf()
		}
		rs.done += st.Rounds
		rs.stage = i + 1
		rs.records = res.Records
	}
	return res
}

// stageValues prepends the stage number to a record's values; with
// padNodes (a single-model stage in a pipeline with per-node columns),
// every value is followed by NaN _min and _max columns.
func stageValues(stage int, vals []float64, padNodes bool) []float64 {
	out := []float64{float64(stage)}
	for _, v := range vals {
		out = append(out, v)
		if padNodes {
			out = append(out, math.NaN(), math.NaN())
		}
	}
	return out
}

// grid lists the rounds evaluated in a stage from start to end: every
// EvalEvery rounds from the pipeline's first round (none if EvalEvery is
// 0), the stage's last round and, if first, its first round.
func (p *Pipeline) grid(start, end int, first bool) []int {
	base, every := p.spec.Settings.RoundOffset, p.spec.Settings.EvalEvery
	rounds := []int{}
	for r := start; r <= end; r++ {
		if (r == start && first) || (r > start && (r == end || (every > 0 && (r-base)%every == 0))) {
			rounds = append(rounds, r)
		}
	}
	return rounds
}
