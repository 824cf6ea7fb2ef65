package luaapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"time"

	"github.com/fedlab/fedlab/datasets"
	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/rundir"

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

// reserved are the names fedlab keeps in a run directory; a script cannot
// write them, even with --unsafe.
var reserved = rundir.Reserved()

// output resolves a path that fn (e.g. "fedlab.csv") writes. Relative
// paths resolve against the run directory (Options.Out; the current
// directory when runs are kept in memory). Without --unsafe, absolute
// paths and paths that leave the run directory (through ".." or a
// symbolic link) are refused; fedlab's own files in the run directory are
// refused always.
func (in *interp) output(fn, path string) (string, error) {
	base := in.opts.Out
	if base == "" {
		base = "."
	}
	target := path
	if !filepath.IsAbs(path) {
		target = filepath.Join(base, path)
	}
	rel, err := filepath.Rel(base, target)
	inside := err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	if !in.opts.Unsafe {
		switch {
		case filepath.IsAbs(path):
			return "", fmt.Errorf("%s: absolute path %s refused: without --unsafe a script writes only inside its run directory (give a path relative to it, or run with --unsafe)", fn, escape.Quote(path, 200))
		case !inside:
			return "", fmt.Errorf("%s: path %s leaves the run directory: without --unsafe a script writes only inside it (remove the \"..\", or run with --unsafe)", fn, escape.Quote(path, 200))
		case rel == ".":
			return "", fmt.Errorf("%s: path %s names the run directory itself, expected a file name", fn, escape.Quote(path, 200))
		}
		if err := insideAfterLinks(base, target); err != nil {
			return "", fmt.Errorf("%s: path %s %v: without --unsafe a script writes only inside the run directory", fn, escape.Quote(path, 200), err)
		}
	}
	if inside && in.opts.Out != "" {
		first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		if slices.Contains(reserved, first) {
			return "", fmt.Errorf("%s: %s is reserved in the run directory (fedlab keeps %s there)", fn, escape.Quote(path, 200), strings.Join(reserved, ", "))
		}
	}
	return target, nil
}

// insideAfterLinks checks that the deepest existing directory on the way
// to target, with symbolic links resolved, is inside base (also resolved).
func insideAfterLinks(base, target string) error {
	realBase, err := filepath.EvalSymlinks(base)
	if err != nil {
		return nil // the run directory does not exist yet: nothing in it can be a link
	}
	dir := filepath.Dir(target)
	for {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			rel, err := filepath.Rel(realBase, real)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return fmt.Errorf("leads through a symbolic link to %s", escape.Quote(real, 200))
			}
			return nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}

// guard bounds a script: its context ends on a signal or a time limit
// (Options.Context) or when the process's heap passes the memory ceiling.
type guard struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	budget budget.Budget // data and state estimates are checked against it
	stderr io.Writer     // where a runaway is reported before the process exits
	done   chan struct{}
	// gcLimit is the Go runtime's soft memory limit before the guard
	// lowered it to the runaway bound (-1: not lowered), restored at stop.
	gcLimit int64
}

// MemoryCeiling is the cause of a script stopped by the memory ceiling.
type MemoryCeiling struct {
	Used   uint64
	Budget budget.Budget
}

// Error says what happened and what to do.
func (e *MemoryCeiling) Error() string {
	return fmt.Sprintf("memory ceiling reached: the process holds %s, more than the ceiling of %s (%s): a string or table that grows without bound, or data too large (--max-memory sets the ceiling)",
		budget.Format(e.Used), budget.Format(e.Budget.Limit), e.Budget.Source)
}

// memoryCheck is how often the guard measures the heap.
const memoryCheck = 10 * time.Millisecond

// runawayBound is the memory at which a process whose script the ceiling
// (or a signal, or a time limit) has stopped is ended: the ceiling and half
// of it again. Code that honours its context stops allocating when the
// script is stopped; a component that neither declares its size
// (registry.Sizer) nor checks its context would go on until the kernel
// kills the process, so the guard ends it first, with the ceiling's
// message. The half leaves room for the one allocation in flight when the
// ceiling is passed (the default ceiling is half the available memory, so
// the bound stays below it).
func runawayBound(b budget.Budget) uint64 { return budget.Sum(b.Limit, b.Limit/2) }

// newGuard starts the guard of a script. The memory ceiling is
// Options.MaxMemory, or the share of the process's limits that
// budget.Ceiling gives. Under a ceiling, the Go runtime's soft memory limit
// is also lowered to the runaway bound while the script runs (a backstop:
// the garbage collector works harder before garbage can push the process
// past it).
func newGuard(opts Options) *guard {
	parent := opts.Context
	if parent == nil {
		parent = context.Background()
	}
	g := &guard{budget: budget.Ceiling(opts.MaxMemory), stderr: opts.Stderr, done: make(chan struct{}), gcLimit: -1}
	datasets.SetMemoryCeiling(g.budget) // the file readers stop at the same ceiling while they read
	g.ctx, g.cancel = context.WithCancelCause(parent)
	datasets.SetReadContext(g.ctx) // and stop when the script is stopped
	if g.budget.Limit > 0 {
		if bound := runawayBound(g.budget); bound < math.MaxInt64 {
			if prev := debug.SetMemoryLimit(-1); int64(bound) < prev {
				g.gcLimit = debug.SetMemoryLimit(int64(bound))
			}
		}
		go g.watch()
	}
	return g
}

