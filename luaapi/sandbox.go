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
	if opts.Unsafe && opts.DryRun {
		dryRunLibs(L)
	}
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

// dryRunLibs makes the functions of the os and io libraries that write
// files or run commands fail in a dry run (--dry-run --unsafe), saying
// so: a dry run writes nothing. Reading (io.open for reading, io.lines,
// os.getenv, os.clock) works as in a run.
func dryRunLibs(L *lua.LState) {
	refuse := func(what string) {
		L.RaiseError("%s: a dry run writes nothing and runs no command; run the script without --dry-run to do it", what)
	}
	io := L.GetGlobal(lua.IoLibName).(*lua.LTable)
	os := L.GetGlobal(lua.OsLibName).(*lua.LTable)
	open := io.RawGetString("open")
	io.RawSetString("open", L.NewFunction(func(L *lua.LState) int {
		name, mode := L.CheckString(1), L.OptString(2, "r")
		if strings.ContainsAny(mode, "wa+") {
			refuse(fmt.Sprintf("io.open(%q, %q)", name, mode))
		}
		top := L.GetTop()
		L.Push(open)
		L.Push(lua.LString(name))
		L.Push(lua.LString(mode))
		L.Call(2, lua.MultRet)
		return L.GetTop() - top
	}))
	output := io.RawGetString("output")
	io.RawSetString("output", L.NewFunction(func(L *lua.LState) int {
		if name, ok := L.Get(1).(lua.LString); ok {
			refuse(fmt.Sprintf("io.output(%q)", string(name)))
		}
		top := L.GetTop()
		L.Push(output)
		for i := 1; i <= top; i++ {
			L.Push(L.Get(i))
		}
		L.Call(top, lua.MultRet)
		return L.GetTop() - top
	}))
	for _, f := range []struct {
		lib  *lua.LTable
		name string
	}{{io, "popen"}, {os, "execute"}, {os, "remove"}, {os, "rename"}, {os, "tmpname"}} {
		what := f.name
		if f.lib == io {
			what = "io." + what
		} else {
			what = "os." + what
		}
		f.lib.RawSetString(f.name, L.NewFunction(func(L *lua.LState) int {
			refuse(what)
			return 0
		}))
	}
}
