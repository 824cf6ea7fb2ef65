package luaapi

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// problemParts are the parts of a problem a sweep key can address
// ("reg.lambda"); a key without a part names an algorithm parameter.
var problemParts = []string{"data", "loss", "reg", "mirror"}

// algoPart is the optional prefix of algorithm keys ("algo.eta_c").
const algoPart = "algo"

// setting is one swept value as written in Lua.
type setting struct {
	key   string // "eta_c" or "reg.lambda"
	part  string // algoPart or one of problemParts
	param string
	value lua.LValue
}

// sweepConfig is one configuration of a sweep: settings sorted by key.
type sweepConfig []setting

// parseKey splits a sweep key into part and parameter (plan.SplitKey).
func parseKey(key string) (setting, error) {
	part, param, err := plan.SplitKey(key)
	switch {
	case err != nil:
		return setting{}, err
	case part == algoPart:
		return setting{key: param, part: algoPart, param: param}, nil
	}
	return setting{key: key, part: part, param: param}, nil
}

// newSweepConfig sorts the settings by key and rejects a key given twice.
func newSweepConfig(settings []setting) (sweepConfig, error) {
	c := slices.Clone(settings)
	slices.SortFunc(c, func(a, b setting) int { return strings.Compare(a.key, b.key) })
	for i := 1; i < len(c); i++ {
		if c[i].key == c[i-1].key {
			return nil, fmt.Errorf("key %q is given twice", c[i].key)
		}
	}
	return c, nil
}

// parseGrid reads grid = { key = { values... }, ... } into the list of its
// configurations (keys in sorted order, the last varying fastest).
// MaxGridConfigs bounds the configurations of a sweep's grid, checked
// before the grid is expanded: a 1000 × 1000 grid ran out of memory after
// 13 s, past --timeout; 100,000 configurations are already days of runs.
const MaxGridConfigs = 100_000

func parseGrid(t *lua.LTable, what string) ([]sweepConfig, error) {
	var axes [][]setting
	var err error
	t.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		name, ok := k.(lua.LString)
		if !ok {
			err = fmt.Errorf("%s: keys are parameter names, got %s", what, keyText(k))
			return
		}
		var s setting
		if s, err = parseKey(string(name)); err != nil {
			err = fmt.Errorf("%s: %w", what, err)
			return
		}
		vt, ok := v.(*lua.LTable)
		if !ok {
			err = fmt.Errorf("%s: key %q: expected a list of values, got %s", what, string(name), typeText(v))
			return
		}
		var vals []lua.LValue
		if vals, err = list(vt, fmt.Sprintf("%s: key %q", what, string(name))); err == nil && len(vals) == 0 {
			err = fmt.Errorf("%s: key %q: the list of values is empty", what, string(name))
		}
		axis := make([]setting, len(vals))
		for i, x := range vals {
			axis[i] = s
			axis[i].value = x
		}
		axes = append(axes, axis)
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(axes, func(a, b []setting) int { return strings.Compare(a[0].key, b[0].key) })
	size := 1
	for _, a := range axes {
		size *= len(a)
		if size > MaxGridConfigs {
			return nil, fmt.Errorf("%s: the grid has more than %d configurations (the product of its lists' lengths); sweep fewer values per key, or split the sweep", what, MaxGridConfigs)
		}
	}
	var out []sweepConfig
	for _, c := range experiment.Grid(axes) {
		sc, err := newSweepConfig(c)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, sc)
	}
	return out, nil
}

// parseConfig reads one explicit configuration { key = value, ... }.
func parseConfig(v lua.LValue, what string) (sweepConfig, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("%s: expected a table of key = value, got %s", what, typeText(v))
	}
	var settings []setting
	var err error
	t.ForEach(func(k, x lua.LValue) {
		name, ok := k.(lua.LString)
		if err != nil || !ok {
			if err == nil {
				err = fmt.Errorf("%s: keys are parameter names, got %s", what, keyText(k))
			}
			return
		}
		var s setting
		if s, err = parseKey(string(name)); err == nil {
			s.value = x
			settings = append(settings, s)
		}
	})
	if err != nil {
		return nil, err
	}
	c, err := newSweepConfig(settings)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return c, nil
}

// config returns the configuration as experiment.Config, for tables and
// files.
func (c sweepConfig) config() experiment.Config {
	out := make([]experiment.Setting, len(c))
	for i, s := range c {
		out[i] = experiment.NewSetting(s.key, goValue(s.value))
	}
	return experiment.NewConfig(out...)
}

// of returns the settings of one part.
func (c sweepConfig) of(part string) []setting {
	var out []setting
	for _, s := range c {
		if s.part == part {
			out = append(out, s)
		}
	}
	return out
}

// goValue converts a swept Lua value for display.
func goValue(v lua.LValue) any {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x)
	case lua.LBool:
		return bool(x)
	case lua.LString:
		return string(x)
	case *lua.LFunction:
		return fmt.Sprintf("function (%s:%d)", x.Proto.SourceName, x.Proto.LineDefined)
	case *lua.LUserData:
		return fmt.Sprint(x.Value)
	}
	return v.String()
}

// derive returns a copy of c with the settings applied, validated; a
// dataset is built (through the plan builder, which validates it).
func (in *interp) derive(c *component, settings []setting) (*component, error) {
	if len(settings) == 0 {
		return c, nil
	}
	d := &component{spec: c.spec, label: c.label, raw: maps.Clone(c.raw), nested: maps.Clone(c.nested), dir: c.dir}
	for _, s := range settings {
		p, ok := c.spec.Param(s.param)
		if !ok {
			return nil, fmt.Errorf("swept key %q: %s has no parameter %q%s; valid keys: %s",
				s.key, c.spec.Title(), s.param, registry.DidYouMean(s.param, c.spec.ParamNames()), strings.Join(c.spec.ParamNames(), ", "))
		}
		v, err := paramValue(c.spec, p, s.value)
		if err != nil {
			return nil, fmt.Errorf("swept key %q: %w", s.key, err)
		}
		d.raw[s.param] = v
		delete(d.nested, s.param)
		if n := componentOf(s.value); n != nil {
			d.nested[s.param] = n
		}
	}
	if c.spec.Kind == registry.Dataset {
		var err error
		d.value, err = in.dataset(d)
		return d, err
	}
	if _, err := c.spec.Validate(d.raw); err != nil {
		return nil, err
	}
	return d, nil
}

// withSettings returns p with the problem settings of a configuration
// applied (p itself if there are none).
func (in *interp) withSettings(p *problem, c sweepConfig) (*problem, error) {
	if len(c) == 0 {
		return p, nil
	}
	q := *p
	var err error
	parts := map[string]**component{"data": &q.data, "loss": &q.loss, "reg": &q.reg, "mirror": &q.mirror}
	for _, part := range problemParts {
		settings := c.of(part)
		dst := parts[part]
		if len(settings) == 0 {
			continue
		}
		if *dst == nil {
			return nil, fmt.Errorf("swept key %q: the problem has no %s", settings[0].key, part)
		}
		if *dst, err = in.derive(*dst, settings); err != nil {
			return nil, err
		}
	}
	return &q, nil
}
