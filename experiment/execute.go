package experiment

import (
	"bytes"
	"context"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment/pipeline"
	"github.com/fedlab/fedlab/registry"
)

// Options control how jobs are executed.
type Options struct {
	// Jobs is the number of runs executed at once (the run-level pool);
	// ≤ 0 means 1.
	Jobs int
	// Workers is the number of client worker goroutines of each run; ≤ 0
	// means max(1, NumCPU / runs at once), so that the two pools together
	// do not oversubscribe the cores.
	Workers int
	// Progress reports the runs as they go; nil keeps quiet.
	Progress *Progress
	// Done, if set, is called on the calling goroutine each time a run
	// ends, in the order runs end, with the index of its job. If it returns
	// an error, no further run is started; the runs already running finish
	// (Done is still called for them) and Execute returns the first error.
	Done func(i int, r Run) error
	// Context, if set, interrupts the execution when it is done: no
	// further run starts, the running ones stop at their next round
	// boundary with status core.Interrupted (Done is still called for
	// them), and Execute returns context.Cause.
	Context context.Context
	// Cohorts lets runs execute together in lockstep (see Cohorts); the
	// zero value executes them one by one.
	Cohorts Cohorts
	// DryRun computes nothing: every job gets its placeholder result
	// (see Placeholder), reported to Done in order, and the first job
	// whose algorithm fails to build stops Execute with a *PlanError.
	DryRun bool
	// Checkpoints, if set, keeps the runs' checkpoints: a run resumes from
	// the one it returns, and saves one every CheckpointEvery (0: never
	// on time alone) and always at the round boundary where the Context's
	// end stops it (see Checkpoints).
	Checkpoints     Checkpoints
	CheckpointEvery time.Duration
	// KeepCheckpoints saves a checkpoint after a run's last round too
	// (its final state, which the caller keeps).
	KeepCheckpoints bool
}

// Checkpoints keeps the checkpoints of runs (core.Settings.Checkpoint and
// Resume), by job. Its methods are called from the goroutines that run
// the jobs, concurrently.
type Checkpoints interface {
	// Resume returns the checkpoint job j continues from, with the run's
	// time up to it (over the executions that ran it), or nil to start it
	// from round 0 (the implementation says why it does not use a
	// checkpoint it holds). An error fails the run without starting it:
	// the store keeps a checkpoint it cannot read now (one larger than the
	// memory ceiling, say) for a later execution.
	Resume(j *Job) (data []byte, elapsed time.Duration, err error)
	// Save stores data, the state of job j after done rounds, in place of
	// its previous checkpoint; elapsed is the run's time so far, over the
	// executions that ran it (its share, in a cohort). A run resumed from
	// a checkpoint ends with the time up to it added to its Elapsed.
	Save(j *Job, done int, elapsed time.Duration, data []byte) error
	// Refused reports that the checkpoint Resume returned for job j does
	// not resume it (why): the run starts again from round 0.
	Refused(j *Job, why string)
	// Unsupported reports that job j cannot be checkpointed (why): it
	// runs without, and starts again from round 0 if it is interrupted.
	Unsupported(j *Job, why string)
}

// Cohorts says which runs Execute runs together in lockstep
// (core.RunCohort): up to MaxCohort runs that share a problem, engine
// settings and metrics, when the problem's training data is at least
// MinData bytes and the runs' model-sized state (Job.StateBytes) adds up
// to at most MaxState. A cohort takes the slots and client workers of up
// to Options.Jobs runs. Records are the same either way; a cohort reads
// each client's data once for all its runs.
type Cohorts struct {
	MaxState uint64 // 0: no cohorts
	MinData  uint64
}

// MaxCohort is the most runs a cohort holds: an interruption (Ctrl-C,
// --timeout) stops a cohort's runs together, so a larger cohort would put
// more unfinished work at risk.
const MaxCohort = 16

// CohortMinData is the MinData fedlab run uses: training data smaller than
// this stays in the processor's cache, and a cohort would only add
// synchronization (scripts/liang_topology.lua, 10 MB of data, ran 11 %
// slower in cohorts).
const CohortMinData = 16 << 20

