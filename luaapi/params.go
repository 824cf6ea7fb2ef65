package luaapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// decodeParams decodes a constructor's parameter table into the raw map the
// registry validates: numbers, booleans, strings, lists of numbers, and for
// schedule parameters Lua functions and schedules. Keys the component does
// not declare are passed on, so that the registry reports them with the
// valid keys. For algorithms, the reserved key "label" is returned apart;
// nested holds the parameters given as components (their specifications,
// which identify them in plans).
func decodeParams(spec *registry.Spec, t *lua.LTable) (raw map[string]any, label string, nested map[string]*component, err error) {
	var keys []string
	var positional lua.LValue
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			keys = append(keys, string(s))
		} else if positional == nil {
			positional = k
		}
	})
	if positional != nil {
		return nil, "", nil, fmt.Errorf("%s: parameters are named (key = value), got the positional key %s; valid keys: %s",
			spec.Title(), keyText(positional), strings.Join(spec.ParamNames(), ", "))
	}
	slices.Sort(keys)
	raw = make(map[string]any, len(keys))
	nested = map[string]*component{}
	for _, k := range keys {
		v := t.RawGetString(k)
		if k == labelKey && spec.Kind == registry.Algorithm {
			s, ok := v.(lua.LString)
			if !ok {
				return nil, "", nil, fmt.Errorf("%s: key %q: expected a string, got %s", spec.Title(), k, typeText(v))
			}
			if err := experiment.ValidText("label", string(s)); err != nil {
				return nil, "", nil, fmt.Errorf("%s: %w", spec.Title(), err)
			}
			label = string(s)
			continue
		}
		p, declared := spec.Param(k)
		if !declared {
			raw[k] = nil
			continue
		}
		x, err := paramValue(spec, p, v)
		if err != nil {
			return nil, "", nil, err
		}
		raw[k] = x
		if c := componentOf(v); c != nil {
			nested[k] = c
		}
	}
	return raw, label, nested, nil
}

// componentOf returns the component behind a Lua value, or nil.
func componentOf(v lua.LValue) *component {
	if ud, ok := v.(*lua.LUserData); ok {
		if c, ok := ud.Value.(*component); ok {
			return c
		}
	}
	return nil
}

// paramValue converts one Lua value for parameter p.
func paramValue(spec *registry.Spec, p registry.Param, v lua.LValue) (any, error) {
	what := fmt.Sprintf("%s: parameter %q", spec.Title(), p.Name)
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), nil
	case lua.LBool:
		return bool(x), nil
	case lua.LString:
		return string(x), nil
	case *lua.LTable:
		return numberList(x, what)
	case *lua.LFunction:
		if p.Type == registry.Sched {
			return &luaSchedule{fn: x, title: spec.Title(), param: p.Name}, nil
		}
		return nil, fmt.Errorf("%s: expected a %s, got a function (functions are allowed only for schedule parameters)", what, p.Type)
	case *lua.LUserData:
		if c, ok := x.Value.(*component); ok && c.spec.Kind == registry.Schedule {
			switch {
			case p.Type != registry.Sched:
				return nil, fmt.Errorf("%s: expected a %s, got %s (schedules are allowed only for schedule parameters)", what, p.Type, c.spec.Title())
			case c.value != nil:
				return c.value, nil
			}
			return pendingSchedule{}, nil
		}
		if c, ok := x.Value.(*component); ok && p.Type == registry.Component {
			if c.spec.Kind != p.Kind {
				return nil, fmt.Errorf("%s: expected %s (from fedlab.%s.*) or its name, got %s", what, article(string(p.Kind)), Namespace(p.Kind), c.spec.Title())
			}
			return c.value, nil
		}
	}
	return nil, fmt.Errorf("%s: expected a %s, got %s", what, p.Type, typeText(v))
}
