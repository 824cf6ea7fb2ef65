package luaapi

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/fedlab/fedlab/internal/budget"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

// gopher-lua allocates the result of `..` in one step, with no hook: under
// a `ulimit -v` the concatenation of two large strings could ask the Go
// runtime for more than the process may map, and the runtime ends the
// process ("fatal error: out of memory") before the memory guard's next
// look. So fedlab compiles scripts with every `a .. b` turned into a call
// of concatGlobal, which checks the result's size against the memory left
// under the ceiling before it allocates; table.concat and string.format
// are checked the same way (see confine).

// concatGlobal is the global the compiled `..` calls.
const concatGlobal = "__fedlab_concat"

// checkedSize is the result size from which concatenations are checked
// (smaller ones cannot matter, and skip the measurement).
const checkedSize = 1 << 20

// compile parses and compiles a chunk with its concatenations checked.
func compile(r io.Reader, name string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(r, name)
	if err != nil {
		return nil, err
	}
	for _, s := range chunk {
		guardStmt(s)
	}
	return lua.Compile(chunk, name)
}

// load compiles a chunk (see compile) into a function of L's globals, with
// the errors of LState.Load.
func load(L *lua.LState, r io.Reader, name string) (*lua.LFunction, error) {
	proto, err := compile(r, name)
	if err != nil {
		return nil, &lua.ApiError{Type: lua.ApiErrorSyntax, Object: lua.LString(err.Error()), Cause: err}
	}
	return L.NewFunctionFromProto(proto), nil
}

// guardedLoadString is loadstring(s [, name]) compiling with checked
// concatenations.
func guardedLoadString(L *lua.LState) int {
	fn, err := load(L, strings.NewReader(L.CheckString(1)), L.OptString(2, "<string>"))
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	L.Push(fn)
	return 1
}

// guardedLoad is load(reader [, name]) compiling with checked
// concatenations: reader is called until it returns nil or "".
func guardedLoad(L *lua.LState) int {
	reader := L.CheckFunction(1)
	name := L.OptString(2, "?")
	var b strings.Builder
	for {
		L.Push(reader)
		L.Call(0, 1)
		piece := L.Get(-1)
		L.Pop(1)
		if piece == lua.LNil {
			break
		}
		if !lua.LVCanConvToString(piece) {
			L.Push(lua.LNil)
			L.Push(lua.LString("reader function must return a string"))
			return 2
		}
		if s := lua.LVAsString(piece); s != "" {
			b.WriteString(s)
			continue
		}
		break
	}
	L.Replace(1, lua.LString(b.String()))
	L.Replace(2, lua.LString(name))
	L.SetTop(2)
	return guardedLoadString(L)
}

// concat is a .. b with the result's size checked against the memory left
// under the ceiling b (held: what the process holds against it now).
func concat(lim budget.Budget, held func() uint64, raw *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		a, b := L.Get(1), L.Get(2)
		if !lua.LVCanConvToString(a) || !lua.LVCanConvToString(b) {
			if L.GetMetaField(a, "__concat") == lua.LNil && L.GetMetaField(b, "__concat") == lua.LNil {
				L.RaiseError("cannot perform concat operation between %s and %s", a.Type(), b.Type())
			}
			// a metamethod: the interpreter's own `..` calls it
			L.Push(raw)
			L.Push(a)
			L.Push(b)
			L.Call(2, 1)
			return 1
		}
		sa, sb := lua.LVAsString(a), lua.LVAsString(b)
		if err := fits(lim, held, "the concatenation (..)", uint64(len(sa))+uint64(len(sb))); err != nil {
			L.RaiseError("%s", err)
		}
		L.Push(lua.LString(sa + sb))
		return 1
	}
}

// fits refuses a result of need bytes (from op) when the ceiling is known
// and what the process holds leaves less than that under it.
func fits(lim budget.Budget, held func() uint64, op string, need uint64) error {
	if lim.Limit == 0 || need < checkedSize {
		return nil
	}
	h := held()
	if need <= lim.Limit && h <= lim.Limit-need {
		return nil
	}
	if !lim.AddressSpace { // count live data only, as the guard does
		runtime.GC()
		if h = held(); need <= lim.Limit && h <= lim.Limit-need {
			return nil
		}
	}
	return fmt.Errorf("memory ceiling reached: %s would make a string of %s beside the %s the process holds, more than the ceiling of %s (%s): a string that grows without bound? (--max-memory sets the ceiling)",
		op, budget.Format(need), budget.Format(h), budget.Format(lim.Limit), lim.Source)
}

// stringFormat is string.format with its result's size bounded before it
// is made: the format's length plus every string argument's (a number
// takes at most 64 bytes; widths are Lua's, at most 99); the original
// does the work.
func stringFormat(lim budget.Budget, held func() uint64, orig *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		n := L.GetTop()
		need := uint64(len(L.CheckString(1)))
		for i := 2; i <= n; i++ {
			if v, ok := L.Get(i).(lua.LString); ok {
				need += uint64(len(v)) + 99
			} else {
				need += 99
			}
		}
		if err := fits(lim, held, "string.format", need); err != nil {
			L.RaiseError("%s", err)
		}
		return callOriginal(L, orig, n)
	}
}

