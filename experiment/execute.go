package experiment

import (
	"context"
	"runtime"

	"github.com/fedlab/fedlab/core"
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
}

// Execute runs the jobs and returns their runs in the order of the jobs.
// Runs are started in that order, up to opts.Jobs at a time; each builds a
// fresh algorithm. A run whose algorithm fails to build, fails or diverges
// is recorded as such and the others still run. If opts.Done stops the
// execution, the runs never started have a nil Result.
//
// Results do not depend on opts.Jobs or opts.Workers: every run uses its
// own random streams (Seed = the job's seed, Run = 0) and the engine's
// results do not depend on its worker count.
func Execute(jobs []Job, opts Options) ([]Run, error) {
	runs := make([]Run, len(jobs))
	if len(jobs) == 0 {
		return runs, nil
	}
	par := min(max(opts.Jobs, 1), len(jobs))
	workers := opts.Workers
	if workers <= 0 {
		workers = max(1, runtime.NumCPU()/par)
	}
	solveReferences(jobs, par)
	prog := opts.Progress
	if prog != nil {
		prog.begin(len(jobs), true)
		defer prog.end()
	}
	type ended struct {
		i   int
		res *core.Result
	}
	todo := make(chan int)
	out := make(chan ended)
	for range par {
		go func() {
			for i := range todo {
				out <- ended{i, execute(opts.Context, &jobs[i], i, workers, prog)}
			}
		}()
	}
	defer close(todo)
	next, running := 0, 0
	var stop error
	var done <-chan struct{}
	if opts.Context != nil {
		done = opts.Context.Done()
	}
	for (next < len(jobs) && stop == nil) || running > 0 {
		var send chan int
		if next < len(jobs) && stop == nil {
			send = todo
		}
		select {
		case <-done:
			if stop == nil {
				stop = context.Cause(opts.Context)
			}
			done = nil
		case send <- next:
			if prog != nil {
				prog.runStarted()
			}
			next++
			running++
		case e := <-out:
			running--
			runs[e.i] = jobs[e.i].Run(e.res)
			if prog != nil {
				prog.runEnded(e.i, string(e.res.Status))
			}
			if opts.Done != nil {
				if err := opts.Done(e.i, runs[e.i]); err != nil && stop == nil {
					stop = err
				}
			}
		}
	}
	return runs, stop
}

// execute runs job j (index i) with the given number of client workers:
// a fresh algorithm built from the job's validated parameters, or the
// job's pipeline. It stops at a round boundary when ctx (if not nil) is
// done.
func execute(ctx context.Context, j *Job, i, workers int, prog *Progress) *core.Result {
	var progress func(done, total int)
	if prog != nil {
		progress = func(done, total int) { prog.round(i, done, total) }
	}
	var interrupt func() bool
	if ctx != nil {
		interrupt = func() bool { return ctx.Err() != nil }
	}
	if j.Stages != nil {
		return j.Stages.RunInterruptible(j.Seed, 0, workers, progress, interrupt)
	}
	alg, err := registry.BuildArgs[core.Algorithm](j.Args)
	if err != nil {
		return &core.Result{Status: core.Failed, Err: err.Error()}
	}
	s := j.Settings
	s.Seed, s.Run, s.Workers, s.Progress = j.Seed, 0, min(workers, max(j.Problem.Data.Clients(), 1)), progress // more workers than clients would idle
	s.Interrupt = interrupt
	return core.Run(j.Problem, alg, s, j.Metrics)
}
