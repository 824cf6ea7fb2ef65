package luaapi

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/experiment/pipeline"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// restartChoices are the restart modes, with "warm" an alias of "last".
var restartChoices = []string{"last", "warm", "average", "top", "rank", "init"}

// fnStages is fedlab.stages{ problem =, seeds =, restart =, ..., {stage},
// {stage}, ... }: a multistage pipeline (package pipeline) run once per
// seed, planned and executed through the run directory like
// fedlab.compare (resume, shards, keys); it returns the list of results,
// one per seed.
func (in *interp) fnStages(L *lua.LState) (int, error) {
	const fn = "fedlab.stages"
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return 0, fmt.Errorf("%s: expected a table of settings and stages, got %s", fn, typeText(L.Get(1)))
	}
	if L.GetTop() > 1 {
		return 0, fmt.Errorf("%s takes one table, got %d arguments", fn, L.GetTop())
	}
	named, stageTables, err := splitStages(fn, t)
	if err != nil {
		return 0, err
	}
	f := stagesCall.read(named)
	p, err := asProblem(f.get("problem"), f.what("problem"))
	if f.get("problem") != lua.LNil {
		f.fail(err)
	}
	st := plan.Stages{Label: f.str("label", "stages"), Restart: pipeline.Restart(canonicalRestart(f.str("restart", "last", restartChoices...))),
		Keep: f.integer("keep", 0, 0), Seeds: readSeeds(f), Settings: in.readSettings(f)}
	metricValues := f.list("metrics")
	name := f.callName()
	if err := f.error(); err != nil {
		return 0, err
	}
	if len(stageTables) == 0 {
		return 0, fmt.Errorf("%s: no stages; list them as tables, e.g. { algo = fedlab.algo.cfedda{ L = 600 }, lambda = 0.1, rounds = 100 }", fn)
	}
	// Rounds first: Lua functions of the round are tabulated for the whole pipeline.
	total := 0
	for i, t := range stageTables {
		v := t.RawGetString("rounds")
		if v == lua.LNil {
			return 0, fmt.Errorf("%s: stage %d: missing required key \"rounds\"", fn, i+1)
		}
		r, err := integer(v, 0, fmt.Sprintf("%s: stage %d: key \"rounds\"", fn, i+1))
		if err != nil {
			return 0, err
		}
		total += r
	}
	for i, t := range stageTables {
		s, err := in.readStage(fn, i, t, total)
		if err != nil {
			return 0, err
		}
		st.Stages = append(st.Stages, s)
	}
	if st.Problem, err = in.planProblem(p, total); err != nil {
		return 0, err
	}
	if f.get("metrics") != lua.LNil {
		if st.Metrics, err = in.planMetrics(metricValues, total, f.what("metrics")); err != nil {
			return 0, err
		}
	}
	jobs, pl, err := in.builder.Stages(st)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", fn, err)
	}
	runs, err := in.execute(experiment.Call{Function: fn, Where: in.where(), Name: name}, jobs)
	if err != nil {
		return 0, err
	}
	out := L.CreateTable(len(runs), 0)
	for i := range runs {
		t := in.result(&runs[i])
		t.RawSetString("stages", in.stagesTable(pl))
		out.Append(t)
	}
	L.Push(out)
	return 1, nil
}

// splitStages separates the named keys of t from its list of stage tables.
func splitStages(fn string, t *lua.LTable) (*lua.LTable, []*lua.LTable, error) {
	named := &lua.LTable{}
	n := t.Len()
	stages := make([]*lua.LTable, n)
	var err error
	t.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		switch key := k.(type) {
		case lua.LString:
			named.RawSetString(string(key), v)
		case lua.LNumber:
			i := float64(key)
			if i != math.Trunc(i) || i < 1 || i > float64(n) { // compared as floats: int(2^63) is undefined
				err = fmt.Errorf("%s: the stages must be a list (1, 2, …, n), got the key %s", fn, key)
				return
			}
			st, ok := v.(*lua.LTable)
			if !ok {
				err = fmt.Errorf("%s: stage %d: expected a table { algo =, lambda =, rounds =, … }, got %s", fn, int(i), typeText(v))
				return
			}
			stages[int(i)-1] = st
		default:
			err = fmt.Errorf("%s: unexpected key %s", fn, keyText(k))
		}
	})
	for i, st := range stages {
		if err == nil && st == nil {
			err = fmt.Errorf("%s: stage %d is missing (nil, or a hole in the list): the stages must be the list 1, 2, …, %d", fn, i+1, n)
		}
	}
	return named, stages, err
}

// readStage decodes stage i; Lua functions are tabulated for the total
// rounds of the pipeline.
func (in *interp) readStage(fn string, i int, t *lua.LTable, total int) (plan.Stage, error) {
	what := fmt.Sprintf("%s: stage %d", fn, i+1)
	f := stageCall.readAs(what, t)
	var st plan.Stage
	if a := f.component("algo", registry.Algorithm); a != nil {
		pa, err := in.planAlgorithm(a, total)
		if err != nil {
			return st, err
		}
		st.Algorithm = &pa
	}
	st.Rounds = f.integer("rounds", 0, 0)
	st.LocalSteps = f.integer("local_steps", 0, 0)
	st.Radius = f.number("radius", 0, 0)
	st.Keep = f.integer("keep", 0, 0)
	if r := f.str("restart", "", restartChoices...); r != "" {
		st.Restart = pipeline.Restart(canonicalRestart(r))
	}
	if err := f.error(); err != nil {
		return st, err
	}
	lam, err := in.stageLambda(f.get("lambda"), f.what("lambda"), total)
	if err != nil {
		return st, err
	}
	st.Lambda = lam
	return st, nil
}

// stageLambda reads a stage's λ as a plan value: a number, a schedule from
// fedlab.schedule.*, or a Lua function of the (global) round, tabulated;
// nil if absent.
func (in *interp) stageLambda(v lua.LValue, what string, total int) (any, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LNumber:
		return float64(x), nil
	case *lua.LFunction:
		return (&luaSchedule{fn: x, title: what, param: "lambda"}).tabulate(in, total)
	}
	if c := componentOf(v); c != nil && c.spec.Kind == registry.Schedule {
		return in.planComponent(c, total)
	}
	return nil, fmt.Errorf("%s: expected a number, a schedule or a function of the round, got %s", what, typeText(v))
}

// canonicalRestart maps the alias "warm" to "last".
func canonicalRestart(r string) string {
	if r == "warm" {
		return "last"
	}
	return r
}

// stagesTable is the result's field stages: one table per stage with its
// first round, rounds, algorithm, λ (at its first round), restart and
// algorithm parameters.
func (in *interp) stagesTable(pl *pipeline.Pipeline) *lua.LTable {
	L := in.L
	n := len(pl.Algorithms())
	out := L.CreateTable(n, 0)
	bounds := pl.Boundaries()
	for i := range n {
		name, params, restart, keep, lambda := pl.StageParams(i)
		t := L.NewTable()
		t.RawSetString("start", lua.LNumber(bounds[i]))
		t.RawSetString("rounds", lua.LNumber(pl.StageRounds(i)))
		t.RawSetString("algorithm", lua.LString(name))
		t.RawSetString("lambda", lua.LNumber(lambda.At(bounds[i])))
		t.RawSetString("restart", lua.LString(restart))
		if keep > 0 {
			t.RawSetString("keep", lua.LNumber(keep))
		}
		pt := L.NewTable()
		for k, v := range params {
			pt.RawSetString(k, in.paramToLua(v))
		}
		t.RawSetString("params", pt)
		out.Append(t)
	}
	return out
}
