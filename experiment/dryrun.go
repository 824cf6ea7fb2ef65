package experiment

import (
	"fmt"
	"math"
	"slices"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// Planned is the status of a dry run's placeholder result (see
// Placeholder): the run was planned, not computed.
const Planned core.Status = "planned"

// PlannedNote is the Err of a placeholder result.
const PlannedNote = "dry run: planned, not computed"

// Placeholder returns the result a dry run gives job j instead of
// executing it: status Planned, the metric columns a run of j records
// (its algorithm, or its pipeline's stages, is built to know them), one
// record per round a run evaluates with every value and count NaN or
// zero, and no model. Nothing can take it for a measurement: every metric
// is NaN, and selection (Rule.Score) scores it NaN, so a sweep of
// placeholders selects its first configuration. An algorithm that fails
// to build returns its error, which the run would fail with.
func Placeholder(j *Job) (*core.Result, error) {
	res := &core.Result{Status: Planned, Err: PlannedNote}
	var rounds []int
	if j.Stages != nil {
		cols, err := j.Stages.Columns()
		if err != nil {
			return nil, err
		}
		res.Metrics, rounds = cols, j.Stages.RecordRounds()
	} else {
		alg, err := registry.BuildArgs[core.Algorithm](j.Args)
		if err != nil {
			return nil, err
		}
		_, nodes := core.As[core.Nodes](alg)
		for _, m := range j.Metrics {
			res.Metrics = append(res.Metrics, m.Name())
			if nodes {
				res.Metrics = append(res.Metrics, m.Name()+"_min", m.Name()+"_max")
			}
		}
		rounds = evaluatedRounds(j.Settings)
	}
	for _, r := range rounds {
		vals := make([]float64, len(res.Metrics))
		for i := range vals {
			vals[i] = math.NaN()
		}
		res.Records = append(res.Records, core.Record{Round: r, Values: vals})
	}
	return res, nil
}

// evaluatedRounds returns the rounds a run with settings s evaluates:
// s.EvalRounds if given, else its first and last rounds and every
// s.EvalEvery-th round between them.
func evaluatedRounds(s core.Settings) []int {
	if s.EvalRounds != nil {
		return slices.Clone(s.EvalRounds)
	}
	var out []int
	for t := 0; t <= s.Rounds; t++ {
		if t == 0 || t == s.Rounds || (s.EvalEvery > 0 && t%s.EvalEvery == 0) {
			out = append(out, s.RoundOffset+t)
		}
	}
	return out
}

// planAll returns the placeholder runs of jobs (see Placeholder), in
// order, reporting each to done as Execute would; the first algorithm
// that fails to build stops it with its error.
func planAll(jobs []Job, done func(i int, r Run) error) ([]Run, error) {
	runs := make([]Run, len(jobs))
	for i := range jobs {
		res, err := Placeholder(&jobs[i])
		if err != nil {
			return runs, &PlanError{Job: &jobs[i], Err: err}
		}
		runs[i] = jobs[i].Run(res)
		if done != nil {
			if err := done(i, runs[i]); err != nil {
				return runs, err
			}
		}
	}
	return runs, nil
}

// PlanError is the error of a dry run whose job cannot be built: the run
// would fail with Err.
type PlanError struct {
	Job *Job
	Err error
}

// Error names the run (label and seed) and why it would fail.
func (e *PlanError) Error() string {
	return fmt.Sprintf("%s seed %d: %v", e.Job.Run(nil).Name(), e.Job.Seed, e.Err)
}

// Unwrap returns the build error.
func (e *PlanError) Unwrap() error { return e.Err }
