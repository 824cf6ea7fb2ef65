package plan

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/experiment/pipeline"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// seedsOr1 returns seeds, or seed 1 if there are none.
func seedsOr1(seeds []uint64) []uint64 {
	if len(seeds) == 0 {
		return []uint64{1}
	}
	return seeds
}

// Compare returns the jobs of c: every algorithm once per seed, in that
// order.
func (b *Builder) Compare(c Compare) ([]experiment.Job, error) {
	if err := distinctLabels(c.Algorithms); err != nil {
		return nil, err
	}
	if err := b.checkSettings(c.Settings, c.Metrics); err != nil {
		return nil, err
	}
	base, err := b.baseWith(c.Problem, c.Settings, c.Metrics, c.System)
	if err != nil {
		return nil, err
	}
	var jobs []experiment.Job
	for _, a := range c.Algorithms {
		r, err := b.resolve(a.Component, registry.Algorithm)
		if err != nil {
			return nil, err
		}
		if err := checkEffects(base, r.args); err != nil {
			return nil, err
		}
		jobs = append(jobs, experiment.NewJobs(base, a.label(), r.args, r.id, nil, seedsOr1(c.Seeds))...)
	}
	return jobs, b.checkStates(jobs)
}

// distinctLabels checks that there are algorithms and no two share a label.
func distinctLabels(algos []Algorithm) error {
	specs := make([]experiment.AlgoSpec, len(algos))
	for i, a := range algos {
		specs[i] = experiment.AlgoSpec{Name: a.Name, Label: a.Label}
	}
	return experiment.DistinctLabels(specs)
}

// problemParts are the parts of a problem a swept key can address.
var problemParts = []string{"data", "loss", "reg", "mirror"}

// algoPart is the optional prefix of swept algorithm keys ("algo.eta_c").
const algoPart = "algo"

// SplitKey splits a swept key into the part it addresses ("algo" or one of
// data, loss, reg, mirror) and the parameter.
func SplitKey(key string) (part, param string, err error) {
	part, param, dotted := strings.Cut(key, ".")
	switch {
	case !dotted:
		return algoPart, key, nil
	case part == algoPart || slices.Contains(problemParts, part):
		return part, param, nil
	}
	return "", "", fmt.Errorf("key %q: %q is not a part of the problem (swept keys are algorithm parameters such as eta_c, or %s.PARAM)",
		key, part, strings.Join(problemParts, ".PARAM, "))
}

// Sweep returns the jobs of s in the order algorithms × configurations ×
// seeds; configurations with the same problem settings share one problem.
func (b *Builder) Sweep(s Sweep) ([]experiment.Job, error) {
	if err := distinctLabels(s.Algorithms); err != nil {
		return nil, err
	}
	if len(s.Configs) == 0 {
		return nil, fmt.Errorf("a sweep needs configurations (a grid or explicit ones)")
	}
	if len(s.Select) == 0 {
		return nil, fmt.Errorf("a sweep needs a selection rule")
	}
	if err := b.checkSettings(s.Settings, s.Metrics); err != nil {
		return nil, err
	}
	type config struct {
		base  experiment.Base
		algo  map[string]any // swept algorithm parameters
		shown experiment.Config
	}
	configs := make([]config, len(s.Configs))
	for i, settings := range s.Configs {
		if err := b.stopped(); err != nil {
			return nil, err
		}
		p, algo, shown, err := apply(s.Problem, settings)
		if err != nil {
			return nil, err
		}
		base, err := b.baseWith(p, s.Settings, s.Metrics, s.System)
		if err != nil {
			return nil, err
		}
		configs[i] = config{base: base, algo: algo, shown: shown}
	}
	names := make([]string, len(configs[0].base.Metrics))
	for i, m := range configs[0].base.Metrics {
		names[i] = m.Name()
	}
	for _, r := range s.Select {
		if err := r.Check(); err != nil {
			return nil, err
		}
		if !slices.Contains(names, r.Metric) {
			return nil, fmt.Errorf("selection metric %q is not measured%s; metrics: %s", r.Metric, registry.DidYouMean(r.Metric, names), strings.Join(names, ", "))
		}
	}
	var jobs []experiment.Job
	for _, a := range s.Algorithms {
		spec, ok := registry.Lookup(registry.Algorithm, a.Name)
		if !ok {
			_, err := registry.Validate(registry.Algorithm, a.Name, nil)
			return nil, err
		}
		for _, c := range configs {
			if err := b.stopped(); err != nil {
				return nil, err
			}
			da := a.Component
			da.Params = maps.Clone(a.Params)
			if da.Params == nil {
				da.Params = map[string]any{}
			}
			for _, k := range slices.Sorted(maps.Keys(c.algo)) {
				if _, ok := spec.Param(k); !ok {
					return nil, fmt.Errorf("swept key %q: %s has no parameter %q%s; valid keys: %s",
						k, spec.Title(), k, registry.DidYouMean(k, spec.ParamNames()), strings.Join(spec.ParamNames(), ", "))
				}
				da.Params[k] = c.algo[k]
			}
			r, err := b.resolve(da, registry.Algorithm)
			if err != nil {
				return nil, err
			}
			if err := checkEffects(c.base, r.args); err != nil {
				return nil, err
			}
			jobs = append(jobs, experiment.NewJobs(c.base, a.label(), r.args, r.id, c.shown, seedsOr1(s.Seeds))...)
		}
	}
	return jobs, b.checkStates(jobs)
}

