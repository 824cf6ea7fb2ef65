package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/fedlab/fedlab/internal/cputime"

	"github.com/fedlab/fedlab/core"
)

// SessionOptions configure a session: how its runs execute, which of them
// it executes, and what it shows.
type SessionOptions struct {
	// Name is the script's name in the progress lines (e.g. "sweep.lua").
	Name string
	// Shard restricts the runs executed to one shard (see Shard).
	Shard Shard
	// Jobs and Workers size the run-level and client-level pools, and
	// Cohorts says which runs execute together in lockstep (see Options).
	Jobs, Workers int
	Cohorts       Cohorts
	// Progress receives progress lines (nil keeps quiet); Interactive
	// redraws them in place.
	Progress    io.Writer
	Interactive bool
	// Context, if set, interrupts the session when it is done (a signal,
	// a time limit): the running runs stop at a round boundary and are
	// not stored, ExecuteCall returns an *Interrupted error, and Finish
	// records the session as interrupted. Completed runs are kept for a
	// resume.
	Context context.Context
	// CheckpointEvery is the time between two checkpoints of a run, and
	// KeepCheckpoints saves one after a run's last round too (see
	// Options), when the store keeps checkpoints.
	CheckpointEvery time.Duration
	KeepCheckpoints bool
	// DryRun computes no run: each gets its placeholder result
	// (Placeholder) and no progress is shown. Replay computes no run
	// either (the runs the store does not hold get placeholder results),
	// with progress: the store replays stored runs.
	DryRun, Replay bool
}

// Session executes the calls of a script or Go plan against a Store: it
// asks the store for the runs it holds completed, executes the others
// (those of its shard), hands each completed run to the store, shows the
// calls' progress and accounts the session's CPU time. A Session is used
// from one goroutine.
type Session struct {
	store    Store
	opts     SessionOptions
	progress *ScriptProgress         // nil: quiet
	results  map[string]*core.Result // the completed runs known to this session, by key
	calls    int                     // the calls executed so far
	stopped  *Stopped
	ran      int // runs executed by this session
	reused   int // runs found in the store
	// cpuAtStart is the process's CPU time when the session started
	// (cpuKnown: the system reports it).
	cpuAtStart time.Duration
	cpuKnown   bool
}

// NewSession starts a session that executes calls against store.
func NewSession(store Store, opts SessionOptions) *Session {
	s := &Session{store: store, opts: opts, results: map[string]*core.Result{}}
	s.cpuAtStart, s.cpuKnown = cputime.Process()
	if opts.Progress != nil {
		s.progress = NewScriptProgress(opts.Progress, opts.Interactive, opts.Name)
	}
	return s
}

// Execute runs the jobs of one call of the script (fn at where; rules for
// a sweep) and returns their runs in the order of the jobs (see
// ExecuteCall).
func (s *Session) Execute(fn, where string, rules []Rule, jobs []Job) ([]Run, error) {
	return s.ExecuteCall(Call{Function: fn, Where: where, Select: rules}, jobs)
}

// ExecuteCall runs the jobs of call c and returns their runs in the order
// of the jobs. A job whose run is completed (in this session, or done or
// diverged in the store) is not executed again; runs that failed in an
// earlier session are retried. Jobs with equal keys execute once. Each
// completed run is saved before the next is reported. In a shard, only
// the shard's runs are executed; if the call then lacks runs of other
// shards, ExecuteCall returns a *Stopped error, and so does every later
// call. The store records c as given (its Name, and its Rung in a
// successive-halving sweep); a Session is the CallExecutor of the halving
// sweeps it runs (Rungs).
func (s *Session) ExecuteCall(c Call, jobs []Job) ([]Run, error) {
	if s.stopped != nil {
		return nil, s.stopped
	}
	var todo []Job
	found, elsewhere := 0, 0
	planned := map[string]bool{}
	for _, j := range jobs {
		if planned[j.Key] {
			continue
		}
		pos := len(planned)
		planned[j.Key] = true
		ok, err := s.completed(&j)
		switch {
		case err != nil:
			return nil, err
		case ok:
			found++
		case s.opts.Shard.owns(pos):
			todo = append(todo, j)
		default:
			elsewhere++
		}
	}
	s.calls++ // the call's number: the store lists it even when Plan cannot write it down
	if err := s.store.Plan(c, jobs, todo); err != nil {
		return nil, err
	}
	var prog *Progress
	if s.progress != nil && !s.opts.DryRun {
		prog = s.progress.Call(callTitle(s.calls, c), len(planned), found)
	}
	opts := Options{Jobs: s.opts.Jobs, Workers: s.opts.Workers, Cohorts: s.opts.Cohorts, Progress: prog,
		Context: s.opts.Context, DryRun: s.opts.DryRun || s.opts.Replay, Done: func(i int, r Run) error { return s.done(&todo[i], r) }}
	if ck := s.store.Checkpoints(); ck != nil {
		opts.Checkpoints, opts.CheckpointEvery, opts.KeepCheckpoints = ck, s.opts.CheckpointEvery, s.opts.KeepCheckpoints
	}
	_, err := Execute(todo, opts)
	if s.interrupted() {
		if err := s.store.EndCall(nil); err != nil {
			return nil, err
		}
		return nil, &Interrupted{Where: c.Where, Cause: context.Cause(s.opts.Context)}
	}
	if err != nil {
		return nil, err
	}
	runs := make([]Run, len(jobs))
	for i := range jobs {
		runs[i] = jobs[i].Run(s.results[jobs[i].Key])
	}
	if err := s.store.EndCall(runs); err != nil {
		return nil, err
	}
	if elsewhere > 0 {
		s.stopped = &Stopped{Shard: s.opts.Shard, Where: c.Where, Elsewhere: elsewhere}
		return nil, s.stopped
	}
	return runs, nil
}

