package luaapi

import (
	"fmt"
	"maps"
	"slices"

	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// planComponent converts c to its plan specification for a call of the
// given number of rounds: Lua functions are tabulated for the rounds (keys
// in sorted order, so functions are called in a fixed order), parameters
// given as components are converted in turn.
func (in *interp) planComponent(c *component, rounds int) (plan.Component, error) {
	params := make(map[string]any, len(c.raw))
	for _, k := range slices.Sorted(maps.Keys(c.raw)) {
		v := c.raw[k]
		switch x := v.(type) {
		case *luaSchedule:
			t, err := x.tabulate(in, rounds)
			if err != nil {
				return plan.Component{}, err
			}
			v = t
		default:
			if n := c.nested[k]; n != nil {
				pc, err := in.planComponent(n, rounds)
				if err != nil {
					return plan.Component{}, err
				}
				v = pc
			}
		}
		params[k] = v
	}
	return plan.Component{Kind: c.spec.Kind, Name: c.spec.Name, Params: params, Dir: c.dir}, nil
}

// planAlgorithm is planComponent for an algorithm, with its label.
func (in *interp) planAlgorithm(c *component, rounds int) (plan.Algorithm, error) {
	pc, err := in.planComponent(c, rounds)
	return plan.Algorithm{Component: pc, Label: c.label}, err
}

// planProblem converts p for a call of the given number of rounds.
func (in *interp) planProblem(p *problem, rounds int) (plan.Problem, error) {
	out := plan.Problem{Weighted: p.weighted}
	var err error
	if out.Data, err = in.planComponent(p.data, rounds); err != nil {
		return out, err
	}
	if out.Loss, err = in.planComponent(p.loss, rounds); err != nil {
		return out, err
	}
	if out.Reg, err = in.planComponent(p.reg, rounds); err != nil {
		return out, err
	}
	if p.mirror != nil {
		m, err := in.planComponent(p.mirror, rounds)
		if err != nil {
			return out, err
		}
		out.Mirror = &m
	}
	return out, nil
}

// planMetrics converts the metrics of a call: names (default parameters)
// or components from fedlab.metric.*.
func (in *interp) planMetrics(vs []lua.LValue, rounds int, what string) ([]plan.Component, error) {
	out := []plan.Component{} // not nil: an empty list measures nothing
	for i, v := range vs {
		if name, ok := v.(lua.LString); ok {
			if _, err := registry.Validate(registry.Metric, string(name), nil); err != nil {
				return nil, err
			}
			out = append(out, plan.Component{Kind: registry.Metric, Name: string(name)})
			continue
		}
		c, err := asComponent(v, registry.Metric, fmt.Sprintf("%s element %d", what, i+1))
		if err != nil {
			return nil, err
		}
		pc, err := in.planComponent(c, rounds)
		if err != nil {
			return nil, err
		}
		out = append(out, pc)
	}
	return out, nil
}

// planValue converts a swept value for a call of the given number of
// rounds: numbers, booleans, strings, lists of numbers, a Lua function of
// the round (tabulated) or a component.
func (in *interp) planValue(v lua.LValue, rounds int, key string) (any, error) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), nil
	case lua.LBool:
		return bool(x), nil
	case lua.LString:
		return string(x), nil
	case *lua.LTable:
		return numberList(x, fmt.Sprintf("swept key %q", key))
	case *lua.LFunction:
		return (&luaSchedule{fn: x, title: "swept key", param: key}).tabulate(in, rounds)
	}
	if c := componentOf(v); c != nil {
		return in.planComponent(c, rounds)
	}
	return nil, fmt.Errorf("swept key %q: expected a number, a boolean, a string, a list of numbers, a function or a component, got %s", key, typeText(v))
}