// apply returns problem p with the problem settings of a configuration
// applied, the algorithm settings, and the configuration as tables show it.
func apply(p Problem, settings []Setting) (Problem, map[string]any, experiment.Config, error) {
	algo := map[string]any{}
	var shown []experiment.Setting
	seen := map[string]bool{}
	parts := map[string]*Component{"data": &p.Data, "loss": &p.Loss, "reg": &p.Reg}
	if p.Mirror != nil {
		m := *p.Mirror
		p.Mirror = &m
		parts["mirror"] = p.Mirror
	}
	if p.Reg.Name == "" {
		p.Reg = Component{Kind: registry.Regularizer, Name: "none"}
	}
	cloned := map[string]bool{}
	for _, st := range settings {
		part, param, err := SplitKey(st.Key)
		if err != nil {
			return p, nil, nil, err
		}
		key := st.Key
		if part == algoPart {
			key = param
		}
		if seen[key] {
			return p, nil, nil, fmt.Errorf("key %q is given twice", key)
		}
		seen[key] = true
		v := st.Shown
		if v == nil {
			v = st.Value
		}
		shown = append(shown, experiment.NewSetting(key, v))
		if part == algoPart {
			algo[param] = st.Value
			continue
		}
		c, ok := parts[part]
		if !ok {
			return p, nil, nil, fmt.Errorf("swept key %q: the problem has no %s", st.Key, part)
		}
		if !cloned[part] {
			c.Params = maps.Clone(c.Params)
			if c.Params == nil {
				c.Params = map[string]any{}
			}
			cloned[part] = true
		}
		spec, ok := registry.Lookup(c.Kind, c.Name)
		if ok {
			if _, has := spec.Param(param); !has {
				return p, nil, nil, fmt.Errorf("swept key %q: %s has no parameter %q%s; valid keys: %s",
					st.Key, spec.Title(), param, registry.DidYouMean(param, spec.ParamNames()), strings.Join(spec.ParamNames(), ", "))
			}
		}
		c.Params[param] = st.Value
	}
	return p, algo, experiment.NewConfig(shown...), nil
}