// completed reports whether job j's run is completed: in this session, or
// in the store (counted as reused).
func (s *Session) completed(j *Job) (bool, error) {
	if _, ok := s.results[j.Key]; ok {
		return true, nil
	}
	res, ok, err := s.store.Completed(j)
	if err != nil || !ok {
		return false, err
	}
	s.results[j.Key] = res
	s.reused++
	return true, nil
}

// done hands the run of job j, which just ended, to the store; a run
// interrupted is not complete: it is neither kept nor saved.
func (s *Session) done(j *Job, r Run) error {
	if r.Result.Status == core.Interrupted {
		return nil
	}
	s.results[j.Key] = r.Result
	if r.Result.Status != Planned {
		s.ran++
	}
	return s.store.Save(j, r)
}

// Finish ends the session: the script's summary line ends its progress,
// and the store records the outcome (a shard's stop, an interruption, the
// script's error or its completion), the session's CPU time and its
// counts of runs.
func (s *Session) Finish(scriptErr error) error {
	if s.progress != nil {
		s.progress.End()
	}
	var stop *Stopped
	var intr *Interrupted
	o := Outcome{Err: scriptErr, Stopped: errors.As(scriptErr, &stop), Interrupted: errors.As(scriptErr, &intr) || s.interrupted(),
		Ran: s.ran, Reused: s.reused}
	if cpu, ok := cputime.Process(); ok && s.cpuKnown {
		o.CPU = cpu - s.cpuAtStart
	}
	return s.store.Finish(o)
}

// interrupted reports whether the session's context has ended.
func (s *Session) interrupted() bool { return s.opts.Context != nil && s.opts.Context.Err() != nil }

// callTitle is the progress title of call number n: "call 2: NAME
// (fedlab.compare at s.lua:12)" or "call 2: fedlab.compare at s.lua:12".
func callTitle(n int, c Call) string {
	if c.Name != "" {
		return fmt.Sprintf("call %d: %s (%s at %s)", n, c.Name, c.Function, c.Where)
	}
	return fmt.Sprintf("call %d: %s at %s", n, c.Function, c.Where)
}

// Interrupted is the error of a session whose context ended (a signal, a
// time limit): Where is the call or script line it stopped at.
type Interrupted struct {
	Where string
	Cause error
}

// Error names where the session stopped and why.
func (e *Interrupted) Error() string { return e.Where + ": " + e.Cause.Error() }

// Unwrap returns the cause.
func (e *Interrupted) Unwrap() error { return e.Cause }

// Stopped is the error ExecuteCall returns when a shard reaches a call
// with runs that belong to other shards: later calls may depend on the
// whole call (a sweep's selection), so the shard stops there.
type Stopped struct {
	Shard     Shard
	Where     string // the call, e.g. "sweep.lua:12"
	Elsewhere int    // runs of the call left to other shards
}

// Error explains the stop.
func (s *Stopped) Error() string {
	return fmt.Sprintf("shard %s stopped at the call at %s: %d of its runs belong to other shards; merge the shard directories (fedlab merge) and run the script into the merged directory to go on",
		s.Shard, s.Where, s.Elsewhere)
}

// Shard selects a deterministic part of the runs: shard Index of Count
// (0 ≤ Index < Count) owns the runs at positions p with p mod Count =
// Index, positions counting the distinct runs of each call in the call's
// order. The zero Shard owns every run.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads "i/n" with 0 ≤ i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 0 ≤ i < n, e.g. 0/4", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// String renders the shard as "i/n".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Sharded reports whether s selects part of the runs.
func (s Shard) Sharded() bool { return s.Count > 1 }

// owns reports whether the run at position pos belongs to the shard.
func (s Shard) owns(pos int) bool { return !s.Sharded() || pos%s.Count == s.Index }
