package luaapi

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/schedules/sched"
	lua "github.com/yuin/gopher-lua"
)

// pending is a schedule parameter that can be built only once the number of
// rounds is known: a Lua function of the round, or a schedule component
// with such a parameter. It passes registry validation as a schedule whose
// range is unknown; its At is never called. Plans receive it tabulated
// (see planComponent).
type pending interface {
	sched.Schedule
	pending()
}

// luaSchedule is a Lua function of the round, tabulated before a run.
type luaSchedule struct {
	fn    *lua.LFunction
	title string // component, for messages
	param string
}

// At is never called (see pending).
func (*luaSchedule) At(int) float64 { return math.NaN() }
func (*luaSchedule) pending()       {}

// tabulate calls the function for r = 0 … rounds−1 on the Lua thread and
// returns the values. Errors carry the script position of the failure (or
// of the function, if it returned a non-number).
func (s *luaSchedule) tabulate(in *interp, rounds int) (sched.Table, error) {
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

// pendingSchedule stands for a schedule component with a pending
// parameter (the component itself is in component.nested).
type pendingSchedule struct{}

// At is never called (see pending).
func (pendingSchedule) At(int) float64 { return math.NaN() }
func (pendingSchedule) pending()       {}

// tableFits refuses to tabulate a Lua schedule whose table would not fit
// in the budget.
func (in *interp) tableFits(s *luaSchedule, rounds int) error {
	return in.guard.budget.Check(fmt.Sprintf("%s: parameter %q: the function's table of values for %d rounds", s.title, s.param, rounds),
		budget.Product(rounds, 8), "run fewer rounds")
}
