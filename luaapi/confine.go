package luaapi

import (
	"errors"

	"github.com/fedlab/fedlab/internal/budget"

	lua "github.com/yuin/gopher-lua"
)

// confine binds the Lua state to the guard: the interpreter checks the
// context between instructions (a signal, --timeout or the memory ceiling
// stops `while true do end`), and string.rep refuses results above the
// ceiling before allocating them. It also replaces pcall (see pcall) and
// xpcall (see xpcall), both nested at most maxCCalls deep (see nested),
// unpack (see unpack) and error, which remembers where it raised a value
// that is not a string (see errorObject).
func (in *interp) confine() {
	in.L.SetContext(in.guard.ctx)
	depth := new(int) // pcall and xpcall calls nested now (see nested)
	in.L.SetGlobal("pcall", in.L.NewFunction(nested(depth, in.pcall)))
	in.L.SetGlobal("xpcall", in.L.NewFunction(nested(depth, in.xpcall)))
	if orig, ok := in.L.GetGlobal("unpack").(*lua.LFunction); ok {
		in.L.SetGlobal("unpack", in.L.NewFunction(unpack(orig)))
	}
	in.L.SetGlobal("error", in.L.NewFunction(func(L *lua.LState) int {
		obj, level := L.Get(1), L.OptInt(2, 1)
		if _, ok := obj.(lua.LString); !ok && level > 0 {
			in.raised = raised{obj, L.Where(level)}
		}
		L.Error(obj, level)
		return 0
	}))
	lim := in.guard.budget
	// `..`, loadstring, load and table.concat check sizes (see concat.go)
	in.L.SetGlobal(concatGlobal, in.L.NewFunction(concat(lim, in.guard.held)))
	in.L.SetGlobal(concatPartGlobal, in.L.NewFunction(concatPartial))
	chunk := in.opts.chunkLimit
	if chunk == 0 {
		chunk = maxChunk
	}
	in.L.SetGlobal("loadstring", in.L.NewFunction(guardedLoadString(chunk)))
	in.L.SetGlobal("load", in.L.NewFunction(guardedLoad(chunk)))
	if tbl, ok := in.L.GetGlobal("table").(*lua.LTable); ok {
		tbl.RawSetString("concat", in.L.NewFunction(tableConcat(lim, in.guard.held)))
	}
	str, ok := in.L.GetGlobal("string").(*lua.LTable)
	if !ok {
		return
	}
	if orig, ok := str.RawGetString("format").(*lua.LFunction); ok {
		str.RawSetString("format", in.L.NewFunction(stringFormat(lim, in.guard.held, orig)))
	}
	str.RawSetString("gsub", in.L.NewFunction(gsub(lim, in.guard.held)))
	if lim.Limit == 0 {
		return
	}
	rep := str.RawGetString("rep")
	str.RawSetString("rep", in.L.NewFunction(func(L *lua.LState) int {
		s, n := L.CheckString(1), float64(L.CheckNumber(2))
		if need := float64(len(s)) * n; need > float64(lim.Limit) {
			L.RaiseError("string.rep: the result would take %s, more than the memory ceiling of %s (%s; --max-memory sets it)",
				budget.Format(uint64(min(need, 1<<63))), budget.Format(lim.Limit), lim.Source)
		} else if err := fits(lim, in.guard.held, "string.rep", uint64(max(need, 0))); err != nil {
			L.RaiseError("%s", err) // beside what the process holds
		}
		L.Push(rep)
		L.Push(lua.LString(s))
		L.Push(lua.LNumber(n))
		L.Call(2, 1)
		return 1
	}))
}

// pcall replaces Lua's pcall, working around gopher-lua issue 448: when a
// function called by its pcall fails, gopher-lua closes the upvalues of
// every frame on the stack, not only of the frames the error unwinds, so a
// closure stops seeing later assignments to the caller's locals (`local
// failed; local function check() return failed end; pcall(error);
// failed = true` leaves check() returning nil). This pcall runs the
// function on a separate Lua thread: the error unwinds that thread only,
// and the caller's upvalues stay open. Results and errors are those of
// Lua's pcall.
func (in *interp) pcall(L *lua.LState) int {
	fn := L.CheckAny(1)
	if fn.Type() != lua.LTFunction && L.GetMetaField(fn, "__call").Type() != lua.LTFunction {
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + fn.Type().String() + " value"))
		return 2
	}
	return in.onThread(L, 1, L.GetTop()-1, nil)
}

// xpcall replaces Lua's xpcall for the reason of pcall: f runs on a
// separate Lua thread, and handler is called with its error. Results and
// errors are those of Lua's xpcall.
func (in *interp) xpcall(L *lua.LState) int {
	L.CheckFunction(1)
	handler := L.CheckFunction(2)
	return in.onThread(L, 1, 0, handler)
}

// onThread calls the function at index fn of L's frame with the nargs
// values after it on a thread of its own (see pcall), handler (if not
// nil) called with an error, and pushes true and its results, or false
// and the error.
func (in *interp) onThread(L *lua.LState, fn, nargs int, handler *lua.LFunction) int {
	var co *lua.LState
	if n := len(in.threads); n > 0 {
		co, in.threads = in.threads[n-1], in.threads[:n-1]
	} else {
		co, _ = L.NewThread() // its context ends with the script's
	}
	defer func() { in.threads = append(in.threads, co) }()
	co.SetTop(0)
	for i := fn; i <= fn+nargs; i++ {
		co.Push(L.Get(i))
	}
	if err := co.PCall(nargs, lua.MultRet, handler); err != nil {
		co.SetTop(0)
		L.Push(lua.LFalse)
		var ae *lua.ApiError
		if errors.As(err, &ae) {
			L.Push(ae.Object)
		} else {
			L.Push(lua.LString(err.Error()))
		}
		return 2
	}
	n := co.GetTop()
	L.Push(lua.LTrue)
	for i := 1; i <= n; i++ {
		L.Push(co.Get(i))
	}
	co.SetTop(0)
	return n + 1
}
