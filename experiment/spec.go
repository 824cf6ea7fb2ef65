// Package experiment plans and executes the runs of comparisons and sweeps.
//
// A Job is one fully specified run: problem, algorithm and parameters, seed,
// engine settings, metrics. Jobs builds the jobs of one algorithm (and one
// sweep configuration) over the seeds; Execute runs jobs in parallel on a
// run-level pool, giving each run a share of the client workers so that the
// cores are not oversubscribed, or runs that share a problem together in
// lockstep (Cohorts); Select picks the best configuration of a
// sweep per algorithm by a list of rules. A Call is the script's call whose
// jobs a CallExecutor (a run directory) executes; Rungs executes each rung
// of a successive-halving sweep as one such call.
//
// Every job has an Identity (everything that determines its numbers, in a
// canonical form) and a Key, a hash of the identity, so that a run can be
// found again in a run directory (resume, shards, merge).
//
// Common random numbers: every run with seed s uses core.Settings.Seed = s
// and Run = 0, so all algorithms and configurations see the same sampled
// clients, minibatches and initial model. Differences between them at one
// seed are due to the algorithms, not to sampling noise. Records do not
// depend on the number of run or client workers.
package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment/pipeline"
	"github.com/fedlab/fedlab/registry"
)

// AlgoSpec names a registered algorithm and its raw parameters, as given to
// registry.Validate.
type AlgoSpec struct {
	Name   string         // registered algorithm name
	Label  string         // display name; "" means Name
	Params map[string]any // raw parameters (defaults are filled in by the registry)
}

// label returns the label, or the name when there is none.
func (a AlgoSpec) label() string {
	if a.Label != "" {
		return a.Label
	}
	return a.Name
}

// Base is what the runs of one call share: the problem, the engine settings
// and the metrics, each with its identity.
type Base struct {
	Problem   *core.Problem
	ProblemID ProblemID
	Settings  core.Settings // Seed, Run, Workers and Progress are set per run
	Metrics   []core.Metric
	MetricIDs []Component
	System    System // identities of Settings' system effects
}

// Job is one run to execute: one algorithm run, or one run of a
// multistage pipeline (Stages).
type Job struct {
	Base
	Label     string
	Algorithm string
	Args      registry.Args      // the algorithm's parameters, validated when the job was planned
	Stages    *pipeline.Pipeline // if not nil, the job runs this pipeline instead of Args' algorithm
	Params    map[string]any     // fully resolved algorithm parameters, defaults included
	Config    Config             // the sweep configuration that made the job (empty outside sweeps)
	Seed      uint64
	Identity  Identity
	Key       string // Identity.Key()
	// Continue, if not nil, is the state of this configuration's run of
	// fewer rounds (a halving rung's survivor), which the run continues
	// instead of starting from round 0: bit for bit the run from round 0,
	// its records those of that run (the shorter run's last evaluation,
	// when it is off this run's grid, is dropped). A state the engine
	// refuses is reported as a refused checkpoint and the run starts from
	// round 0.
	Continue *State
	// KeepState, if not nil, is called with the run's state after its
	// last round (for a longer run to continue it); a run whose algorithm
	// does not declare its state (core.Stateful) never calls it. A run
	// directory also stores that state, and calls KeepState with the
	// stored one when it finds the run completed by an earlier session.
	KeepState func(*State)
}

// State is the state of a run after Rounds rounds: a core checkpoint
// under the run's Key.
type State struct {
	Key    string
	Rounds int
	Data   []byte
}

// Run is a job's identity and outcome, as tables, files and Lua see it.
type Run struct {
	Label     string
	Algorithm string
	Seed      uint64
	Params    map[string]any // fully resolved algorithm parameters, defaults included
	Config    Config         // sweep configuration (empty outside sweeps)
	Key       string         // identity hash (see Identity.Key)
	Layout    core.Layout    // the problem's parameter layout (how Result.Model is laid out)
	Result    *core.Result
}

// Name is the label, followed by the configuration for sweep runs
// ("fedmid eta_c=0.001 eta_s=0.3"); tables group runs by it.
func (r Run) Name() string {
	if len(r.Config) == 0 {
		return r.Label
	}
	return r.Label + " " + r.Config.String()
}

// MetricNames is the union of the runs' metric names in order of first
// appearance; runs not run yet (no result) have none.
func MetricNames(runs []Run) []string {
	var names []string
	for _, r := range runs {
		if r.Result == nil {
			continue
		}
		for _, m := range r.Result.Metrics {
			if !slices.Contains(names, m) {
				names = append(names, m)
			}
		}
	}
	return names
}

