package luaapi

import (
	"fmt"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// defaultMetric is measured when a call gives no metrics.
const defaultMetric = "objective"

// fnRun is fedlab.run{problem=, algorithm=, seed=, ...}: one run, returned
// as a result table.
func (in *interp) fnRun(L *lua.LState) (int, error) {
	f, err := tableArg(L, runCall)
	if err != nil {
		return 0, err
	}
	algo := f.component("algorithm", registry.Algorithm)
	seed := f.integer("seed", 1, 0)
	c, err := in.readCall(f)
	if err != nil {
		return 0, err
	}
	runs, err := in.compare(c, []*component{algo}, []uint64{uint64(seed)})
	if err != nil {
		return 0, err
	}
	L.Push(in.result(&runs[0]))
	return 1, nil
}

// fnCompare is fedlab.compare{problem=, algorithms={...}, seeds={...}, ...}:
// every algorithm once per seed, returned as a list of result tables.
func (in *interp) fnCompare(L *lua.LState) (int, error) {
	f, err := tableArg(L, compareCall)
	if err != nil {
		return 0, err
	}
	algos, seeds := in.algorithmsAndSeeds(f)
	c, err := in.readCall(f)
	if err != nil {
		return 0, err
	}
	runs, err := in.compare(c, algos, seeds)
	if err != nil {
		return 0, err
	}
	L.Push(in.results(runs))
	return 1, nil
}

// algorithmsAndSeeds reads the keys algorithms (required) and seeds
// (default {1}).
func (in *interp) algorithmsAndSeeds(f *fields) ([]*component, []uint64) {
	var algos []*component
	for i, v := range f.list("algorithms") {
		c, err := asComponent(v, registry.Algorithm, fmt.Sprintf("%s element %d", f.what("algorithms"), i+1))
		f.fail(err)
		algos = append(algos, c)
	}
	var seeds []uint64
	for _, s := range f.integers("seeds", 0) {
		seeds = append(seeds, uint64(s))
	}
	if len(seeds) == 0 {
		seeds = []uint64{1}
	}
	return algos, seeds
}

// call is what the runs of one fedlab.run, fedlab.compare or fedlab.sweep
// call share.
type call struct {
	fn, where string
	problem   *problem
	settings  core.Settings
	metrics   []core.Metric
	metricIDs []experiment.Component
}

// readCall reads the shared settings and builds the metrics.
func (in *interp) readCall(f *fields) (*call, error) {
	p, err := asProblem(f.get("problem"), f.what("problem"))
	f.fail(err)
	s := core.Settings{
		Rounds:          f.integer("rounds", 0, 0),
		ClientsPerRound: f.integer("clients_per_round", 0, 0),
		LocalSteps:      f.integer("local_steps", 0, 0),
		LocalEpochs:     f.integer("epochs", 0, 0),
		Batch:           f.integer("batch", 0, 0),
		EvalEvery:       f.integer("eval_every", 0, 0),
		Init:            f.str("init", "zeros", "zeros", "normal"),
		InitScale:       f.number("init_scale", 0.01, 0),
	}
	metricValues := f.list("metrics")
	if err := f.error(); err != nil {
		return nil, err
	}
	if f.get("metrics") == lua.LNil {
		metricValues = []lua.LValue{lua.LString(defaultMetric)}
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", f.fn(), err)
	}
	c := &call{fn: f.fn(), where: strings.TrimSuffix(in.L.Where(1), ":"), problem: p, settings: s}
	c.metrics, c.metricIDs, err = in.metrics(metricValues, s.Rounds, f.what("metrics"))
	return c, err
}

// base builds what the runs on problem p share.
func (in *interp) base(c *call, p *problem) (experiment.Base, error) {
	cp, err := in.coreProblem(p, c.settings.Rounds)
	if err != nil {
		return experiment.Base{}, err
	}
	id, err := in.problemID(p, c.settings.Rounds)
	if err != nil {
		return experiment.Base{}, err
	}
	return experiment.Base{Problem: cp, ProblemID: id, Settings: c.settings, Metrics: c.metrics, MetricIDs: c.metricIDs}, nil
}

// algoSpec tabulates a's Lua-function schedules for the call's rounds.
func (in *interp) algoSpec(c *call, a *component) (experiment.AlgoSpec, error) {
	raw, err := in.resolve(a.raw, c.settings.Rounds)
	if err != nil {
		return experiment.AlgoSpec{}, err
	}
	return experiment.AlgoSpec{Name: a.spec.Name, Label: a.label, Params: raw}, nil
}

// compare plans every algorithm once per seed and executes the runs.
func (in *interp) compare(c *call, algos []*component, seeds []uint64) ([]experiment.Run, error) {
	b, err := in.base(c, c.problem)
	if err != nil {
		return nil, err
	}
	var specs []experiment.AlgoSpec
	var jobs []experiment.Job
	for _, a := range algos {
		spec, err := in.algoSpec(c, a)
		if err != nil {
			return nil, err
		}
		specs = append(specs, spec)
		js, err := experiment.Jobs(b, spec, nil, seeds)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.fn, err)
		}
		jobs = append(jobs, js...)
	}
	if err := experiment.DistinctLabels(specs); err != nil {
		return nil, fmt.Errorf("%s: %w", c.fn, err)
	}
	return in.execute(c, nil, jobs)
}

// execute runs the jobs of a call in the run directory.
func (in *interp) execute(c *call, rules []experiment.Rule, jobs []experiment.Job) ([]experiment.Run, error) {
	runs, err := in.dir.Execute(c.fn, c.where, rules, jobs)
	if err != nil {
		in.stop = err
		return nil, err
	}
	return runs, nil
}

// metrics builds the metrics of a call, and their identities: names
// (default parameters) or components from fedlab.metric.*.
func (in *interp) metrics(vs []lua.LValue, rounds int, what string) ([]core.Metric, []experiment.Component, error) {
	var out []core.Metric
	var ids []experiment.Component
	for i, v := range vs {
		c, err := in.metricComponent(v, fmt.Sprintf("%s element %d", what, i+1))
		if err != nil {
			return nil, nil, err
		}
		m, err := build[core.Metric](in, c, rounds)
		if err != nil {
			return nil, nil, err
		}
		id, err := in.componentID(c, rounds)
		if err != nil {
			return nil, nil, err
		}
		out, ids = append(out, m), append(ids, id)
	}
	return out, ids, nil
}

// metricComponent accepts a metric name or a fedlab.metric.* component.
func (in *interp) metricComponent(v lua.LValue, what string) (*component, error) {
	name, ok := v.(lua.LString)
	if !ok {
		return asComponent(v, registry.Metric, what)
	}
	args, err := registry.Validate(registry.Metric, string(name), nil)
	if err != nil {
		return nil, err
	}
	return &component{spec: args.Spec(), label: string(name), raw: map[string]any{}}, nil
}
