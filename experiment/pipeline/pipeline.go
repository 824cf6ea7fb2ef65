// Package pipeline runs multistage experiments: a list of stages, each one
// a run of a registered algorithm with its own λ, constraint radius, number
// of rounds and local steps, started from a point derived from the previous
// stage (its last model, its weighted-average output, or a top-s
// sparsification) with the algorithm's state reset.
//
// Each stage is one core.Run with Settings.RoundOffset set to the rounds
// already done, so the round count — and with it the random streams (seed,
// run, round, client), the schedules and the records — continues across
// stages: a pipeline run with seed s samples the same clients and
// minibatches at round r as a plain run with seed s (common random numbers).
// The records of all stages form one core.Result whose first metric,
// "stage", is the 1-based stage number of each record; communication and
// sample counts are cumulative over the stages.
//
// Each stage's engine run is told where it stands in the pipeline through
// core.Settings: RoundOffset (the first round), Carry (the communication
// and samples counted so far) and EvalRounds (the pipeline's evaluation
// grid), so a stage's records need no correction afterwards. The stage's
// algorithm is wrapped only to record its start point and, when needed,
// its weighted average; the wrapper unwraps (core.Unwrapper), so the engine
// still sees every capability of the algorithm (gossip accounting, per-node
// models, its own choice of participants).
//
// The files split the package by job: pipeline.go checks a Spec, run.go
// runs the stages, restart.go computes restart points.
package pipeline

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// Restart says where a stage starts, from the previous stage's result.
type Restart string

// Restart modes.
const (
	// Last starts from the previous stage's final model (the point its
	// algorithm evaluates: the last server iterate for most algorithms).
	Last Restart = "last"
	// Average starts from the previous stage's weighted-average output: the
	// algorithm's own (Averager, e.g. C-FedDA's Σα_r w̄_{r+1}/A_R), else
	// Σ_r (r+1)·w_{r+1} / Σ_r (r+1) over the stage's models after each round.
	Average Restart = "average"
	// Top keeps the Keep largest-magnitude regularized weights of the final
	// model and zeroes the other regularized weights (unregularized blocks
	// such as biases are kept).
	Top Restart = "top"
	// Rank keeps the Keep largest singular values of each regularized block
	// of the final model (the low-rank analogue of Top).
	Rank Restart = "rank"
	// Init starts from the pipeline's initial model again (a cold restart).
	Init Restart = "init"
)

// Restarts lists the restart modes.
var Restarts = []Restart{Last, Average, Top, Rank, Init}

// StageMetric is the name of the metric column holding the stage number.
const StageMetric = "stage"

// Averager is implemented by algorithms with an averaged output of their
// own (C-FedDA); Average writes it into dst.
type Averager interface {
	Average(dst []float64)
}

// Stage is one stage of a pipeline.
type Stage struct {
	// Algorithm is a registered algorithm; "" inherits the previous stage's
	// algorithm and parameters.
	Algorithm string
	// Params are its raw parameters (as for registry.Build). Ignored when
	// the algorithm is inherited.
	Params map[string]any
	// Lambda replaces the weight λ of the problem's penalty during the
	// stage, evaluated at the global round; nil keeps the problem's.
	Lambda sched.Schedule
	// Radius > 0 sets the algorithm's "radius" parameter (the constraint
	// radius of C-FedDA); 0 keeps the parameters as given.
	Radius float64
	// Rounds is the number of rounds of the stage (≥ 0).
	Rounds int
	// LocalSteps > 0 sets the local steps K of the stage (and turns epochs
	// off); 0 keeps the pipeline's settings.
	LocalSteps int
	// Restart is how the stage starts from the previous one; "" means
	// Spec.Restart. The first stage starts from the pipeline's initial model.
	Restart Restart
	// Keep is s for Top and Rank; 0 means Spec.Keep.
	Keep int
}

// Spec is a pipeline.
type Spec struct {
	Problem *core.Problem
	Stages  []Stage
	// Settings are the engine settings of every stage. Rounds is ignored
	// (each stage has its own); RoundOffset is the first round of the first
	// stage; W0, Init and InitScale give the first stage's start.
	Settings core.Settings
	Metrics  []core.Metric
	Restart  Restart // default restart mode; "" means Last
	Keep     int     // default s for Top and Rank
}

// Pipeline is a checked Spec, ready to run for any seed.
type Pipeline struct {
	spec     Spec
	stages   []resolved
	averages []bool // stage i must average its models (stage i+1 restarts at Average, no Averager)
}

// resolved is a stage with its algorithm, parameters and problem fixed.
type resolved struct {
	Stage
	name    string
	params  map[string]any
	args    registry.Args // params validated, once
	problem *core.Problem
	restart Restart
	keep    int
}

