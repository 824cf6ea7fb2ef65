// Command goplan runs an experiment written in Go, without Lua: it builds
// plan values (a problem, a comparison, a sweep and a multistage pipeline)
// in the typed form, plan.Of with each component's params type, so that
// the compiler checks every parameter's name and type,
// turns them into jobs with a plan.Builder and executes them in a run
// directory, exactly as `fedlab run` does for a script (resume, run keys,
// --shard/merge-compatible directories, the same progress line). It is
// the Go counterpart of examples/goplan/goplan.lua, and its test checks
// that both give the same runs, keys and records. It imports the component
// packages it uses, not registry/all: a program links only the components
// (and their file-format libraries) it imports.
//
//	go run ./examples/goplan -out runs/goplan
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fedlab/fedlab/algorithms"
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/datasets"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/experiment/pipeline"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/metrics"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/present/report"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/rundir"
	"github.com/fedlab/fedlab/schedules/sched"
)

func main() {
	out := flag.String("out", filepath.Join("runs", "goplan"), "run directory")
	flag.Parse()
	sum, err := run(*out, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "goplan:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "goplan:", sum)
}

// experiments are the plans the program runs, in order.
type experiments struct {
	Compare plan.Compare
	Sweep   plan.Sweep
	Stages  plan.Stages
}

// build returns the plans: a federated LASSO (sparse AR(1) design, ℓ1 at
// λ = 0.02) on which FedMiD and FedDualAvg are compared, FedDualAvg's step
// size is swept, and two C-FedDA stages run with halving λ, the second
// restarted at the first's weighted-average output.
func build() experiments {
	// each value starts from the component's registered defaults
	problem := plan.Problem{
		Data: plan.Of(func(p *datasets.SparseAR1Params) {
			p.Dim, p.Support, p.Clients, p.Samples, p.TestSamples = 64, 8, 8, 40, 0
		}),
		Loss: plan.Of(func(p *losses.SquaredParams) { p.Intercept = false }),
		Reg:  plan.Of(func(p *regularizers.L1Params) { p.Lambda = sched.Constant(0.02) }),
	}
	settings := core.Settings{Rounds: 60, ClientsPerRound: 4, LocalSteps: 5, Batch: 8, EvalEvery: 20, Init: "normal", InitScale: 1}
	metrics := []plan.Component{
		{Kind: registry.Metric, Name: "l2_error"}, // no parameters: no params type
		plan.Of[metrics.F1Params](nil),            // every default (threshold 0.01)
		{Kind: registry.Metric, Name: "objective"},
	}
	seeds := []uint64{1, 2}
	fedmid := plan.Algorithm{Component: plan.Of(func(p *algorithms.FedMiDParams) { p.EtaC = sched.Constant(0.002) })}
	fda := plan.Algorithm{Component: plan.Of(func(p *algorithms.FedDualAvgParams) { p.EtaC = sched.Constant(0.002) }), Label: "FedDualAvg"}
	var grid [][]plan.Setting
	for _, eta := range []float64{0.001, 0.002, 0.004} {
		grid = append(grid, []plan.Setting{{Key: "eta_c", Value: eta}})
	}
	cfedda := plan.Algorithm{Component: plan.Of(func(p *algorithms.CFedDAParams) { p.Mu, p.L, p.Weights = 0.1, 300, "constant" })}
	stagesSettings := settings
	stagesSettings.Rounds = 0
	return experiments{
		Compare: plan.Compare{Problem: problem, Algorithms: []plan.Algorithm{fedmid, fda}, Settings: settings, Metrics: metrics, Seeds: seeds},
		Sweep: plan.Sweep{
			Compare: plan.Compare{Problem: problem, Algorithms: []plan.Algorithm{fda}, Settings: settings, Metrics: metrics, Seeds: seeds},
			Configs: grid,
			Select:  []experiment.Rule{{Metric: "objective", Mode: "min", Last: 20}},
		},
		Stages: plan.Stages{Problem: problem, Settings: stagesSettings, Metrics: metrics, Seeds: seeds,
			Label: "C-FedDA stages", Restart: pipeline.Average,
			Stages: []plan.Stage{
				{Algorithm: &cfedda, Lambda: 0.04, Rounds: 30},
				{Lambda: 0.02, Rounds: 30},
			}},
	}
}

// run executes the plans into the run directory out, prints a table of
// each call to stdout and progress lines to progress.
func run(out string, stdout, progress io.Writer) (rundir.Summary, error) {
	return execPlans(build(), out, stdout, progress)
}

// execPlans executes the plans x as run does.
func execPlans(x experiments, out string, stdout, progress io.Writer) (rundir.Summary, error) {
	b := plan.NewBuilder()
	// data, settings and run state over the process's memory limits are refused before anything
	// is allocated, with fedlab run's messages (2 runs at once, as executed below)
	b.Limits = plan.NewLimits(0, 2)
	b.Notices = progress // what a dataset says it did (writers a filter dropped)
	compare, err := b.Compare(x.Compare)
	if err != nil {
		return rundir.Summary{}, err
	}
	sweep, err := b.Sweep(x.Sweep)
	if err != nil {
		return rundir.Summary{}, err
	}
	stages, _, err := b.Stages(x.Stages)
	if err != nil {
		return rundir.Summary{}, err
	}
	// The directory records what produced it: in place of a script's
	// SHA-256, that of the planned runs' keys.
	h := sha256.New()
	for _, calls := range [][]experiment.Job{compare, sweep, stages} {
		for _, j := range calls {
			io.WriteString(h, j.Key+"\n")
		}
	}
	dir, err := rundir.Open(out, rundir.Options{Script: rundir.Script{Path: "examples/goplan", SHA256: hex.EncodeToString(h.Sum(nil))},
		Jobs: 2, Progress: progress})
	if err != nil {
		return rundir.Summary{}, err
	}
	err = execute(dir.Session, stdout, compare, sweep, stages, x.Sweep.Select)
	s, ferr := dir.Finish(err)
	if err == nil {
		err = ferr
	}
	return s, err
}

// execute runs the three calls in order and prints their tables.
func execute(session *experiment.Session, stdout io.Writer, compare, sweep, stages []experiment.Job, rules []experiment.Rule) error {
	runs, err := session.Execute("compare", "goplan:compare", nil, compare)
	if err != nil {
		return err
	}
	if err := report.Table(stdout, runs, report.TableOptions{Title: "FedMiD vs FedDualAvg"}); err != nil {
		return err
	}
	if runs, err = session.Execute("sweep", "goplan:sweep", rules, sweep); err != nil {
		return err
	}
	best := experiment.BestRuns(experiment.Select(runs, rules))
	if err := report.Table(stdout, best, report.TableOptions{Title: "FedDualAvg, the step size selected"}); err != nil {
		return err
	}
	if runs, err = session.Execute("stages", "goplan:stages", nil, stages); err != nil {
		return err
	}
	return report.Table(stdout, runs, report.TableOptions{Title: "two C-FedDA stages"})
}
