package plan

import (
	"fmt"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/budget"
)

// Bounds of the engine settings: a run checks for interruption (a signal,
// --timeout) between rounds only, so a round must end in reasonable time,
// and every round count is tabulated for Lua schedules.
const (
	MaxRounds     = 100_000_000
	MaxLocalSteps = 1_000_000
	MaxBatch      = 1 << 30
)

// Limits bounds what the plans of a Builder may ask for, before anything
// is allocated: the data a dataset declares (registry.Sizer), the engine
// settings and a run's records, and the model-sized state of the runs
// executed at once. fedlab run sets them from --max-memory and --jobs; a
// Go program gets the same errors with NewLimits.
type Limits struct {
	budget     budget.Budget
	runsAtOnce int
}

// NewLimits returns the limits of a session with the memory ceiling of
// fedlab run's --max-memory (maxBytes; 0: the default ceiling of the
// process's own limits, see budget.Ceiling) that executes runsAtOnce runs
// at once (--jobs; at least 1).
func NewLimits(maxBytes uint64, runsAtOnce int) *Limits {
	return limitsOf(budget.Ceiling(maxBytes), runsAtOnce)
}

// Ceiling is the memory ceiling the limits hold, computed once: fedlab
// run's Lua guard watches the process against it, and the datasets a
// Builder with these limits builds stop reading files there.
func (l *Limits) Ceiling() budget.Budget { return l.budget }

// limitsOf returns limits with the ceiling b.
func limitsOf(b budget.Budget, runsAtOnce int) *Limits {
	return &Limits{budget: b, runsAtOnce: max(runsAtOnce, 1)}
}

// CohortBytes is the model-sized state a cohort of runs executed in
// lockstep may hold (experiment.Cohorts.MaxState): a sixteenth of the
// ceiling, 64 MiB when no ceiling is known. It comes on top of the state
// of the runs at once that States checks.
func (l *Limits) CohortBytes() uint64 {
	if l.budget.Limit == 0 {
		return 64 << 20
	}
	return l.budget.Limit / 16
}

// Settings refuses settings beyond the bounds above, and records (one per
// evaluated round, metrics plus counters) beyond the memory ceiling.
func (l *Limits) Settings(s core.Settings, metrics int) error {
	for _, b := range []struct {
		key        string
		value, max int
	}{{"rounds", s.Rounds, MaxRounds}, {"local_steps", s.LocalSteps, MaxLocalSteps}, {"epochs", s.LocalEpochs, MaxLocalSteps}, {"batch", s.Batch, MaxBatch}} {
		if b.value > b.max {
			return fmt.Errorf("%s = %d is too large (at most %d: runs stop for Ctrl-C and --timeout only between rounds)", b.key, b.value, b.max)
		}
	}
	evals := s.Rounds + 2
	if s.EvalEvery > 0 {
		evals = s.Rounds/s.EvalEvery + 2
	}
	need := budget.Product(evals, 3*max(metrics, 1)+6, 8) // node metrics have _min and _max columns
	return l.budget.Check(fmt.Sprintf("the records of a run (rounds = %d, eval_every = %d, %d metrics)", s.Rounds, s.EvalEvery, max(metrics, 1)),
		need, "evaluate less often (eval_every) or run fewer rounds")
}

// States refuses jobs whose runs' state would not fit under the ceiling:
// for the runs executed at once, model-sized vectors for the server, the
// client workers, the sampled clients' replies and, for algorithms that
// keep state per client (core.ClientStateful), that state for every client.
func (l *Limits) States(jobs []experiment.Job) error {
	worst, worstJob := uint64(0), -1
	for i, j := range jobs {
		if j.Problem == nil {
			continue
		}
		if need := j.StateBytes(); need > worst {
			worst, worstJob = need, i
		}
	}
	if worstJob < 0 {
		return nil
	}
	j := jobs[worstJob]
	runs := min(l.runsAtOnce, len(jobs))
	return l.budget.Check(fmt.Sprintf("the state of %d runs at once (%d clients, %d parameters)", runs, j.Problem.Data.Clients(), j.Problem.Dim()),
		budget.Product(runs, int(min(worst, 1<<62))), "use fewer clients or a smaller model, or fewer runs at once (--jobs)")
}