// Execute runs the jobs and returns their runs in the order of the jobs.
// Runs are started in that order, up to opts.Jobs at a time, a cohort of
// runs executed in lockstep (opts.Cohorts) counting as up to opts.Jobs
// runs; each run builds a fresh algorithm. A run whose algorithm fails to
// build, fails or diverges is recorded as such and the others still run.
// If opts.Done stops the execution, the runs never started have a nil
// Result.
//
// Results do not depend on opts.Jobs, opts.Workers or opts.Cohorts: every
// run uses its own random streams (Seed = the job's seed, Run = 0), the
// engine's results do not depend on its worker count, and a cohort's runs
// are each what they are alone (core.RunCohort).
func Execute(jobs []Job, opts Options) ([]Run, error) {
	if opts.DryRun {
		return planAll(jobs, opts.Done)
	}
	runs := make([]Run, len(jobs))
	if len(jobs) == 0 {
		return runs, nil
	}
	units := cohorts(jobs, opts.Cohorts)
	slots := min(max(opts.Jobs, 1), len(jobs))
	perSlot := opts.Workers
	if perSlot <= 0 {
		perSlot = max(1, runtime.NumCPU()/slots)
	}
	solveReferences(jobs, slots)
	prog := opts.Progress
	if prog != nil {
		planned := make([]int, len(jobs))
		for i := range jobs {
			planned[i] = jobs[i].Settings.Rounds
		}
		prog.begin(planned, true)
		defer prog.end()
	}
	type ended struct {
		i   int
		res *core.Result
	}
	out := make(chan ended)
	start := func(u []int, workers int) {
		go func() {
			if len(u) == 1 {
				out <- ended{u[0], execute(&opts, &jobs[u[0]], u[0], workers)}
				return
			}
			for k, res := range executeCohort(&opts, jobs, u, workers) {
				out <- ended{u[k], res}
			}
		}()
	}
	unitOf := make([]int, len(jobs)) // job → its unit
	left := make([]int, len(units))  // unit → its runs not ended
	for k, u := range units {
		for _, i := range u {
			unitOf[i] = k
		}
		left[k] = len(u)
	}
	next, busy, running := 0, 0, 0 // units started, slots in use, runs running
	var stop error
	var done <-chan struct{}
	if opts.Context != nil {
		done = opts.Context.Done()
	}
	need := func(u []int) int { return min(len(u), slots) } // a cohort takes up to all slots
	for {
		for next < len(units) && stop == nil && busy+need(units[next]) <= slots {
			u := units[next]
			busy += need(u)
			running += len(u)
			if prog != nil {
				for range u {
					prog.runStarted()
				}
			}
			start(u, need(u)*perSlot)
			next++
		}
		if running == 0 && (next == len(units) || stop != nil) {
			break
		}
		select {
		case <-done:
			if stop == nil {
				stop = context.Cause(opts.Context)
			}
			done = nil
		case e := <-out:
			running--
			runs[e.i] = jobs[e.i].Run(e.res)
			if prog != nil {
				prog.runEnded(e.i, string(e.res.Status), e.res.Unmoved > 0)
			}
			if opts.Done != nil {
				if err := opts.Done(e.i, runs[e.i]); err != nil && stop == nil {
					stop = err
				}
			}
			k := unitOf[e.i]
			left[k]--
			if left[k] == 0 {
				busy -= need(units[k])
			}
		}
	}
	return runs, stop
}

// cohorts groups the jobs into the units Execute starts, in the order of
// their first job: cohorts of compatible jobs (see cohortable) within the
// bounds of c, and every other job alone.
func cohorts(jobs []Job, c Cohorts) [][]int {
	var units [][]int
	// open is a cohort that may still grow: its unit and its members' state.
	type open struct {
		unit  int
		bytes uint64
	}
	var cohorts []open
	large := map[*core.Problem]bool{}
	for i := range jobs {
		j := &jobs[i]
		if c.MaxState == 0 || j.Stages != nil {
			units = append(units, []int{i})
			continue
		}
		if _, ok := large[j.Problem]; !ok {
			large[j.Problem] = dataBytes(j.Problem) >= c.MinData
		}
		b := j.StateBytes()
		if !large[j.Problem] || b > c.MaxState {
			units = append(units, []int{i})
			continue
		}
		k := slices.IndexFunc(cohorts, func(o open) bool {
			u := units[o.unit]
			return len(u) < MaxCohort && o.bytes+b <= c.MaxState && cohortable(&jobs[u[0]], j)
		})
		if k < 0 {
			cohorts = append(cohorts, open{unit: len(units)})
			units = append(units, nil)
			k = len(cohorts) - 1
		}
		units[cohorts[k].unit] = append(units[cohorts[k].unit], i)
		cohorts[k].bytes += b
	}
	return units
}

// dataBytes is the memory of p's training data, counting data that
// clients share (one design matrix for all, say) once.
func dataBytes(p *core.Problem) uint64 {
	seen := map[any]bool{}
	var total uint64
	for _, d := range p.Data.Train {
		switch {
		case d.Sparse != nil && len(d.Sparse.Val) > 0:
			if !seen[&d.Sparse.Val[0]] {
				seen[&d.Sparse.Val[0]] = true
				total += uint64(len(d.Sparse.Val))*8 + uint64(len(d.Sparse.Ind))*4
			}
		case len(d.X8) > 0:
			if !seen[&d.X8[0]] {
				seen[&d.X8[0]] = true
				total += uint64(len(d.X8))
			}
		case len(d.X) > 0:
			if !seen[&d.X[0]] {
				seen[&d.X[0]] = true
				total += uint64(len(d.X)) * 8
			}
		}
	}
	return total
}

