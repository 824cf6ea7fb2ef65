package luaapi

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

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

// algorithmsAndSeeds reads the keys algorithms and seeds.
func (in *interp) algorithmsAndSeeds(f *fields) ([]*component, []uint64) {
	var algos []*component
	for i, v := range f.list("algorithms") {
		c, err := asComponent(v, registry.Algorithm, fmt.Sprintf("%s element %d", f.what("algorithms"), i+1))
		f.fail(err)
		algos = append(algos, c)
	}
	return algos, readSeeds(f)
}

// readSeeds reads the key seeds: { 1 } when absent; an empty list or a seed
// given twice (the runs would be the same, and their spread zero) is an
// error.
func readSeeds(f *fields) []uint64 {
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

// call is what the runs of one fedlab.run, fedlab.compare or fedlab.sweep
// call share, decoded: the plan values, Lua functions tabulated for the
// call's rounds.
type call struct {
	fn, where string
	name      string // the call's name key
	problem   *problem
	plan      plan.Problem
	settings  core.Settings
	metrics   []plan.Component
	system    plan.System
}

// readCall reads the shared settings.
func (in *interp) readCall(f *fields) (*call, error) {
	p, err := asProblem(f.get("problem"), f.what("problem"))
	if f.get("problem") != lua.LNil {
		f.fail(err)
	}
	s := in.readSettings(f)
	s.Rounds = f.integer("rounds", 0, 0)
	name := f.callName()
	system := in.readSystem(f, s.Rounds)
	metricValues := f.list("metrics")
	if err := f.error(); err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", f.fn(), err)
	}
	c := &call{fn: f.fn(), where: in.where(), name: name, problem: p, settings: s, system: system}
	if c.plan, err = in.planProblem(p, s.Rounds); err != nil {
		return nil, err
	}
	if f.get("metrics") != lua.LNil {
		c.metrics, err = in.planMetrics(metricValues, s.Rounds, f.what("metrics"))
	}
	return c, err
}

// readSettings reads the engine settings shared by the calls that run
// (all but rounds, which fedlab.stages does not take).
func (in *interp) readSettings(f *fields) core.Settings {
	return core.Settings{
		ClientsPerRound:  f.integer("clients_per_round", 0, 0),
		LocalSteps:       f.integer("local_steps", 0, 0),
		LocalEpochs:      f.integer("epochs", 0, 0),
		Batch:            f.integer("batch", 0, 0),
		EvalEvery:        f.integer("eval_every", 0, 0),
		Init:             f.str("init", core.InitDefault, core.InitDefault, core.InitZeros, core.InitNormal, "kaiming_uniform"),
		InitScale:        f.number("init_scale", 0.01, 0),
		Divergence:       f.divergence(),
		CheckpointRounds: f.integer("checkpoint_rounds", 0, 0),
	}
}

// divergence reads the divergence factor: a number > 1 or math.huge; 0
// (the engine's default) if absent.
func (f *fields) divergence() float64 {
	switch v := f.get("divergence").(type) {
	case *lua.LNilType:
		return 0
	case lua.LNumber:
		if !(v > 1) {
			f.fail(fmt.Errorf("%s: expected a factor > 1 (or math.huge: only a NaN/Inf model diverges), got %v", f.what("divergence"), v))
		}
		return float64(v)
	default:
		f.fail(fmt.Errorf("%s: expected a number, got %s", f.what("divergence"), typeText(v)))
		return 0
	}
}

// where is the script position of the calling line ("script.lua:12").
func (in *interp) where() string { return strings.TrimSuffix(in.L.Where(1), ":") }

// compare plans every algorithm once per seed and executes the runs.
func (in *interp) compare(c *call, algos []*component, seeds []uint64) ([]experiment.Run, error) {
	cmp := plan.Compare{Problem: c.plan, Settings: c.settings, Metrics: c.metrics, Seeds: seeds, System: c.system}
	for _, a := range algos {
		pa, err := in.planAlgorithm(a, c.settings.Rounds)
		if err != nil {
			return nil, err
		}
		cmp.Algorithms = append(cmp.Algorithms, pa)
	}
	jobs, err := in.builder.Compare(cmp)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.fn, err)
	}
	return in.execute(experiment.Call{Function: c.fn, Where: c.where, Name: c.name}, jobs)
}

// execute runs the jobs of a call in the run directory: c names its
// function, place, name (if not ""), selection rules and halving rung.
func (in *interp) execute(c experiment.Call, jobs []experiment.Job) ([]experiment.Run, error) {
	if err := in.checkArgsRead("before its first run"); err != nil {
		return nil, err
	}
	runs, err := in.session.ExecuteCall(c, jobs)
	if err != nil {
		in.stop = storageError(c.Function, c.Where, err)
		return nil, in.stop
	}
	if in.dry != nil {
		in.planned(c.Function, c.Where, c.Name, jobs)
	}
	return runs, nil
}

// storageError places an error of the run directory at the call (fn at
// where) unless it says where it stopped itself (an interruption, a
// shard's stop), and says what a full disk leaves behind.
func storageError(fn, where string, err error) error {
	var interrupted *experiment.Interrupted
	var stopped *experiment.Stopped
	switch {
	case errors.As(err, &interrupted) || errors.As(err, &stopped):
		return err
	case errors.Is(err, syscall.ENOSPC):
		return fmt.Errorf("%s: %s: the disk is full, storing its runs failed (the runs stored before are kept: free space and run the script again to resume): %w", where, fn, err)
	}
	return fmt.Errorf("%s: %s: %w", where, fn, err)
}
