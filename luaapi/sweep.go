package luaapi

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/present/report"
	lua "github.com/yuin/gopher-lua"
)

// sweep is the Go side of a table returned by fedlab.sweep.
type sweep struct {
	rules []experiment.Rule
	runs  []experiment.Run
	sels  []experiment.Selection
}

// fnSweep is fedlab.sweep{problem=, algorithms=, seeds=, grid=, configs=,
// select=, ...}: every algorithm under every configuration once per seed,
// the runs executed in parallel; returns { runs = {...}, best = {...} }.
func (in *interp) fnSweep(L *lua.LState) (int, error) {
	f, err := tableArg(L, sweepCall)
	if err != nil {
		return 0, err
	}
	algos, seeds := in.algorithmsAndSeeds(f)
	rules := readRules(f)
	configs := in.readConfigs(f)
	c, err := in.readCall(f)
	if err != nil {
		return 0, err
	}
	sw := plan.Sweep{Compare: plan.Compare{Problem: c.plan, Settings: c.settings, Metrics: c.metrics, Seeds: seeds,
		System: c.system},
		Select: rules}
	for _, a := range algos {
		pa, err := in.planAlgorithm(a, c.settings.Rounds)
		if err != nil {
			return 0, err
		}
		sw.Algorithms = append(sw.Algorithms, pa)
	}
	for _, cfg := range configs {
		settings := make([]plan.Setting, len(cfg))
		for i, st := range cfg {
			v, err := in.planValue(st.value, c.settings.Rounds, st.key)
			if err != nil {
				return 0, err
			}
			settings[i] = plan.Setting{Key: st.key, Value: v, Shown: goValue(st.value)}
		}
		sw.Configs = append(sw.Configs, settings)
	}
	var s *sweep
	h, halving := readHalving(f, c.settings)
	if err := f.error(); err != nil {
		return 0, err
	}
	if halving {
		if s, err = in.halvingSweep(c, sw, h, rules); err != nil {
			return 0, err
		}
	} else {
		jobs, err := in.builder.Sweep(sw)
		if err != nil {
			return 0, fmt.Errorf("fedlab.sweep: %w", err)
		}
		runs, err := in.execute(experiment.Call{Function: c.fn, Where: c.where, Name: c.name, Select: rules}, jobs)
		if err != nil {
			return 0, err
		}
		s = &sweep{rules: rules, runs: runs, sels: experiment.Select(runs, rules)}
	}
	runs := s.runs
	for _, sel := range s.sels {
		if in.dry != nil {
			continue // a dry run's best is its first configuration, not a finding at an edge
		}
		for _, e := range sel.Edges() {
			fmt.Fprintf(cmp.Or[io.Writer](in.opts.Stderr, os.Stderr), "fedlab: %s %s: %s: edge of the grid: %s\n", c.where, c.fn, escape.Line(sel.Label), report.EdgeWarning(e))
		}
	}
	t := L.NewTable()
	results := in.results(runs)
	t.RawSetString("runs", results)
	t.RawSetString("best", in.best(s, c.problem, algos, configs, results))
	in.sweeps[t] = s
	L.Push(t)
	return 1, nil
}

// readRules reads select = rule or { rule, rule, ... }.
func readRules(f *fields) []experiment.Rule {
	t, ok := f.get("select").(*lua.LTable)
	if !ok {
		if f.get("select") != lua.LNil {
			f.fail(fmt.Errorf("%s: expected a rule table, got %s", f.what("select"), typeText(f.get("select"))))
		}
		return nil
	}
	tables := []lua.LValue{t}
	if t.RawGetString("metric") == lua.LNil && t.Len() > 0 {
		var err error
		tables, err = list(t, f.what("select"))
		f.fail(err)
	}
	var rules []experiment.Rule
	for i, v := range tables {
		what := f.what("select")
		if len(tables) > 1 {
			what = fmt.Sprintf("%s element %d", what, i+1)
		}
		rt, ok := v.(*lua.LTable)
		if !ok {
			f.fail(fmt.Errorf("%s: expected a rule table, got %s", what, typeText(v)))
			continue
		}
		rf := ruleCall.readAs(what, rt)
		r := experiment.Rule{Metric: rf.str("metric", ""), Mode: rf.str("mode", "", "max", "min"), Last: rf.integer("last", 0, 0)}
		f.fail(rf.error())
		rules = append(rules, r)
	}
	return rules
}