// callOriginal calls orig with the n arguments of L's frame and returns
// its one result.
func callOriginal(L *lua.LState, orig *lua.LFunction, n int) int {
	L.Push(orig)
	for i := 1; i <= n; i++ {
		L.Push(L.Get(i))
	}
	L.Call(n, 1)
	return 1
}

// tableConcat is table.concat with its result's size checked (see fits);
// the original does the work.
func tableConcat(lim budget.Budget, held func() uint64, orig *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			sep := ""
			if s, ok := L.Get(2).(lua.LString); ok {
				sep = string(s)
			}
			first, last := L.OptInt(3, 1), L.OptInt(4, t.Len())
			need := uint64(0)
			for i := first; i <= last && i-first < 1<<30; i++ {
				if v := t.RawGetInt(i); lua.LVCanConvToString(v) {
					need += uint64(len(lua.LVAsString(v)) + len(sep))
				}
			}
			if err := fits(lim, held, "table.concat", need); err != nil {
				L.RaiseError("%s", err)
			}
		}
		return callOriginal(L, orig, L.GetTop())
	}
}

// guardStmt rewrites the concatenations of a statement (see guardExpr).
func guardStmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.AssignStmt:
		guardExprs(s.Lhs)
		guardExprs(s.Rhs)
	case *ast.LocalAssignStmt:
		guardExprs(s.Exprs)
	case *ast.FuncCallStmt:
		s.Expr = guardExpr(s.Expr)
	case *ast.DoBlockStmt:
		guardStmts(s.Stmts)
	case *ast.WhileStmt:
		s.Condition = guardExpr(s.Condition)
		guardStmts(s.Stmts)
	case *ast.RepeatStmt:
		s.Condition = guardExpr(s.Condition)
		guardStmts(s.Stmts)
	case *ast.IfStmt:
		s.Condition = guardExpr(s.Condition)
		guardStmts(s.Then)
		guardStmts(s.Else)
	case *ast.NumberForStmt:
		s.Init, s.Limit = guardExpr(s.Init), guardExpr(s.Limit)
		if s.Step != nil {
			s.Step = guardExpr(s.Step)
		}
		guardStmts(s.Stmts)
	case *ast.GenericForStmt:
		guardExprs(s.Exprs)
		guardStmts(s.Stmts)
	case *ast.FuncDefStmt:
		guardStmts(s.Func.Stmts)
	case *ast.ReturnStmt:
		guardExprs(s.Exprs)
	}
}

func guardStmts(ss []ast.Stmt) {
	for _, s := range ss {
		guardStmt(s)
	}
}

func guardExprs(es []ast.Expr) {
	for i, e := range es {
		es[i] = guardExpr(e)
	}
}

// guardExpr returns e with every a .. b inside it replaced by
// __fedlab_concat(a, b) at the same lines.
func guardExpr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.StringConcatOpExpr:
		fn := &ast.IdentExpr{Value: concatGlobal}
		call := &ast.FuncCallExpr{Func: fn, Args: []ast.Expr{guardExpr(x.Lhs), guardExpr(x.Rhs)}, AdjustRet: true}
		for _, n := range []ast.PositionHolder{fn, call} {
			n.SetLine(x.Line())
			n.SetLastLine(x.LastLine())
		}
		return call
	case *ast.AttrGetExpr:
		x.Object, x.Key = guardExpr(x.Object), guardExpr(x.Key)
	case *ast.TableExpr:
		for _, f := range x.Fields {
			if f.Key != nil {
				f.Key = guardExpr(f.Key)
			}
			f.Value = guardExpr(f.Value)
		}
	case *ast.FuncCallExpr:
		if x.Func != nil {
			x.Func = guardExpr(x.Func)
		}
		if x.Receiver != nil {
			x.Receiver = guardExpr(x.Receiver)
		}
		guardExprs(x.Args)
	case *ast.LogicalOpExpr:
		x.Lhs, x.Rhs = guardExpr(x.Lhs), guardExpr(x.Rhs)
	case *ast.RelationalOpExpr:
		x.Lhs, x.Rhs = guardExpr(x.Lhs), guardExpr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		x.Lhs, x.Rhs = guardExpr(x.Lhs), guardExpr(x.Rhs)
	case *ast.UnaryMinusOpExpr:
		x.Expr = guardExpr(x.Expr)
	case *ast.UnaryNotOpExpr:
		x.Expr = guardExpr(x.Expr)
	case *ast.UnaryLenOpExpr:
		x.Expr = guardExpr(x.Expr)
	case *ast.FunctionExpr:
		guardStmts(x.Stmts)
	}
	return e
}