// Stages returns the jobs of s, one per seed, and the pipeline they run.
func (b *Builder) Stages(s Stages) ([]experiment.Job, *pipeline.Pipeline, error) {
	if len(s.Stages) == 0 {
		return nil, nil, fmt.Errorf("no stages")
	}
	settings := s.Settings
	settings.Rounds = 0
	for _, st := range s.Stages {
		settings.Rounds += st.Rounds
	}
	if err := b.checkSettings(settings, s.Metrics); err != nil {
		return nil, nil, err
	}
	base, err := b.base(s.Problem, settings, s.Metrics)
	if err != nil {
		return nil, nil, err
	}
	stages := make([]pipeline.Stage, len(s.Stages))
	ids := make([]experiment.StageID, len(s.Stages))
	var algo experiment.Component
	if d := base.Problem.Dim(); s.Keep > d {
		return nil, nil, fmt.Errorf("keep = %d is above the dimension d = %d of the model (valid: 0 ≤ keep ≤ %d)", s.Keep, d, d)
	}
	for i, st := range s.Stages {
		if d := base.Problem.Dim(); st.Keep > d {
			return nil, nil, fmt.Errorf("stage %d: keep = %d is above the dimension d = %d of the model (valid: 0 ≤ keep ≤ %d)", i+1, st.Keep, d, d)
		}
		ps := pipeline.Stage{Radius: st.Radius, Rounds: st.Rounds, LocalSteps: st.LocalSteps, Restart: st.Restart, Keep: st.Keep}
		if st.Algorithm != nil {
			r, err := b.resolve(st.Algorithm.Component, registry.Algorithm)
			if err != nil {
				return nil, nil, fmt.Errorf("stage %d: %w", i+1, err)
			}
			ps.Algorithm, ps.Params = r.args.Spec().Name, r.args.Values()
			algo = r.id
		} else if i == 0 {
			return nil, nil, fmt.Errorf("stage 1: the first stage needs an algorithm")
		}
		if st.Radius > 0 {
			params := maps.Clone(algo.Params)
			if params == nil {
				params = map[string]any{}
			}
			params["radius"] = experiment.Canonical(st.Radius)
			algo.Params = params
		}
		var lid any
		if ps.Lambda, lid, err = b.schedule(st.Lambda); err != nil {
			return nil, nil, fmt.Errorf("stage %d: lambda: %w", i+1, err)
		}
		for r := range max(settings.Rounds, 1) {
			if x := valueAt(ps.Lambda, r); !(x >= 0) || math.IsInf(x, 1) {
				return nil, nil, fmt.Errorf("stage %d: lambda: λ must be a finite number ≥ 0, got %g at round %d", i+1, x, r)
			}
		}
		stages[i] = ps
		ids[i] = experiment.StageID{Algorithm: algo, Lambda: lid, Rounds: st.Rounds, LocalSteps: st.LocalSteps}
	}
	pl, err := pipeline.New(pipeline.Spec{Problem: base.Problem, Stages: stages, Settings: s.Settings,
		Metrics: base.Metrics, Restart: s.Restart, Keep: s.Keep})
	if err != nil {
		return nil, nil, err
	}
	for i := range ids {
		_, _, restart, keep, _ := pl.StageParams(i)
		ids[i].Restart = string(restart)
		if restart == pipeline.Top || restart == pipeline.Rank {
			ids[i].Keep = keep
		}
	}
	label := s.Label
	if label == "" {
		label = experiment.StagesAlgorithm
	}
	jobs := experiment.PipelineJobs(base, label, strings.Join(pl.Algorithms(), "+"), describeStages(pl), pl, ids, seedsOr1(s.Seeds))
	if err := b.checkStates(jobs); err != nil {
		return nil, nil, err
	}
	return jobs, pl, nil
}

// valueAt is s at round r (0 for no schedule).
func valueAt(s sched.Schedule, r int) float64 {
	if s == nil {
		return 0
	}
	return s.At(r)
}

// describeStages describes the stages for Run.Params: "stages" (the count)
// and stage1, stage2, ... each as "name {param = value, ...} lambda = ...
// rounds = ... from round ... restart = ...".
func describeStages(pl *pipeline.Pipeline) map[string]any {
	n := len(pl.Algorithms())
	out := map[string]any{"stages": n}
	bounds := pl.Boundaries()
	for i := range n {
		name, params, restart, keep, lambda := pl.StageParams(i)
		parts := make([]string, 0, len(params))
		for _, k := range slices.Sorted(maps.Keys(params)) {
			parts = append(parts, fmt.Sprintf("%s = %v", k, params[k]))
		}
		desc := fmt.Sprintf("%s {%s} lambda = %s rounds = %d from round %d restart = %s", name, strings.Join(parts, ", "),
			pipeline.ScheduleText(lambda), pl.StageRounds(i), bounds[i], restart)
		if restart == pipeline.Top || restart == pipeline.Rank {
			desc += fmt.Sprintf(" keep = %d", keep)
		}
		out[fmt.Sprintf("stage%d", i+1)] = desc
	}
	return out
}
