package luaapi

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// checkData refuses a dataset whose size parameters ask for more memory
// than the budget (plan.DataCheck), before it is generated.
func (in *interp) checkData(args registry.Args) error {
	return plan.DataCheck(in.guard.budget)(args)
}

// Bounds of the engine settings: a run checks for interruption (a signal,
// --timeout) between rounds only, so a round must end in reasonable time,
// and every round count is tabulated for Lua schedules.
const (
	MaxRounds     = 100_000_000
	MaxLocalSteps = 1_000_000
	MaxBatch      = 1 << 30
)

// checkSettings refuses settings beyond the bounds above, and records
// (one per evaluated round, metrics plus counters) beyond the budget.
func (in *interp) checkSettings(fn string, s core.Settings, metrics int) error {
	for _, b := range []struct {
		key        string
		value, max int
	}{{"rounds", s.Rounds, MaxRounds}, {"local_steps", s.LocalSteps, MaxLocalSteps}, {"epochs", s.LocalEpochs, MaxLocalSteps}, {"batch", s.Batch, MaxBatch}} {
		if b.value > b.max {
			return fmt.Errorf("%s: %s = %d is too large (at most %d: runs stop for Ctrl-C and --timeout only between rounds)", fn, b.key, b.value, b.max)
		}
	}
	evals := s.Rounds + 2
	if s.EvalEvery > 0 {
		evals = s.Rounds/s.EvalEvery + 2
	}
	need := budget.Product(evals, 3*metrics+6, 8) // node metrics have _min and _max columns
	return in.guard.budget.Check(fmt.Sprintf("%s: the records of a run (rounds = %d, eval_every = %d, %d metrics)", fn, s.Rounds, s.EvalEvery, metrics),
		need, "evaluate less often (eval_every) or run fewer rounds")
}

// tableFits refuses to tabulate a Lua schedule whose table would not fit
// in the budget.
func (in *interp) tableFits(s *luaSchedule, rounds int) error {
	return in.guard.budget.Check(fmt.Sprintf("%s: parameter %q: the function's table of values for %d rounds", s.title, s.param, rounds),
		budget.Product(rounds, 8), "run fewer rounds")
}

// replyVectors bounds the model-sized vectors a run keeps per sampled
// client (its reply) and workerVectors those per client worker (scratch);
// serverVectors are the server's (state, broadcast, mean, evaluation).
// pipelineClientVectors is assumed per client for a multistage pipeline,
// whose stages are not inspected: the most any algorithm keeps.
const (
	replyVectors          = 2
	workerVectors         = 8
	serverVectors         = 8
	pipelineClientVectors = 5
)

// statesFit refuses a call whose runs' state would not fit in the budget:
// for the runs executed at once, model-sized vectors for the server, the
// client workers, the sampled clients' replies and, for algorithms that
// keep state per client (core.ClientStateful), that state for every client.
func (in *interp) statesFit(fn string, jobs []experiment.Job) error {
	worst, worstJob := uint64(0), -1
	for i, j := range jobs {
		if j.Problem == nil {
			continue
		}
		if need := jobStateBytes(j); need > worst {
			worst, worstJob = need, i
		}
	}
	if worstJob < 0 {
		return nil
	}
	j := jobs[worstJob]
	runs := max(min(in.opts.Jobs, len(jobs)), 1)
	return in.guard.budget.Check(fmt.Sprintf("%s: the state of %d runs at once (%d clients, %d parameters)", fn, runs, j.Problem.Data.Clients(), j.Problem.Dim()),
		budget.Product(runs, int(min(worst, 1<<62))), "use fewer clients or a smaller model, or fewer runs at once (--jobs)")
}

// jobStateBytes estimates the bytes of one run's model-sized vectors (see
// statesFit).
func jobStateBytes(j experiment.Job) uint64 {
	clients, dim := j.Problem.Data.Clients(), j.Problem.Dim()
	sampled := clients
	if k := j.Settings.ClientsPerRound; k > 0 && k < clients {
		sampled = k
	}
	workers := j.Settings.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	perClient := pipelineClientVectors
	if j.Stages == nil {
		perClient = 0
		if alg, err := registry.BuildArgs[core.Algorithm](j.Args); err == nil {
			if s, ok := core.As[core.ClientStateful](alg); ok {
				perClient = s.ClientVectors()
			}
		}
	}
	vectors := budget.Sum(budget.Product(perClient, clients), budget.Product(replyVectors, sampled),
		budget.Product(workerVectors, workers), serverVectors)
	return budget.Product(int(min(vectors, 1<<62)), dim, 8)
}

// seedList reads the key seeds: { 1 } when absent; an empty list or a seed
// given twice (the runs would be the same, and their spread zero) is an
// error.
func seedList(f *fields) []uint64 {
	if f.get("seeds") == lua.LNil {
		return []uint64{1}
	}
	var seeds []uint64
	seen := map[int]int{}
	list := f.integers("seeds", 0)
	if len(list) == 0 && f.error() == nil {
		f.fail(fmt.Errorf("%s: the list is empty; give at least one seed, or leave seeds out for { 1 }", f.what("seeds")))
	}
	for i, s := range list {
		if j, ok := seen[s]; ok {
			f.fail(fmt.Errorf("%s: seed %d appears twice (elements %d and %d): its runs would be the same run", f.what("seeds"), s, j+1, i+1))
			continue
		}
		seen[s] = i
		seeds = append(seeds, uint64(s))
	}
	return seeds
}

// article prefixes a noun with "a" or "an".
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}
