package luaapi

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// problem is what fedlab.problem returns: the specifications of its parts.
// Each call converts it to a plan.Problem (Lua functions tabulated for the
// call's rounds); the plan builder builds each distinct problem once, so a
// problem without Lua functions, and its reference optimum, are shared by
// every call.
type problem struct {
	data, loss, reg, mirror *component // mirror nil: Euclidean
	weighted                bool
}

// String renders the problem's parts.
func (p *problem) String() string {
	s := fmt.Sprintf("problem {data = %s, loss = %s, reg = %s", p.data.spec.Name, p.loss.spec.Name, p.reg.spec.Name)
	if p.mirror != nil {
		s += ", mirror = " + p.mirror.spec.Name
	}
	return s + fmt.Sprintf(", weighted = %v}", p.weighted)
}

// fnProblem is fedlab.problem{data=, loss=, reg=, mirror=, weighted=}.
func (in *interp) fnProblem(L *lua.LState) (int, error) {
	f, err := tableArg(L, problemCall)
	if err != nil {
		return 0, err
	}
	p := &problem{
		data:     f.component("data", registry.Dataset),
		loss:     f.component("loss", registry.Loss),
		reg:      f.component("reg", registry.Regularizer),
		mirror:   f.component("mirror", registry.Mirror),
		weighted: f.boolean("weighted", false),
	}
	if err := f.error(); err != nil {
		return 0, err
	}
	if p.reg == nil {
		spec, ok := registry.Lookup(registry.Regularizer, "none")
		if !ok {
			return 0, fmt.Errorf("fedlab.problem: no reg given and the regularizer \"none\" is not registered")
		}
		p.reg = &component{spec: spec, label: spec.Name, raw: map[string]any{}}
	}
	if !p.pending() { // built now, so that mistakes are reported here
		if _, err = in.coreProblem(p, 0); err != nil {
			return 0, err
		}
	}
	L.Push(in.userdata(p))
	return 1, nil
}

// pending reports whether a part has Lua-function parameters.
func (p *problem) pending() bool {
	return p.loss.pendingParams() || p.reg.pendingParams() || (p.mirror != nil && p.mirror.pendingParams())
}

// coreProblem returns the problem for a run of the given number of rounds.
func (in *interp) coreProblem(p *problem, rounds int) (*core.Problem, error) {
	pp, err := in.planProblem(p, rounds)
	if err != nil {
		return nil, err
	}
	cp, _, err := in.builder.Problem(pp)
	if err != nil {
		return nil, fmt.Errorf("fedlab.problem: %w", err)
	}
	return cp, nil
}

// asProblem checks that v is a problem.
func asProblem(v lua.LValue, what string) (*problem, error) {
	if ud, ok := v.(*lua.LUserData); ok {
		if p, ok := ud.Value.(*problem); ok {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%s: expected a problem (from fedlab.problem), got %s", what, typeText(v))
}

// fnOptimum is fedlab.optimum(problem): the reference optimum at the λ of
// round 0, as {objective=, lambda=, iters=}.
func (in *interp) fnOptimum(L *lua.LState) (int, error) {
	p, err := asProblem(L.Get(1), "fedlab.optimum")
	if err != nil {
		return 0, err
	}
	cp, err := in.coreProblem(p, 1)
	if err != nil {
		return 0, err
	}
	if in.dry != nil {
		in.dryNote("fedlab.optimum at %s: the reference solve is skipped (objective, lambda and iters NaN)", in.where())
		t := L.NewTable()
		for _, k := range []string{"objective", "lambda", "iters"} {
			t.RawSetString(k, lua.LNumber(math.NaN()))
		}
		L.Push(t)
		return 1, nil
	}
	ref, err := cp.Reference()
	if err != nil {
		return 0, fmt.Errorf("fedlab.optimum: %w", err)
	}
	t := L.NewTable()
	t.RawSetString("objective", lua.LNumber(ref.Objective))
	t.RawSetString("lambda", lua.LNumber(ref.Lambda))
	t.RawSetString("iters", lua.LNumber(ref.Iters))
	L.Push(t)
	return 1, nil
}

// tableArg reads the single table argument of call c strictly. Unknown and
// missing keys are collected in the fields with the mistakes the getters
// find (fields.error reports them all); the error is for a call without
// one table.
func tableArg(L *lua.LState, c *callTable) (*fields, error) {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("%s: expected a table of named arguments, got %s", c.Name, typeText(L.Get(1)))
	}
	if L.GetTop() > 1 {
		return nil, fmt.Errorf("%s takes one table of named arguments, got %d arguments", c.Name, L.GetTop())
	}
	return c.read(t), nil
}

// optionsArg reads the optional options table of call c at argument n (nil
// fields, no error, when it is absent).
func optionsArg(L *lua.LState, n int, c *callTable) (*fields, error) {
	switch o := L.Get(n).(type) {
	case *lua.LNilType:
		return nil, nil
	case *lua.LTable:
		f := c.read(o)
		return f, f.error()
	default:
		return nil, fmt.Errorf("%s: argument %d: expected a table of options, got %s", c.Name, n, typeText(o))
	}
}
