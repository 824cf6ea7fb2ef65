package luaapi

import (
	"fmt"
	"math"
	"slices"

	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/sched"
	lua "github.com/yuin/gopher-lua"
)

// pending is a schedule parameter that can be built only once the number of
// rounds is known: a Lua function of the round, or a schedule component
// with such a parameter. It passes registry validation as a schedule whose
// range is unknown; its At is never called.
type pending interface {
	sched.Schedule
	resolve(in *interp, rounds int) (sched.Schedule, error)
}

// luaSchedule is a Lua function of the round, tabulated before a run.
type luaSchedule struct {
	fn    *lua.LFunction
	title string // component, for messages
	param string
}

// At is never called (see pending).
func (*luaSchedule) At(int) float64 { return math.NaN() }

// resolve calls the function for r = 0 … rounds−1 on the Lua thread and
// returns the values as a sched.Table. Errors carry the script position of
// the failure (or of the function, if it returned a non-number, NaN or
// ±Inf) and the round.
func (s *luaSchedule) resolve(in *interp, rounds int) (sched.Schedule, error) {
	if err := in.tableFits(s, rounds); err != nil {
		return nil, err
	}
	t := make(sched.Table, max(rounds, 1))
	for r := range t {
		if err := in.L.CallByParam(lua.P{Fn: s.fn, NRet: 1, Protect: true}, lua.LNumber(r)); err != nil {
			return nil, located{fmt.Sprintf("%s (in the function given for %s parameter %q, at round %d)", luaMessage(err), s.title, s.param, r)}
		}
		v := in.L.Get(-1)
		in.L.Pop(1)
		x, ok := v.(lua.LNumber)
		if !ok {
			return nil, located{fmt.Sprintf("%s:%d: %s: parameter %q: the function returned %s at round %d, expected a number",
				s.fn.Proto.SourceName, s.fn.Proto.LineDefined, s.title, s.param, typeText(v), r)}
		}
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, located{fmt.Sprintf("%s:%d: %s: parameter %q: the function returned %g at round %d, expected a finite number",
				s.fn.Proto.SourceName, s.fn.Proto.LineDefined, s.title, s.param, f, r)}
		}
		t[r] = float64(x)
	}
	return t, nil
}

// pendingSchedule is a schedule component with a pending parameter.
type pendingSchedule struct{ c *component }

// At is never called (see pending).
func (pendingSchedule) At(int) float64 { return math.NaN() }

func (p pendingSchedule) resolve(in *interp, rounds int) (sched.Schedule, error) {
	return build[sched.Schedule](in, p.c, rounds)
}

// resolve returns a copy of raw with every pending parameter built for a
// run of the given number of rounds (keys in sorted order, so Lua functions
// are called in a fixed order).
func (in *interp) resolve(raw map[string]any, rounds int) (map[string]any, error) {
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(map[string]any, len(raw))
	for _, k := range keys {
		v := raw[k]
		if p, ok := v.(pending); ok {
			s, err := p.resolve(in, rounds)
			if err != nil {
				return nil, err
			}
			v = s
		}
		out[k] = v
	}
	return out, nil
}

// build resolves c's parameters for the given number of rounds and builds it.
func build[T any](in *interp, c *component, rounds int) (T, error) {
	raw, err := in.resolve(c.raw, rounds)
	if err != nil {
		var zero T
		return zero, err
	}
	return registry.Build[T](c.spec.Kind, c.spec.Name, raw)
}
