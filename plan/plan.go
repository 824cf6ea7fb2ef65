// Package plan describes experiments as plain Go values and turns them
// into jobs: problems and components as specifications (kind, name,
// parameters), engine settings, comparisons, sweeps (grids or explicit
// configurations and selection rules) and multistage pipelines. The Lua
// API decodes scripts into these values; a Go program builds them
// directly (examples/goplan). Every run, single or staged, then goes the
// same way:
//
//	plan value ─(Builder)─▶ experiment.Job per run ─▶ experiment.Session.Execute ─▶ engine
//
// so that pipelines get the run directory's resume, shards, run keys and
// progress line like any comparison or sweep.
//
// The Builder validates every specification once, when it makes the jobs
// (parameters are checked against the registry then, and the runs build
// their algorithms from the validated registry.Args), and a run's identity
// comes from the specifications: a schedule or a topology given as a
// parameter is identified by its kind, name and resolved parameters
// (experiment.Nested), never by printing the built value.
package plan

import (
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/experiment/pipeline"
	"github.com/fedlab/fedlab/registry"
)

// Component chooses a registered component by kind, name and parameters.
// A parameter value is a number (float64 or int), a bool, a string, a
// []float64, a sched.Table (a function of the round, tabulated), or a
// Component (a schedule or a topology given to this component). Parameters
// left out take their registered defaults. Of makes one from a typed
// params value, checked by the compiler.
type Component struct {
	Kind   registry.Kind
	Name   string
	Params map[string]any
	// Dir, for a dataset, is the directory its relative input paths
	// resolve against when it is built (Builder.Paths); the identity keeps
	// the paths as given, so that run keys do not depend on where a
	// project lies.
	Dir string

	err error // why Of could not name a component
}

// Algorithm is an algorithm with a display label ("" means its name).
type Algorithm struct {
	Component
	Label string
}

// label is the label, or the name when there is none.
func (a Algorithm) label() string {
	if a.Label != "" {
		return a.Label
	}
	return a.Name
}

// Problem is the composite problem: data, loss, regularizer, mirror map.
type Problem struct {
	Data, Loss Component
	Reg        Component  // zero: no regularizer ("none")
	Mirror     *Component // nil: Euclidean
	Weighted   bool       // weight clients by their sample counts
}

// Compare runs every algorithm once per seed on one problem.
type Compare struct {
	Problem    Problem
	Algorithms []Algorithm
	// Settings are the engine settings (Rounds, ClientsPerRound,
	// LocalSteps or LocalEpochs, Batch, EvalEvery, Init, InitScale,
	// Divergence: the Lua key divergence, 0 for the default);
	// Seed, Run, Workers and Progress are set per run.
	Settings core.Settings
	Metrics  []Component // nil: the objective; empty: none
	Seeds    []uint64    // empty: seed 1
	System   System      // system effects (availability, compression, privacy); zero: none
}

// Setting is one swept value. Key is an algorithm parameter ("eta_c", or
// "algo.eta_c") or a parameter of a part of the problem ("data.seed",
// "loss.half", "reg.lambda", "mirror.p"); Value is as in Component.Params.
// Shown, if not nil, is what tables and files show instead of Value (the
// source position of a Lua function, say).
type Setting struct {
	Key   string
	Value any
	Shown any
}

// Sweep runs every algorithm under every configuration once per seed and
// selects, per algorithm, the best configuration by the rules.
type Sweep struct {
	Compare
	Configs [][]Setting       // in order; a key at most once per configuration
	Select  []experiment.Rule // at least one; ties go to the next rule
}

// Stage is one stage of a pipeline (see package pipeline).
type Stage struct {
	Algorithm  *Algorithm // nil: the previous stage's algorithm and parameters
	Lambda     any        // the penalty weight during the stage: nil (the problem's), a number, a sched.Table or a schedule Component
	Radius     float64    // > 0: the algorithm's "radius" during the stage
	Rounds     int
	LocalSteps int              // > 0: the stage's local steps
	Restart    pipeline.Restart // "": the pipeline's
	Keep       int              // 0: the pipeline's
}

// Stages runs a multistage pipeline once per seed.
type Stages struct {
	Problem  Problem
	Stages   []Stage
	Settings core.Settings // as in Compare; Rounds is ignored (the stages have theirs)
	Metrics  []Component   // as in Compare
	Seeds    []uint64
	Label    string           // "": "stages"
	Restart  pipeline.Restart // default restart of stages 2, 3, ...; "": last
	Keep     int              // default s of the top and rank restarts
}
