package luaapi

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
	lua "github.com/yuin/gopher-lua"
)

// namespaces maps the sub-tables of `fedlab` to registry kinds.
var namespaces = []struct {
	field string
	kind  registry.Kind
}{
	{"algo", registry.Algorithm}, {"loss", registry.Loss}, {"reg", registry.Regularizer},
	{"mirror", registry.Mirror}, {"data", registry.Dataset}, {"metric", registry.Metric},
	{"schedule", registry.Schedule}, {"topology", registry.Topology}, {"opt", registry.Optimizer},
	{"availability", registry.Availability}, {"compressor", registry.Compressor}, {"privacy", registry.Privacy},
}

// labelKey is the reserved key of fedlab.algo.* for the display name.
const labelKey = "label"

// component is what a constructor such as fedlab.reg.l1{...} returns: a
// validated component specification.
type component struct {
	spec   *registry.Spec
	label  string                // algorithms: display name
	raw    map[string]any        // decoded parameters; Lua functions and schedules built from them are pending
	nested map[string]*component // the parameters given as components (schedules, topologies, optimizers)
	value  any                   // built at construction: datasets (*core.Federated), topologies, optimizers and schedules without Lua functions
	dir    string                // datasets: the directory relative input paths resolve against (plan.InputPaths)
}

// pendingParams reports whether some parameter waits for the round count
// (a Lua function, or a schedule built from one).
func (c *component) pendingParams() bool {
	for _, v := range c.raw {
		if _, ok := v.(pending); ok {
			return true
		}
	}
	return false
}

// String renders the component as in `regularizer "l1" {lambda = 0.1}`.
func (c *component) String() string {
	keys := slices.Sorted(maps.Keys(c.raw))
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := c.raw[k]
		if _, ok := v.(pending); ok {
			v = "function"
		}
		if n := c.nested[k]; n != nil {
			v = n // a component parameter shows as a component, not as the Go value built from it
		} else if text, ok := v.(string); ok {
			v = strconv.Quote(text)
		}
		parts[i] = fmt.Sprintf("%s = %v", k, v)
	}
	title := c.spec.Title()
	if c.label != c.spec.Name {
		title += fmt.Sprintf(" (label %q)", c.label)
	}
	return fmt.Sprintf("%s {%s}", title, strings.Join(parts, ", "))
}

// asComponent checks that v is a component of the given kind.
func asComponent(v lua.LValue, kind registry.Kind, what string) (*component, error) {
	if ud, ok := v.(*lua.LUserData); ok {
		if c, ok := ud.Value.(*component); ok && c.spec.Kind == kind {
			return c, nil
		}
	}
	return nil, fmt.Errorf("%s: expected %s (from fedlab.%s.*), got %s", what, article(string(kind)), Namespace(kind), typeText(v))
}

// Namespace returns the field of the Lua table `fedlab` that holds the
// constructors of kind k: "algo", "loss", "reg", "mirror", "data", "metric"
// or "schedule".
func Namespace(kind registry.Kind) string {
	for _, ns := range namespaces {
		if ns.kind == kind {
			return ns.field
		}
	}
	return string(kind)
}

// installComponents fills fedlab.<namespace>.<name> with one constructor per
// registered component.
func (in *interp) installComponents(fedlab *lua.LTable) {
	for _, ns := range namespaces {
		t := in.L.NewTable()
		for _, spec := range registry.Specs(ns.kind) {
			t.RawSetString(spec.Name, in.protect(in.constructor(spec, "fedlab."+ns.field+"."+spec.Name)))
		}
		in.L.SetMetatable(t, in.strictIndex("fedlab."+ns.field, func(name string) error {
			names := registry.Names(ns.kind)
			return fmt.Errorf("fedlab.%s.%s: unknown %s %q%s; known: %s", ns.field, name, ns.kind, name, registry.DidYouMean(name, names), strings.Join(names, ", "))
		}))
		fedlab.RawSetString(ns.field, t)
	}
}

// strictIndex returns a metatable whose __index reports a missing field
// with unknown(name), so that a misspelled name fails where it is used.
func (in *interp) strictIndex(what string, unknown func(name string) error) *lua.LTable {
	mt := in.L.NewTable()
	mt.RawSetString("__index", in.protect(func(L *lua.LState) (int, error) {
		key, ok := L.Get(2).(lua.LString)
		if !ok {
			return 0, fmt.Errorf("%s has no field %s", what, L.Get(2).String())
		}
		return 0, unknown(string(key))
	}))
	return mt
}

// constructor returns the Lua function that builds a component spec from an
// optional table of parameters, validated at once.
func (in *interp) constructor(spec *registry.Spec, fn string) goFunc {
	return func(L *lua.LState) (int, error) {
		t := L.NewTable()
		switch v := L.Get(1).(type) {
		case *lua.LTable:
			t = v
		case *lua.LNilType:
		default:
			return 0, fmt.Errorf("%s: expected a table of parameters, got %s", fn, typeText(v))
		}
		if L.GetTop() > 1 {
			return 0, fmt.Errorf("%s takes one table of parameters, got %d arguments", fn, L.GetTop())
		}
		c, err := in.newComponent(spec, t)
		if err != nil {
			return 0, err
		}
		L.Push(in.userdata(c))
		return 1, nil
	}
}

// newComponent decodes and validates the parameters; datasets, topologies,
// optimizers and schedules without Lua functions are built at once
// (datasets through the plan builder, which keeps them for the script's
// calls).
func (in *interp) newComponent(spec *registry.Spec, t *lua.LTable) (*component, error) {
	c := &component{spec: spec, label: spec.Name, dir: in.scriptDir}
	raw, label, nested, err := decodeParams(spec, t)
	if err != nil {
		return nil, err
	}
	c.raw, c.nested = raw, nested
	if label != "" {
		c.label = label
	}
	if spec.Kind == registry.Dataset { // validated by the plan builder that builds it
		c.value, err = in.dataset(c)
		return c, err
	}
	if _, err := spec.Validate(raw); err != nil {
		return nil, err
	}
	switch {
	case spec.Kind == registry.Schedule && !c.pendingParams():
		c.value, err = registry.Build[sched.Schedule](spec.Kind, spec.Name, raw)
	case spec.Kind == registry.Topology || spec.Kind == registry.Optimizer: // built (and validated) at once, passed to algorithms as a value
		c.value, err = registry.Build[any](spec.Kind, spec.Name, raw)
	}
	return c, err
}

// dataset builds the dataset c through the plan builder, which validates
// it (once per specification: the calls that use it do not again) and
// keeps it for the script's calls; its errors reach the script at the
// line that creates it.
func (in *interp) dataset(c *component) (*core.Federated, error) {
	if c.pendingParams() {
		if _, err := c.spec.Validate(c.raw); err != nil { // a bad key is named first
			return nil, err
		}
		return nil, fmt.Errorf("%s: parameters of a dataset cannot be Lua functions", c.spec.Title())
	}
	pc, err := in.planComponent(c, 0)
	if err != nil {
		return nil, err
	}
	return in.builder.Dataset(pc)
}

// userdata wraps a component for Lua.
func (in *interp) userdata(v any) *lua.LUserData {
	ud := in.L.NewUserData()
	ud.Value = v
	in.L.SetMetatable(ud, in.L.GetTypeMetatable(metatableName))
	return ud
}
