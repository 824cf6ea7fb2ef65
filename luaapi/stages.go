package luaapi

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/pipeline"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/sched"
	lua "github.com/yuin/gopher-lua"
)

// restartChoices are the restart modes, with "warm" an alias of "last".
var restartChoices = []string{"last", "warm", "average", "top", "rank", "init"}

// fnStages is fedlab.stages{ problem =, seeds =, restart =, ..., {stage},
// {stage}, ... }: a multistage pipeline (package pipeline) run once per
// seed; it returns the list of results, one per seed, like fedlab.compare.
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
	f.fail(err)
	label := f.str("label", "stages")
	restart := f.str("restart", "last", restartChoices...)
	keep := f.integer("keep", 0, 0)
	var seeds []uint64
	for _, s := range f.integers("seeds", 0) {
		seeds = append(seeds, uint64(s))
	}
	if len(seeds) == 0 {
		seeds = []uint64{1}
	}
	s := core.Settings{
		ClientsPerRound: f.integer("clients_per_round", 0, 0),
		LocalSteps:      f.integer("local_steps", 0, 0),
		LocalEpochs:     f.integer("epochs", 0, 0),
		Batch:           f.integer("batch", 0, 0),
		EvalEvery:       f.integer("eval_every", 0, 0),
		Init:            f.str("init", "zeros", "zeros", "normal"),
		InitScale:       f.number("init_scale", 0.01, 0),
		Workers:         in.opts.Workers,
	}
	if s.Workers <= 0 {
		s.Workers = runtime.NumCPU()
	}
	metricValues := f.list("metrics")
	if err := f.error(); err != nil {
		return 0, err
	}
	if f.get("metrics") == lua.LNil {
		metricValues = []lua.LValue{lua.LString("objective")}
	}
	if len(stageTables) == 0 {
		return 0, fmt.Errorf("%s: no stages; list them as tables, e.g. { algo = fedlab.algo.cfedda{ L = 600 }, lambda = 0.1, rounds = 100 }", fn)
	}

	// Rounds first: Lua functions of the round are tabulated for the whole pipeline.
	total := 0
	for i, st := range stageTables {
		v := st.RawGetString("rounds")
		if v == lua.LNil {
			return 0, fmt.Errorf("%s: stage %d: missing required key \"rounds\"", fn, i+1)
		}
		r, err := integer(v, 0, fmt.Sprintf("%s: stage %d: key \"rounds\"", fn, i+1))
		if err != nil {
			return 0, err
		}
		total += r
	}
	stages := make([]pipeline.Stage, len(stageTables))
	for i, st := range stageTables {
		if stages[i], err = in.readStage(fn, i, st, total); err != nil {
			return 0, err
		}
	}
	cp, err := in.coreProblem(p, total)
	if err != nil {
		return 0, err
	}
	metrics, _, err := in.metrics(metricValues, total, f.what("metrics"))
	if err != nil {
		return 0, err
	}
	pl, err := pipeline.New(pipeline.Spec{Problem: cp, Stages: stages, Settings: s, Metrics: metrics,
		Restart: pipeline.Restart(canonicalRestart(restart)), Keep: keep})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", fn, err)
	}

	algoName := strings.Join(pl.Algorithms(), "+")
	params := stageParams(pl, len(stages))
	runs := make([]experiment.Run, len(seeds))
	for i, seed := range seeds {
		prog := in.stagesProgress(label, seed, i, len(seeds))
		res := pl.Run(seed, 0, 0, prog)
		if prog != nil {
			prog(-1, 0)
		}
		runs[i] = experiment.Run{Label: label, Algorithm: algoName, Seed: seed, Params: params, Layout: cp.Layout, Result: res}
	}
	out := L.CreateTable(len(runs), 0)
	for i := range runs {
		t := in.result(&runs[i])
		t.RawSetString("stages", in.stagesTable(pl, stages))
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
			if i != math.Trunc(i) || i < 1 || int(i) > n {
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
	return named, stages, err
}

// readStage decodes stage i.
func (in *interp) readStage(fn string, i int, t *lua.LTable, total int) (pipeline.Stage, error) {
	what := fmt.Sprintf("%s: stage %d", fn, i+1)
	f := stageCall.readAs(what, t)
	var st pipeline.Stage
	if a := f.component("algo", registry.Algorithm); a != nil {
		raw, err := in.resolve(a.raw, total)
		if err != nil {
			return st, err
		}
		st.Algorithm, st.Params = a.spec.Name, raw
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

// stageLambda reads a stage's λ: a number, a schedule from
// fedlab.schedule.*, or a Lua function of the (global) round; nil if absent.
func (in *interp) stageLambda(v lua.LValue, what string, total int) (sched.Schedule, error) {
	var s sched.Schedule
	switch x := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LNumber:
		s = sched.Constant(float64(x))
	case *lua.LFunction:
		t, err := (&luaSchedule{fn: x, title: what, param: "lambda"}).resolve(in, total)
		if err != nil {
			return nil, err
		}
		s = t
	case *lua.LUserData:
		c, ok := x.Value.(*component)
		if !ok || c.spec.Kind != registry.Schedule {
			return nil, fmt.Errorf("%s: expected a number, a schedule or a function of the round, got %s", what, typeText(v))
		}
		if c.value != nil {
			s = c.value.(sched.Schedule)
		} else {
			var err error
			if s, err = (pendingSchedule{c}).resolve(in, total); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("%s: expected a number, a schedule or a function of the round, got %s", what, typeText(v))
	}
	for r := range max(total, 1) {
		if x := s.At(r); !(x >= 0) || math.IsInf(x, 1) {
			return nil, fmt.Errorf("%s: λ must be a finite number ≥ 0, got %g at round %d", what, x, r)
		}
	}
	return s, nil
}

// canonicalRestart maps the alias "warm" to "last".
func canonicalRestart(r string) string {
	if r == "warm" {
		return "last"
	}
	return r
}

// stageParams describes the stages for Result.params: stage1, stage2, ...
// each as "name {param = value, ...} lambda = ... rounds = ... restart = ...".
func stageParams(pl *pipeline.Pipeline, n int) map[string]any {
	out := map[string]any{"stages": n}
	bounds := pl.Boundaries()
	for i := range n {
		name, params, restart, keep, lambda := pl.StageParams(i)
		keys := make([]string, 0, len(params))
		for k := range params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for j, k := range keys {
			parts[j] = fmt.Sprintf("%s = %v", k, params[k])
		}
		desc := fmt.Sprintf("%s {%s} lambda = %s rounds = %d from round %d restart = %s", name, strings.Join(parts, ", "),
			scheduleText(lambda), stageRounds(pl, i), bounds[i], restart)
		if restart == pipeline.Top || restart == pipeline.Rank {
			desc += fmt.Sprintf(" keep = %d", keep)
		}
		out[fmt.Sprintf("stage%d", i+1)] = desc
	}
	return out
}

func stageRounds(pl *pipeline.Pipeline, i int) int {
	b := pl.Boundaries()
	if i+1 < len(b) {
		return b[i+1] - b[i]
	}
	return pl.Rounds() - (b[i] - b[0])
}

func scheduleText(s sched.Schedule) string {
	switch x := s.(type) {
	case sched.Constant:
		return fmt.Sprintf("%g", float64(x))
	case sched.Table:
		return "function"
	}
	return fmt.Sprint(s)
}

// stagesTable is the result's field stages: one table per stage with its
// first round, rounds, algorithm, λ (at its first round), restart and
// algorithm parameters.
func (in *interp) stagesTable(pl *pipeline.Pipeline, stages []pipeline.Stage) *lua.LTable {
	L := in.L
	out := L.CreateTable(len(stages), 0)
	bounds := pl.Boundaries()
	for i := range stages {
		name, params, restart, keep, lambda := pl.StageParams(i)
		t := L.NewTable()
		t.RawSetString("start", lua.LNumber(bounds[i]))
		t.RawSetString("rounds", lua.LNumber(stageRounds(pl, i)))
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

// stagesProgress returns a progress callback for one pipeline run (nil
// when quiet): a line on standard error once the run takes longer than two
// seconds, refreshed at most twice a second; done < 0 ends the line.
func (in *interp) stagesProgress(label string, seed uint64, i, n int) func(done, total int) {
	if in.opts.Quiet || in.opts.Stderr == nil {
		return nil
	}
	start, last, shown := time.Now(), time.Time{}, false
	return func(done, total int) {
		now := time.Now()
		if done < 0 {
			if shown {
				fmt.Fprintln(in.opts.Stderr)
			}
			return
		}
		if now.Sub(start) < 2*time.Second || now.Sub(last) < 500*time.Millisecond {
			return
		}
		fmt.Fprintf(in.opts.Stderr, "\rstages %s %d/%d (seed %d): round %d/%d, %s   ", label, i+1, n, seed, done, total,
			now.Sub(start).Round(100*time.Millisecond))
		last, shown = now, true
	}
}