// watch cancels the context when the process passes the ceiling: its live
// heap, or, under a limit on its address space (ulimit -v), all the memory
// the Go runtime has mapped, which a garbage collection does not give back
// and which the next doubling of a string must fit beside. It goes on
// watching until the script ends: a process that passes the runaway bound
// after its context ended is ended (see runaway).
func (g *guard) watch() {
	tick := time.NewTicker(memoryCheck)
	defer tick.Stop()
	sample := []metrics.Sample{{Name: heldMetric(g.budget)}}
	bound := runawayBound(g.budget)
	for {
		select {
		case <-g.done:
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Uint64() <= g.budget.Limit {
			continue
		}
		if !g.budget.AddressSpace {
			runtime.GC() // count live data only
			metrics.Read(sample)
		}
		used := sample[0].Value.Uint64()
		switch {
		case used > bound && g.ctx.Err() != nil:
			g.runaway(used)
		case used > g.budget.Limit && g.ctx.Err() == nil:
			g.cancel(&MemoryCeiling{Used: used, Budget: g.budget})
			runtime.GC()
		}
	}
}

// runaway ends the process: the script was stopped, and something goes on
// allocating past the runaway bound (a component that neither declares its
// size nor checks its context). Go cannot stop that goroutine, and the
// kernel would end the process without a word: the ceiling's message is
// printed as fedlab prints errors, and the process exits with status 1,
// the status of the memory ceiling. The run directory keeps what was
// written before (its files are written atomically; the next run resumes).
func (g *guard) runaway(used uint64) {
	w := g.stderr
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "fedlab: %s; a component went on allocating after the script was stopped (it declares no size and does not check its context), so the process ends at %s\n",
		&MemoryCeiling{Used: used, Budget: g.budget}, budget.Format(runawayBound(g.budget)))
	os.Exit(1)
}

// stop ends the guard.
func (g *guard) stop() {
	datasets.SetReadContext(nil)
	close(g.done)
	g.cancel(nil)
	if g.gcLimit >= 0 {
		debug.SetMemoryLimit(g.gcLimit)
	}
}

// interruption turns the error of a script whose context ended into a
// *rundir.Interrupted naming the script line it stopped at.
func (g *guard) interruption(name string, err error) error {
	if g.ctx.Err() == nil {
		return err
	}
	var intr *rundir.Interrupted
	if errors.As(err, &intr) {
		return err
	}
	where := name
	if err != nil {
		if m := regexp.MustCompile(`^` + regexp.QuoteMeta(name) + `:\d+`).FindString(err.Error()); m != "" {
			where = m
		}
	}
	return &rundir.Interrupted{Where: where, Cause: context.Cause(g.ctx)}
}

// heldMetric names the runtime metric that counts against b: the heap's
// objects (live or not yet collected), or, under a limit on the address
// space, all the memory the Go runtime has mapped.
func heldMetric(b budget.Budget) string {
	if b.AddressSpace {
		return "/memory/classes/total:bytes"
	}
	return "/memory/classes/heap/objects:bytes"
}

// held reads what the process holds against the guard's ceiling now (see
// heldMetric).
func (g *guard) held() uint64 {
	sample := []metrics.Sample{{Name: heldMetric(g.budget)}}
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

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
	in.L.SetGlobal("loadstring", in.L.NewFunction(guardedLoadString))
	in.L.SetGlobal("load", in.L.NewFunction(guardedLoad))
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

// raised is the last value that is not a string raised by error, and
// where ("script.lua:12:").
type raised struct {
	value lua.LValue
	where string
}

// errorObject gives an error whose value is not a string (error({...}))
// the script line that raised it and a readable rendering of the value;
// Lua itself reports only "table: 0x…".
func (in *interp) errorObject(err error) error {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return err
	}
	if _, ok := ae.Object.(lua.LString); ok {
		return err
	}
	msg := "error value " + describeValue(ae.Object, 2)
	if in.raised.value == ae.Object {
		msg = in.raised.where + " " + msg
	}
	return errors.New(msg)
}

// describeValue renders a Lua value for a message: tables as { k = v, … }
// (at most 8 entries, depth levels deep), strings quoted.
func describeValue(v lua.LValue, depth int) string {
	switch x := v.(type) {
	case lua.LString:
		return escape.Quote(string(x), 200)
	case *lua.LTable:
		if depth == 0 {
			return "{…}"
		}
		var parts []string
		x.ForEach(func(k, val lua.LValue) {
			key := k.String()
			if _, ok := k.(lua.LString); !ok {
				key = "[" + describeValue(k, 0) + "]"
			}
			parts = append(parts, key+" = "+describeValue(val, depth-1))
		})
		slices.Sort(parts) // Lua's order of keys is not fixed
		if len(parts) > 8 {
			parts = append(parts[:8], "…")
		}
		if len(parts) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	return v.String()
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