// readConfigs reads grid and configs: the grid's configurations, then the
// explicit ones.
func (in *interp) readConfigs(f *fields) []sweepConfig {
	var out []sweepConfig
	switch g := f.get("grid").(type) {
	case *lua.LNilType:
	case *lua.LTable:
		cs, err := parseGrid(g, f.what("grid"))
		f.fail(err)
		out = cs
	default:
		f.fail(fmt.Errorf("%s: expected a table { key = { values... } }, got %s", f.what("grid"), typeText(g)))
	}
	for i, v := range f.list("configs") {
		c, err := parseConfig(v, fmt.Sprintf("%s element %d", f.what("configs"), i+1))
		f.fail(err)
		out = append(out, c)
	}
	if len(out) == 0 && f.error() == nil {
		f.fail(fmt.Errorf("%s: give grid = { key = { values... } } or configs = { { key = value }, ... }", f.fn()))
	}
	return out
}

// best builds the list of selected configurations, one entry per
// algorithm: { label=, config=, score=, scores=, runs=, algorithm=,
// problem= } (only label and error when nothing could be selected).
func (in *interp) best(s *sweep, prob *problem, algos []*component, configs []sweepConfig, results *lua.LTable) *lua.LTable {
	L := in.L
	keys := make([]string, len(configs))
	for i, c := range configs {
		keys[i] = c.config().String()
	}
	out := L.NewTable()
	for i, sel := range s.sels {
		e := L.NewTable()
		e.RawSetString("label", lua.LString(sel.Label))
		out.Append(e)
		if sel.Best < 0 {
			e.RawSetString("error", lua.LString("no configuration finished with a score on every seed"))
			continue
		}
		cand := sel.Candidates[sel.Best]
		ci := slices.Index(keys, cand.Config.String())
		cfg := L.NewTable()
		for _, st := range configs[ci] {
			cfg.RawSetString(st.key, st.value)
		}
		e.RawSetString("config", cfg)
		e.RawSetString("score", lua.LNumber(cand.Scores[0]))
		e.RawSetString("scores", in.numbers(cand.Scores))
		runs := L.NewTable()
		for j, r := range s.runs {
			if r.Label == sel.Label && r.Config.String() == keys[ci] {
				runs.Append(results.RawGetInt(j + 1))
			}
		}
		e.RawSetString("runs", runs)
		// the plan accepted this configuration, so its components derive
		algo, _ := in.derive(algos[i], configs[ci].of(algoPart))
		e.RawSetString("algorithm", in.userdata(algo))
		parts := sweepConfig(slices.DeleteFunc(slices.Clone(configs[ci]), func(s setting) bool { return s.part == algoPart }))
		p, _ := in.withSettings(prob, parts)
		e.RawSetString("problem", in.userdata(p))
	}
	return out
}

// readHalving reads the halving key of fedlab.sweep; ok is false without it.
func readHalving(f *fields, s core.Settings) (experiment.Halving, bool) {
	v := f.get("halving")
	if v == lua.LNil {
		return experiment.Halving{}, false
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		f.fail(fmt.Errorf("%s: expected a table { eta =, first = }, got %s", f.what("halving"), typeText(v)))
		return experiment.Halving{}, false
	}
	hf := halvingCall.readAs(f.what("halving"), t)
	h := experiment.Halving{Eta: hf.number("eta", experiment.DefaultEta, 1), First: hf.integer("first", 0, 1)}.For(s)
	f.fail(hf.error())
	if hf.error() != nil { // its message names the key; the values read are defaults
		return h, false
	}
	if _, err := h.Rungs(s.Rounds); err != nil {
		f.fail(fmt.Errorf("%s: %w", f.what("halving"), err))
	}
	return h, f.error() == nil
}

// halvingSweep runs sw by successive halving (plan.Builder.Halve), each
// rung one call of the run directory, named after it and marked with it
// (experiment.Rungs). The planner's notes (survivors that are recomputed
// rather than continued) go to the standard error.
func (in *interp) halvingSweep(c *call, sw plan.Sweep, h experiment.Halving, rules []experiment.Rule) (*sweep, error) {
	if err := in.checkArgsRead("before its first run"); err != nil {
		return nil, err
	}
	res, err := in.builder.Halve(sw, h, experiment.Rungs(in.session, experiment.Call{Function: c.fn, Where: c.where, Name: c.name, Select: rules}))
	if in.dry != nil && res != nil {
		for _, r := range res.Rungs {
			in.planned(c.fn, c.where, r.Rung.Name(c.name), r.Jobs)
		}
	}
	var rerr *plan.RungError
	switch {
	case errors.As(err, &rerr):
		in.stop = storageError(c.fn, c.where, rerr.Err)
		return nil, in.stop
	case err != nil:
		return nil, fmt.Errorf("%s: %w", c.fn, err)
	}
	if in.dry == nil {
		for _, n := range res.Notes {
			fmt.Fprintf(cmp.Or[io.Writer](in.opts.Stderr, os.Stderr), "fedlab: %s %s: halving: %s\n", c.where, c.fn, escape.Line(n))
		}
	}
	return &sweep{rules: rules, runs: res.Runs, sels: res.Selections}, nil
}
