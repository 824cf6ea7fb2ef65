package plan

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// Builder turns plan values into jobs. It keeps the datasets and problems
// it builds, by identity, so that the calls of one script (or program)
// share them: a dataset is loaded once, and a problem's reference optimum
// is computed once. A Builder is used from one goroutine.
type Builder struct {
	// Paths, if set, resolves a dataset's relative input paths against
	// its Dir (Component.Dir) or the working directory when it is built;
	// an error (e.g. a path naming two files) stops the build.
	Paths *InputPaths
	// Limits, if set, bounds what the plans ask for before anything is
	// allocated (see NewLimits): a dataset's declared memory, the engine
	// settings and records, the runs' state; and a dataset read from files
	// stops reading at its ceiling (without Limits, at the default ceiling
	// of the process's own limits). fedlab run sets it.
	Limits *Limits
	// References, if set, returns the store of a problem's reference
	// optimum (see core.Problem.RefStore), e.g. rundir.Dir.ReferenceStore.
	References func(id experiment.ProblemID) core.ReferenceStore
	// Context, if set, stops a reference solve in progress when done, and
	// the expansion of a large sweep.
	Context context.Context
	// Notices, if set, receives the notices of the datasets it builds
	// (registry.BuildContext.Note: the writers a filter dropped).
	Notices io.Writer

	specs    map[string]resolved // datasets validated, by specification (see resolveDataset)
	datasets map[string]*core.Federated
	problems map[string]*core.Problem
}

// NewBuilder returns a Builder with empty caches.
func NewBuilder() *Builder {
	return &Builder{specs: map[string]resolved{}, datasets: map[string]*core.Federated{}, problems: map[string]*core.Problem{}}
}

// stopped returns the cause of b.Context's end, if it has ended: a sweep
// of 100,000 configurations takes seconds to plan, and --timeout or Ctrl-C
// must stop it.
func (b *Builder) stopped() error {
	if b.Context == nil || b.Context.Err() == nil {
		return nil
	}
	return fmt.Errorf("planning stopped: %w", context.Cause(b.Context))
}

// buildContext is what a dataset's factory receives: the ceiling of
// b.Limits (without Limits, the default ceiling of the process's own
// limits), b.Context and b.Notices.
func (b *Builder) buildContext() registry.BuildContext {
	c := registry.BuildContext{Context: b.Context, Notices: b.Notices}
	if b.Limits != nil {
		c.Memory = b.Limits.budget
	}
	return c
}

// checkSettings applies the settings bounds of b.Limits, if any.
func (b *Builder) checkSettings(s core.Settings, metrics []Component) error {
	if b.Limits == nil {
		return nil
	}
	n := len(metrics)
	if metrics == nil {
		n = 1 // the objective
	}
	return b.Limits.Settings(s, n)
}

// checkStates applies the state bound of b.Limits, if any.
func (b *Builder) checkStates(jobs []experiment.Job) error {
	if b.Limits == nil {
		return nil
	}
	return b.Limits.States(jobs)
}

// resolved is a component validated against the registry, with its
// identity.
type resolved struct {
	args registry.Args // what builds it
	id   experiment.Component
}

// resolve validates c once: parameters given as components (schedules,
// topologies) are built first and identified by their specification; its
// declared input paths are resolved in the validated arguments (b.Paths),
// its identity keeps them as written.
func (b *Builder) resolve(c Component, kind registry.Kind) (resolved, error) {
	if c.err != nil {
		return resolved{}, c.err
	}
	if c.Kind != "" && c.Kind != kind {
		return resolved{}, fmt.Errorf("expected a %s, got %s %q", kind, c.Kind, c.Name)
	}
	raw := make(map[string]any, len(c.Params))
	nested := map[string]experiment.Nested{}
	for _, k := range slices.Sorted(maps.Keys(c.Params)) {
		v := c.Params[k]
		if n, ok := v.(Component); ok {
			if n.Kind == "" {
				return resolved{}, fmt.Errorf("%s %q: parameter %q: the component %q has no kind", kind, c.Name, k, n.Name)
			}
			r, err := b.resolve(n, n.Kind)
			if err != nil {
				return resolved{}, fmt.Errorf("%s %q: parameter %q: %w", kind, c.Name, k, err)
			}
			if v, err = registry.BuildArgs[any](r.args); err != nil {
				return resolved{}, fmt.Errorf("%s %q: parameter %q: %w", kind, c.Name, k, err)
			}
			nested[k] = experiment.Nested{Kind: string(n.Kind), Component: r.id}
		}
		raw[k] = v
	}
	args, err := registry.Validate(kind, c.Name, raw)
	if err != nil {
		return resolved{}, err
	}
	vals := args.Values()
	for k, n := range nested {
		vals[k] = n
	}
	r := resolved{args: args, id: experiment.NewComponent(c.Name, vals)}
	if c.Dir != "" && b.Paths != nil {
		if r.args, err = b.Paths.resolve(args, c.Dir); err != nil {
			return resolved{}, err
		}
	}
	return r, nil
}