// New checks spec (algorithms, parameters, restart modes, λ on a penalty)
// and prepares the stages' problems: a stage with its own λ gets a copy of
// the problem with that penalty weight (built once, so its reference
// optimum is shared by all seeds).
func New(spec Spec) (*Pipeline, error) {
	if spec.Problem == nil {
		return nil, fmt.Errorf("pipeline: no problem")
	}
	if len(spec.Stages) == 0 {
		return nil, fmt.Errorf("pipeline: no stages")
	}
	for _, m := range spec.Metrics {
		if m.Name() == StageMetric {
			return nil, fmt.Errorf("pipeline: the metric name %q is reserved for the stage number", StageMetric)
		}
	}
	if spec.Restart == "" {
		spec.Restart = Last
	}
	if !slices.Contains(Restarts, spec.Restart) {
		return nil, fmt.Errorf("pipeline: unknown restart %q%s; valid: %s", spec.Restart, registry.DidYouMean(string(spec.Restart), strings.Split(restartNames(), ", ")), restartNames())
	}
	check := spec.Settings
	check.Rounds = 0
	if err := check.Check(); err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	p := &Pipeline{spec: spec}
	for i, st := range spec.Stages {
		what := fmt.Sprintf("pipeline stage %d", i+1)
		r := resolved{Stage: st, restart: st.Restart, keep: st.Keep}
		switch {
		case st.Algorithm != "":
			r.name, r.params = st.Algorithm, maps.Clone(st.Params)
		case i == 0:
			return nil, fmt.Errorf("%s: the first stage needs an algorithm", what)
		default: // inherit the previous stage's algorithm and effective parameters
			r.name, r.params = p.stages[i-1].name, maps.Clone(p.stages[i-1].params)
		}
		if r.params == nil {
			r.params = map[string]any{}
		}
		as, ok := registry.Lookup(registry.Algorithm, r.name)
		if !ok {
			_, err := registry.Validate(registry.Algorithm, r.name, nil)
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if st.Radius < 0 || math.IsNaN(st.Radius) {
			return nil, fmt.Errorf("%s: radius must be ≥ 0, got %g", what, st.Radius)
		}
		if st.Radius > 0 {
			if _, ok := as.Param("radius"); !ok {
				return nil, fmt.Errorf("%s: algorithm %q has no constraint radius (parameter \"radius\")", what, r.name)
			}
			r.params["radius"] = st.Radius
		}
		var err error
		if r.args, err = registry.Validate(registry.Algorithm, r.name, r.params); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if st.Rounds < 0 {
			return nil, fmt.Errorf("%s: rounds must be ≥ 0, got %d", what, st.Rounds)
		}
		if st.LocalSteps < 0 {
			return nil, fmt.Errorf("%s: local_steps must be ≥ 0, got %d", what, st.LocalSteps)
		}
		switch {
		case i == 0 && st.Restart != "":
			return nil, fmt.Errorf("%s: the first stage starts from the initial model; restart applies from stage 2 on", what)
		case i == 0:
			r.restart = Init
		case r.restart == "":
			r.restart = spec.Restart
		}
		if !slices.Contains(Restarts, r.restart) {
			return nil, fmt.Errorf("%s: unknown restart %q%s; valid: %s", what, r.restart, registry.DidYouMean(string(r.restart), strings.Split(restartNames(), ", ")), restartNames())
		}
		if r.keep == 0 {
			r.keep = spec.Keep
		}
		if i > 0 && (r.restart == Top || r.restart == Rank) && r.keep <= 0 {
			return nil, fmt.Errorf("%s: restart %q needs keep = s > 0 (the entries or singular values kept)", what, r.restart)
		}
		if st.Lambda != nil {
			pen := spec.Problem.Penalty
			if rs, ok := registry.Lookup(registry.Regularizer, pen.Name); ok {
				if _, has := rs.Param("lambda"); !has {
					return nil, fmt.Errorf("%s: a stage λ needs a penalty with a weight; the problem's regularizer %q has none", what, pen.Name)
				}
			}
		}
		r.problem = stageProblem(spec.Problem, st.Lambda)
		p.stages = append(p.stages, r)
	}
	p.averages = make([]bool, len(p.stages))
	for i := 1; i < len(p.stages); i++ {
		p.averages[i-1] = p.stages[i].restart == Average
	}
	return p, nil
}

// stageProblem returns the problem of a stage: p itself, or a copy whose
// penalty weight is lambda.
func stageProblem(p *core.Problem, lambda sched.Schedule) *core.Problem {
	if lambda == nil {
		return p
	}
	pen := p.Penalty
	pen.Lambda = lambda
	return &core.Problem{Data: p.Data, Loss: p.Loss, Penalty: pen, Mirror: p.Mirror, Layout: p.Layout,
		WeightBySamples: p.WeightBySamples, RefSettings: p.RefSettings, RefStore: p.RefStore}
}

func restartNames() string {
	var s []string
	for _, r := range Restarts {
		s = append(s, string(r))
	}
	return strings.Join(s, ", ")
}

// Rounds is the total number of rounds of the stages.
func (p *Pipeline) Rounds() int {
	n := 0
	for _, s := range p.stages {
		n += s.Rounds
	}
	return n
}

// Boundaries returns the global round at which each stage starts.
func (p *Pipeline) Boundaries() []int {
	r := p.spec.Settings.RoundOffset
	var out []int
	for _, s := range p.stages {
		out = append(out, r)
		r += s.Rounds
	}
	return out
}

// Algorithms lists the stages' algorithm names.
func (p *Pipeline) Algorithms() []string {
	var out []string
	for _, s := range p.stages {
		out = append(out, s.name)
	}
	return out
}

// StageParams returns stage i's resolved algorithm parameters (defaults
// included), its restart mode and its problem's penalty weight.
func (p *Pipeline) StageParams(i int) (algorithm string, params map[string]any, restart Restart, keep int, lambda sched.Schedule) {
	s := p.stages[i]
	return s.name, s.args.Values(), s.restart, s.keep, s.problem.Penalty.Lambda
}

// StageRounds is the number of rounds of stage i.
func (p *Pipeline) StageRounds(i int) int { return p.stages[i].Rounds }

// ScheduleText renders a stage's λ for descriptions: a constant as its
// value, a tabulated function as "function", other schedules as printed.
func ScheduleText(s sched.Schedule) string {
	switch x := s.(type) {
	case sched.Constant:
		return fmt.Sprintf("%g", float64(x))
	case sched.Table:
		return "function"
	}
	return fmt.Sprint(s)
}