// cohortable reports whether jobs a and b may run in one cohort: both
// single algorithm runs on the same problem with the same engine settings
// (seeds may differ) and metrics of the same identities (a sweep builds
// them anew for each configuration; the cohort measures all its runs with
// its first job's).
func cohortable(a, b *Job) bool {
	return a.Stages == nil && b.Stages == nil && a.Problem == b.Problem &&
		len(a.Metrics) == len(b.Metrics) && reflect.DeepEqual(a.MetricIDs, b.MetricIDs) &&
		reflect.DeepEqual(a.Settings, b.Settings)
}

// executeCohort runs the jobs u in one cohort (core.RunCohort) with the
// given number of client workers; jobs whose algorithm fails to build fail
// alone, and so does a member whose checkpoint does not resume it (it runs
// again from round 0, alone).
func executeCohort(opts *Options, jobs []Job, u []int, workers int) []*core.Result {
	results := make([]*core.Result, len(u))
	var members []core.Member
	var at []int
	var resumed []time.Duration // each member's time up to the checkpoint it resumes from
	for k, i := range u {
		j := &jobs[i]
		alg, err := registry.BuildArgs[core.Algorithm](j.Args)
		if err != nil {
			results[k] = &core.Result{Status: core.Failed, Err: err.Error()}
			continue
		}
		s, before, err := settingsOf(opts, j, i, workers, len(u))
		if err != nil {
			results[k] = &core.Result{Status: core.Failed, Err: err.Error()}
			continue
		}
		members = append(members, core.Member{Alg: alg, Settings: s})
		at = append(at, k)
		resumed = append(resumed, before)
	}
	if len(members) > 0 {
		for n, res := range core.RunCohort(jobs[u[0]].Problem, members, jobs[u[0]].Metrics) {
			k := at[n]
			results[k] = res
			if members[n].Settings.Resume != nil && resumeFailed(res) {
				resumedAt(opts.Progress, u[k], &jobs[u[k]], nil)
				results[k] = rerun(opts, &jobs[u[k]], members[n].Settings, res)
			} else {
				res.Elapsed += resumed[n]
				continued(&jobs[u[k]], members[n].Settings, res)
			}
		}
	}
	return results
}

// execute runs job j (index i) with the given number of client workers:
// a fresh algorithm built from the job's validated parameters, or the
// job's pipeline. It stops at a round boundary when opts.Context (if not
// nil) is done.
func execute(opts *Options, j *Job, i, workers int) *core.Result {
	ctx, prog := opts.Context, opts.Progress
	if j.Stages != nil {
		var progress func(done, total int)
		if prog != nil {
			progress = func(done, total int) { prog.round(i, done, total) }
		}
		var interrupt func() bool
		if ctx != nil {
			interrupt = func() bool { return ctx.Err() != nil }
		}
		if opts.Checkpoints == nil {
			return j.Stages.RunInterruptible(j.Seed, 0, workers, progress, interrupt)
		}
		data, before, err := opts.Checkpoints.Resume(j)
		if err != nil {
			return &core.Result{Status: core.Failed, Err: err.Error()}
		}
		ck := &pipeline.Checkpointing{Key: j.Key, Resume: data, Checkpoint: checkpointHook(opts, j, 1, before)}
		resumedAt(prog, i, j, ck.Resume)
		res := j.Stages.RunCheckpointed(j.Seed, 0, workers, progress, interrupt, ck)
		if ck.Resume != nil && resumeFailed(res) {
			resumedAt(prog, i, j, nil)
			opts.Checkpoints.Refused(j, res.Err)
			ck.Resume, ck.Checkpoint = nil, checkpointHook(opts, j, 1, 0)
			return j.Stages.RunCheckpointed(j.Seed, 0, workers, progress, interrupt, ck)
		}
		res.Elapsed += before
		return res
	}
	alg, err := registry.BuildArgs[core.Algorithm](j.Args)
	if err != nil {
		return &core.Result{Status: core.Failed, Err: err.Error()}
	}
	s, before, err := settingsOf(opts, j, i, workers, 1)
	if err != nil {
		return &core.Result{Status: core.Failed, Err: err.Error()}
	}
	res := core.Run(j.Problem, alg, s, j.Metrics)
	if s.Resume != nil && resumeFailed(res) {
		resumedAt(prog, i, j, nil)
		return rerun(opts, j, s, res)
	}
	res.Elapsed += before
	continued(j, s, res)
	return res
}