// build validates and builds c.
func build[T any](b *Builder, c Component, kind registry.Kind) (T, experiment.Component, error) {
	var zero T
	r, err := b.resolve(c, kind)
	if err != nil {
		return zero, r.id, err
	}
	v, err := registry.BuildArgs[T](r.args)
	return v, r.id, err
}

// key is the canonical JSON of an identity, for the caches.
func key(id any) string {
	j, err := json.Marshal(id)
	if err != nil {
		panic(fmt.Sprintf("plan: identity cannot be encoded: %v", err)) // experiment.Canonical makes every value encodable
	}
	return string(j)
}

// resolveDataset is resolve for a dataset, once per specification: the
// calls of a script that use the dataset it created (Dataset, then
// Problem for each call) validate it once. A specification whose
// parameters are not all numbers, booleans, strings or float lists (a
// nested component) is validated at each use.
func (b *Builder) resolveDataset(c Component) (resolved, error) {
	k, ok := specKey(c)
	if r, hit := b.specs[k]; ok && hit {
		return r, nil
	}
	r, err := b.resolve(c, registry.Dataset)
	if err == nil && ok {
		b.specs[k] = r
	}
	return r, err
}

// specKey is the key of c's specification as given (kind, name, directory
// and each parameter with its Go type, so that values validated alike
// share it), and false when a parameter is not a plain value.
func specKey(c Component) (string, bool) {
	if c.err != nil {
		return "", false
	}
	var k strings.Builder
	fmt.Fprintf(&k, "%q %q %q", c.Kind, c.Name, c.Dir)
	for _, name := range slices.Sorted(maps.Keys(c.Params)) {
		switch v := c.Params[name].(type) {
		case float64, int, bool, string, []float64, nil:
			fmt.Fprintf(&k, " %q=%T:%#v", name, v, v)
		default:
			return "", false
		}
	}
	return k.String(), true
}

// Dataset returns the dataset c, built once per identity.
func (b *Builder) Dataset(c Component) (*core.Federated, error) {
	r, err := b.resolveDataset(c)
	if err != nil {
		return nil, err
	}
	return b.dataset(r)
}

func (b *Builder) dataset(r resolved) (*core.Federated, error) {
	k := key(r.id)
	if f, ok := b.datasets[k]; ok {
		return f, nil
	}
	if b.Limits != nil {
		if err := b.Limits.Data(r.args); err != nil {
			return nil, err
		}
	}
	f, err := registry.BuildArgs[*core.Federated](r.args.WithContext(b.buildContext()))
	if err != nil {
		return nil, err
	}
	b.datasets[k] = f
	return f, nil
}

