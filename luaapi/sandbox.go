package luaapi

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// unsafeGlobals are base-library functions that reach the file system or
// load modules; they are removed unless Options.Unsafe.
var unsafeGlobals = []string{"dofile", "loadfile", "require", "module"}

// sandboxed is the error of a library function the sandbox leaves out.
func sandboxed(name string) string {
	return fmt.Sprintf("%s is not available in the sandbox (a script reads its data through fedlab.data and writes inside its run directory); run fedlab with --unsafe to allow it", name)
}

// newState opens a Lua state with the safe libraries only (base, table,
// string, math), plus os, io and package if opts.Unsafe. print writes to
// opts.Stdout.
func newState(opts Options) *lua.LState {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, RegistryMaxSize: registryMax})
	libs := []struct {
		name string
		open lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}}
	if opts.Unsafe {
		libs = append(libs, []struct {
			name string
			open lua.LGFunction
		}{{lua.LoadLibName, lua.OpenPackage}, {lua.OsLibName, lua.OpenOs}, {lua.IoLibName, lua.OpenIo}}...)
	}
	for _, lib := range libs {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	L.SetGlobal("_printregs", lua.LNil)
	if !opts.Unsafe {
		for _, name := range unsafeGlobals {
			L.SetGlobal(name, L.NewFunction(func(L *lua.LState) int {
				L.RaiseError("%s", sandboxed(name))
				return 0
			}))
		}
		for _, lib := range []string{lua.OsLibName, lua.IoLibName, lua.LoadLibName} {
			mt := L.NewTable()
			mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
				L.RaiseError("%s", sandboxed(lib+"."+L.CheckAny(2).String()))
				return 0
			}))
			mt.RawSetString("__newindex", mt.RawGetString("__index"))
			stub := L.NewTable()
			L.SetMetatable(stub, mt)
			L.SetGlobal(lib, stub)
		}
	}
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		parts := make([]string, L.GetTop())
		for i := range parts {
			parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
		}
		fmt.Fprintln(opts.Stdout, strings.Join(parts, "\t"))
		return 0
	}))
	return L
}