// Run returns the run of job j with result res.
func (j *Job) Run(res *core.Result) Run {
	return Run{Label: j.Label, Algorithm: j.Algorithm, Seed: j.Seed, Params: j.Params, Config: j.Config,
		Key: j.Key, Layout: j.Problem.Layout, Result: res}
}

// Jobs returns the jobs of algorithm a with configuration cfg on base, one
// per seed, in the order of seeds. The parameters are validated here, so
// mistakes are reported before anything runs.
func Jobs(base Base, a AlgoSpec, cfg Config, seeds []uint64) ([]Job, error) {
	if base.Problem == nil {
		return nil, fmt.Errorf("no problem")
	}
	if err := base.Settings.Check(); err != nil {
		return nil, err
	}
	init, err := core.ResolveInit(base.Problem.Loss, base.Settings.Init)
	if err != nil {
		return nil, err
	}
	base.Settings.Init = init // identities record the initial model in effect
	args, err := registry.Validate(registry.Algorithm, a.Name, a.Params)
	if err != nil {
		return nil, err
	}
	return NewJobs(base, a.label(), args, NewComponent(a.Name, args.Values()), cfg, seeds), nil
}

// NewJobs returns the jobs of the algorithm whose parameters args holds
// (validated) and whose identity is id, with configuration cfg on base,
// one per seed.
func NewJobs(base Base, label string, args registry.Args, id Component, cfg Config, seeds []uint64) []Job {
	settings := settingsID(base.Settings)
	settings.System = base.System
	params := args.Values()
	jobs := make([]Job, 0, len(seeds))
	for _, seed := range seeds {
		ident := Identity{Format: identityFormat, Algorithm: id, Problem: base.ProblemID, Settings: settings,
			Metrics: base.MetricIDs, Seed: seed}
		jobs = append(jobs, Job{Base: base, Label: label, Algorithm: args.Spec().Name, Args: args, Params: params,
			Config: cfg, Seed: seed, Identity: ident, Key: ident.Key()})
	}
	return jobs
}

// PipelineJobs returns the jobs of pipeline pl on base (whose Settings.Rounds
// is the pipeline's total), one per seed: algorithm is the run's name
// ("cfedda+cfedda"), params its description, stages the stages' identity.
func PipelineJobs(base Base, label, algorithm string, params map[string]any, pl *pipeline.Pipeline, stages []StageID, seeds []uint64) []Job {
	settings := settingsID(base.Settings)
	jobs := make([]Job, 0, len(seeds))
	for _, seed := range seeds {
		ident := Identity{Format: identityFormat, Algorithm: Component{Name: StagesAlgorithm}, Problem: base.ProblemID,
			Settings: settings, Metrics: base.MetricIDs, Seed: seed, Stages: stages}
		jobs = append(jobs, Job{Base: base, Label: label, Algorithm: algorithm, Stages: pl, Params: params,
			Seed: seed, Identity: ident, Key: ident.Key()})
	}
	return jobs
}

// StagesAlgorithm is the algorithm name in the identity of pipeline runs.
const StagesAlgorithm = "stages"

// DistinctLabels checks that no two algorithms share a label.
func DistinctLabels(algos []AlgoSpec) error {
	if len(algos) == 0 {
		return fmt.Errorf("no algorithms")
	}
	seen := map[string]bool{}
	for _, a := range algos {
		l := a.label()
		if err := ValidText("label", l); err != nil {
			return err
		}
		if seen[l] {
			return fmt.Errorf("two algorithms are labelled %q; give them distinct labels", l)
		}
		seen[l] = true
	}
	return nil
}

// ValidText refuses free text that is not valid UTF-8: run directories
// store text as UTF-8 (JSON), where invalid bytes would all become U+FFFD,
// so two labels differing only in such bytes would be stored as one.
func ValidText(what, s string) error {
	if utf8.ValidString(s) {
		return nil
	}
	at := 0
	for at < len(s) {
		r, n := utf8.DecodeRuneInString(s[at:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		at += n
	}
	return fmt.Errorf("%s %s is not valid UTF-8 (byte 0x%02x at offset %d): labels and names are stored as UTF-8 text; write them in UTF-8",
		what, strconv.QuoteToASCII(s), s[at], at)
}