// Problem returns the problem p, built once per identity, and its identity.
func (b *Builder) Problem(p Problem) (*core.Problem, experiment.ProblemID, error) {
	id := experiment.ProblemID{Weighted: p.Weighted}
	data, err := b.resolveDataset(p.Data)
	if err != nil {
		return nil, id, err
	}
	reg := p.Reg
	if reg.Name == "" {
		reg = Component{Kind: registry.Regularizer, Name: "none"}
	}
	parts := []struct {
		c    Component
		kind registry.Kind
		r    *resolved
	}{{p.Loss, registry.Loss, new(resolved)}, {reg, registry.Regularizer, new(resolved)}}
	if p.Mirror != nil {
		parts = append(parts, struct {
			c    Component
			kind registry.Kind
			r    *resolved
		}{*p.Mirror, registry.Mirror, new(resolved)})
	}
	for _, part := range parts {
		if *part.r, err = b.resolve(part.c, part.kind); err != nil {
			return nil, id, err
		}
	}
	id.Data, id.Loss, id.Reg = data.id, parts[0].r.id, parts[1].r.id
	if p.Mirror != nil {
		m := parts[2].r.id
		id.Mirror = &m
	}
	k := key(id)
	if cp, ok := b.problems[k]; ok {
		return cp, id, nil
	}
	f, err := b.dataset(data)
	if err != nil {
		return nil, id, err
	}
	loss, err := registry.BuildArgs[core.Loss](parts[0].r.args)
	if err != nil {
		return nil, id, err
	}
	pen, err := registry.BuildArgs[core.Penalty](parts[1].r.args)
	if err != nil {
		return nil, id, err
	}
	var mirror core.Mirror
	if p.Mirror != nil {
		if mirror, err = registry.BuildArgs[core.Mirror](parts[2].r.args); err != nil {
			return nil, id, err
		}
	}
	cp, err := core.NewProblem(f, loss, pen, mirror)
	if err != nil {
		return nil, id, err
	}
	cp.WeightBySamples = p.Weighted
	cp.RefSettings.Context = b.Context
	if b.References != nil {
		cp.RefStore = b.References(id)
	}
	b.problems[k] = cp
	return cp, id, nil
}

// DefaultMetric is measured when a plan lists no metrics.
const DefaultMetric = "objective"

// metrics builds the metrics and their identities.
func (b *Builder) metrics(cs []Component) ([]core.Metric, []experiment.Component, error) {
	if cs == nil {
		cs = []Component{{Kind: registry.Metric, Name: DefaultMetric}}
	}
	var out []core.Metric
	var ids []experiment.Component
	for _, c := range cs {
		m, id, err := build[core.Metric](b, c, registry.Metric)
		if err != nil {
			return nil, nil, err
		}
		out, ids = append(out, m), append(ids, id)
	}
	return out, ids, nil
}

// base builds what the runs on problem p with the given settings and
// metrics share.
func (b *Builder) base(p Problem, s core.Settings, metrics []Component) (experiment.Base, error) {
	if err := s.Check(); err != nil {
		return experiment.Base{}, err
	}
	cp, pid, err := b.Problem(p)
	if err != nil {
		return experiment.Base{}, err
	}
	// the initial model the run identities record: the loss's default
	// resolved ("zeros" for linear models, as before the losses declared one)
	if s.Init, err = core.ResolveInit(cp.Loss, s.Init); err != nil {
		return experiment.Base{}, fmt.Errorf("loss %q: %w", p.Loss.Name, err)
	}
	ms, mids, err := b.metrics(metrics)
	if err != nil {
		return experiment.Base{}, err
	}
	for _, m := range ms {
		if pc, ok := m.(core.ProblemChecker); ok {
			if err := pc.CheckProblem(cp); err != nil {
				return experiment.Base{}, err
			}
		}
	}
	return experiment.Base{Problem: cp, ProblemID: pid, Settings: s, Metrics: ms, MetricIDs: mids}, nil
}

// schedule builds a stage's λ: nil, a number, a sched.Table or a schedule
// component; the second value is its identity.
func (b *Builder) schedule(v any) (sched.Schedule, any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil, nil
	case float64:
		return sched.Constant(x), experiment.Canonical(x), nil
	case int:
		return sched.Constant(float64(x)), experiment.Canonical(float64(x)), nil
	case sched.Table:
		return x, experiment.Canonical(x), nil
	case Component:
		s, id, err := build[sched.Schedule](b, x, registry.Schedule)
		return s, experiment.Nested{Kind: string(registry.Schedule), Component: id}, err
	}
	return nil, nil, fmt.Errorf("expected a number, a table of values or a schedule, got %T", v)
}
