package luaapi

import (
	"fmt"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

// metatableName names the metatable shared by component and problem userdata.
const metatableName = "fedlab.value"

// installMetatable gives component and problem userdata a __tostring and
// the dataset methods data:clients(), data:samples(), data:features(),
// data:classes().
func (in *interp) installMetatable() {
	mt := in.L.NewTypeMetatable(metatableName)
	mt.RawSetString("__tostring", in.L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(fmt.Sprint(L.CheckUserData(1).Value)))
		return 1
	}))
	methods := in.L.NewTable()
	for name, get := range map[string]func(*core.Federated) int{
		"clients":  (*core.Federated).Clients,
		"samples":  (*core.Federated).Samples,
		"features": func(f *core.Federated) int { return f.Features },
		"classes":  func(f *core.Federated) int { return f.Classes },
	} {
		methods.RawSetString(name, in.protect(func(L *lua.LState) (int, error) {
			f, err := dataset(L.Get(1), "data:"+name+"()")
			if err != nil {
				return 0, err
			}
			L.Push(lua.LNumber(get(f)))
			return 1, nil
		}))
	}
	mt.RawSetString("__index", methods)
}

// dataset returns the data of a dataset component.
func dataset(v lua.LValue, what string) (*core.Federated, error) {
	c, err := asComponent(v, registry.Dataset, what)
	if err != nil {
		return nil, err
	}
	return c.value.(*core.Federated), nil
}

// fnInfo is fedlab.info(x) for a dataset or a problem: a table with name,
// clients, samples, features, classes, test_samples, storage (and for a
// problem dim and layout). For a topology, see topologyInfo.
func (in *interp) fnInfo(L *lua.LState) (int, error) {
	if c, err := asComponent(L.Get(1), registry.Topology, "fedlab.info"); err == nil {
		return in.topologyInfo(L, c)
	}
	var f *core.Federated
	var cp *core.Problem
	if p, err := asProblem(L.Get(1), "fedlab.info"); err == nil {
		if cp, err = in.coreProblem(p, 1); err != nil {
			return 0, err
		}
		f = cp.Data
	} else if f, err = dataset(L.Get(1), "fedlab.info"); err != nil {
		return 0, fmt.Errorf("fedlab.info: expected a dataset, a problem or a topology, got %s", typeText(L.Get(1)))
	}
	t := L.NewTable()
	t.RawSetString("name", lua.LString(f.Name))
	t.RawSetString("clients", lua.LNumber(f.Clients()))
	t.RawSetString("samples", lua.LNumber(f.Samples()))
	t.RawSetString("features", lua.LNumber(f.Features))
	t.RawSetString("classes", lua.LNumber(f.Classes))
	test := 0
	for _, d := range f.Test {
		test += d.N
	}
	t.RawSetString("test_samples", lua.LNumber(test))
	t.RawSetString("storage", lua.LString(storage(f)))
	if cp != nil {
		t.RawSetString("dim", lua.LNumber(cp.Dim()))
		t.RawSetString("layout", lua.LString(cp.Layout.String()))
	}
	L.Push(t)
	return 1, nil
}

// storage names how a dataset holds its features: "sparse", "8-bit" (a
// byte per feature read through a table of 256 values: images, and LEAF
// files whose values all are k/255 or integers 0..255) or "float64".
func storage(f *core.Federated) string {
	switch {
	case f.IsSparse():
		return "sparse"
	case len(f.Train) > 0 && f.Train[0].Is8Bit():
		return "8-bit"
	}
	return "float64"
}