// resumedAt tells prog (if not nil) how many rounds job j (index i)
// restores from the checkpoint data it resumes from (nil: none, it starts
// from round 0), so that its rate counts only the rounds computed now.
func resumedAt(prog *Progress, i int, j *Job, data []byte) {
	if prog == nil {
		return
	}
	rounds := 0
	if data != nil {
		rounds, _ = core.CheckpointRounds(data, j.Key) // a checkpoint that does not decode is refused by the run: from round 0
	}
	prog.resumed(i, rounds)
}

// resumeError starts the error of a run whose checkpoint does not load
// (core.Run: one of another algorithm or build).
const resumeError = "cannot resume from the checkpoint"

// resumeFailed reports whether res is a run that failed to load its
// checkpoint.
func resumeFailed(res *core.Result) bool {
	return res.Status == core.Failed && strings.HasPrefix(res.Err, resumeError)
}

// rerun runs job j again from round 0 with its settings s after its checkpoint
// (or the state it continued, Job.Continue) failed to resume it (res),
// which is reported to opts.Checkpoints if set.
func rerun(opts *Options, j *Job, s core.Settings, res *core.Result) *core.Result {
	if opts.Checkpoints != nil {
		opts.Checkpoints.Refused(j, res.Err)
	}
	alg, err := registry.BuildArgs[core.Algorithm](j.Args)
	if err != nil {
		return &core.Result{Status: core.Failed, Err: err.Error()}
	}
	s.Resume, s.Checkpoint = nil, nil
	if opts.Checkpoints != nil {
		s.Checkpoint = checkpointHook(opts, j, 1, 0)
	}
	s.Checkpoint = keepState(j, s.Checkpoint)
	return core.Run(j.Problem, alg, s, j.Metrics)
}

// settingsOf returns the engine settings of job j (index i) run with the
// given number of client workers, its progress reported to
// opts.Progress, interrupted when opts.Context (if not nil) is done, and
// checkpointed to opts.Checkpoints (if set) as one of a cohort of the
// given size (1: alone), continuing j.Continue and keeping its state for
// j.KeepState (continuation); before is the run's time up to the
// checkpoint it resumes from (0: none). An error is opts.Checkpoints'
// refusal to start the run (see Checkpoints.Resume).
func settingsOf(opts *Options, j *Job, i, workers, cohort int) (s core.Settings, before time.Duration, err error) {
	s = j.Settings
	s.Seed, s.Run, s.Workers = j.Seed, 0, min(workers, max(j.Problem.Data.Clients(), 1)) // more workers than clients would idle
	if prog := opts.Progress; prog != nil {
		s.Progress = func(done, total int) { prog.round(i, done, total) }
	}
	if ctx := opts.Context; ctx != nil {
		s.Interrupt = func() bool { return ctx.Err() != nil }
	}
	if opts.Checkpoints != nil {
		s.AlgorithmName, s.CheckpointKey = j.Algorithm, j.Key
		if s.Resume, before, err = opts.Checkpoints.Resume(j); err != nil {
			return s, 0, err
		}
		s.Checkpoint = checkpointHook(opts, j, cohort, before)
	}
	continuation(j, &s)
	resumedAt(opts.Progress, i, j, s.Resume)
	return s, before, nil
}

// checkpointHook is job j's core.Settings.Checkpoint: it saves the run's
// state to opts.Checkpoints when CheckpointEvery has passed since the
// run started or was last saved, after every multiple of the job's
// Settings.CheckpointRounds rounds, when the context has ended (the engine
// stops before the next round), and after the last round with
// KeepCheckpoints. A state that cannot be saved or stored is reported
// (Unsupported) and the run goes on without checkpoints: it never fails
// for it. The run's elapsed time given to Save is before (its time up to
// the checkpoint it resumed from) plus the wall-clock time since the hook
// was made, divided among the runs of its cohort.
func checkpointHook(opts *Options, j *Job, cohort int, before time.Duration) func(done int, save func(io.Writer) error) error {
	start := time.Now()
	last, off := start, false
	rounds, every := j.Settings.Rounds, j.Settings.CheckpointRounds
	return func(done int, save func(io.Writer) error) error {
		final := done >= rounds
		stopping := opts.Context != nil && opts.Context.Err() != nil
		due := opts.CheckpointEvery > 0 && time.Since(last) >= opts.CheckpointEvery ||
			every > 0 && done%every == 0
		if off || (final && !opts.KeepCheckpoints) || !(final || stopping || due) {
			return nil
		}
		var b bytes.Buffer
		if err := save(&b); err != nil {
			off = true
			opts.Checkpoints.Unsupported(j, err.Error())
			return nil
		}
		if err := opts.Checkpoints.Save(j, done, before+time.Since(start)/time.Duration(cohort), b.Bytes()); err != nil {
			off = true
			opts.Checkpoints.Unsupported(j, "its checkpoint could not be stored: "+err.Error())
			return nil
		}
		last = time.Now()
		return nil
	}
}
