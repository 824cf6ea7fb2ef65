package luaapi

import (
	"fmt"
	"slices"

	"github.com/fedlab/fedlab/experiment"
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
	names := make([]string, len(c.metrics))
	for i, m := range c.metrics {
		names[i] = m.Name()
	}
	for _, r := range rules {
		if !slices.Contains(names, r.Metric) {
			return 0, fmt.Errorf("fedlab.sweep: key \"select\": metric %q is not measured (metrics: %v)", r.Metric, names)
		}
	}
	plan, err := in.planSweep(c, algos, configs, seeds)
	if err != nil {
		return 0, fmt.Errorf("fedlab.sweep: %w", err)
	}
	runs, err := in.execute(c, rules, plan.jobs)
	if err != nil {
		return 0, err
	}
	s := &sweep{rules: rules, runs: runs, sels: experiment.Select(runs, rules)}
	t := L.NewTable()
	results := in.results(runs)
	t.RawSetString("runs", results)
	t.RawSetString("best", in.best(s, plan, results))
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

// sweepPlan is a sweep's jobs and what built them.
type sweepPlan struct {
	jobs     []experiment.Job
	algos    []*component
	configs  []sweepConfig
	keys     []string   // configs[i].config().String()
	problems []*problem // per configuration
}

// planSweep builds the jobs in the order algorithms × configurations ×
// seeds; configurations with the same problem settings share one problem.
func (in *interp) planSweep(c *call, algos []*component, configs []sweepConfig, seeds []uint64) (*sweepPlan, error) {
	p := &sweepPlan{algos: algos, configs: configs}
	problems := map[string]*problem{}
	bases := map[*problem]experiment.Base{}
	for _, cfg := range configs {
		p.keys = append(p.keys, cfg.config().String())
		parts := sweepConfig(slices.DeleteFunc(slices.Clone(cfg), func(s setting) bool { return s.part == algoPart }))
		key := parts.config().String()
		prob, ok := problems[key]
		if !ok {
			var err error
			if prob, err = in.withSettings(c.problem, parts); err != nil {
				return nil, err
			}
			if bases[prob], err = in.base(c, prob); err != nil {
				return nil, err
			}
			problems[key] = prob
		}
		p.problems = append(p.problems, prob)
	}
	specs := make([]experiment.AlgoSpec, len(algos))
	for i, a := range algos {
		specs[i].Label = a.label
		for j, cfg := range configs {
			da, err := derive(a, cfg.of(algoPart))
			if err != nil {
				return nil, err
			}
			spec, err := in.algoSpec(c, da)
			if err != nil {
				return nil, err
			}
			js, err := experiment.Jobs(bases[p.problems[j]], spec, cfg.config(), seeds)
			if err != nil {
				return nil, err
			}
			p.jobs = append(p.jobs, js...)
		}
	}
	return p, experiment.DistinctLabels(specs)
}

// best builds the list of selected configurations, one entry per
// algorithm: { label=, config=, score=, scores=, runs=, algorithm=,
// problem= } (only label and error when nothing could be selected).
func (in *interp) best(s *sweep, p *sweepPlan, results *lua.LTable) *lua.LTable {
	L := in.L
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
		ci := slices.Index(p.keys, cand.Config.String())
		cfg := L.NewTable()
		for _, st := range p.configs[ci] {
			cfg.RawSetString(st.key, st.value)
		}
		e.RawSetString("config", cfg)
		e.RawSetString("score", lua.LNumber(cand.Scores[0]))
		e.RawSetString("scores", in.numbers(cand.Scores))
		runs := L.NewTable()
		for j, r := range s.runs {
			if r.Label == sel.Label && r.Config.String() == p.keys[ci] {
				runs.Append(results.RawGetInt(j + 1))
			}
		}
		e.RawSetString("runs", runs)
		// derive succeeded for this configuration when the sweep was planned
		algo, _ := derive(p.algos[i], p.configs[ci].of(algoPart))
		e.RawSetString("algorithm", in.userdata(algo))
		e.RawSetString("problem", in.userdata(p.problems[ci]))
	}
	return out
}
