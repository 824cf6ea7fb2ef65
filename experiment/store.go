package experiment

import (
	"time"

	"github.com/fedlab/fedlab/core"
)

// Store keeps the runs of a session's calls (rundir.Dir keeps them in a
// run directory): it finds the runs it holds completed, records each call
// with the runs it plans, saves each run as it completes, keeps the runs'
// checkpoints and records how the session ended. A Session executes the
// calls against it, from one goroutine; only the methods of Checkpoints
// are called from the goroutines that run the jobs.
type Store interface {
	// Completed returns the result of job j's run if the store holds it
	// completed (done or diverged: a failed run is executed again) and
	// hands a job that keeps its final state (KeepState) the state
	// stored with the run.
	Completed(j *Job) (*core.Result, bool, error)
	// Plan records call c with its jobs before any of them executes,
	// each run as completed (Completed found it) or pending; todo are the
	// jobs the session executes, whose KeepState the store may extend to
	// keep their final states.
	Plan(c Call, jobs, todo []Job) error
	// Checkpoints keeps the checkpoints of the runs executed (nil: none).
	Checkpoints() Checkpoints
	// Save stores the run of job j, which just completed (a run
	// interrupted is not complete: it is not saved).
	Save(j *Job, r Run) error
	// EndCall records the end of the call planned last: runs are its runs
	// in the order of its jobs, or nil when the session's context ended
	// during the call.
	EndCall(runs []Run) error
	// Finish records how the session ended, after its last call.
	Finish(o Outcome) error
}

// Outcome is how a session ended, as its Store records it.
type Outcome struct {
	// Err is the script's error (nil: it completed). Stopped says that it
	// is a shard's stop (*Stopped); Interrupted, that it is an
	// *Interrupted or that the session's context ended.
	Err                  error
	Stopped, Interrupted bool
	// CPU is the process's CPU time during the session (0: the system
	// does not report it).
	CPU time.Duration
	// Ran counts the runs the session executed, Reused those it found
	// completed in the store.
	Ran, Reused int
}
