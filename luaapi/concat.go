package luaapi

import (
	"context"
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

// concatGlobal is the global the compiled `..` calls; concatPartGlobal
// the one that collects the operands of a long chain.
const (
	concatGlobal     = "__fedlab_concat"
	concatPartGlobal = "__fedlab_concat_part"
)

// checkedSize is the result size from which concatenations are checked
// (smaller ones cannot matter, and skip the measurement).
const checkedSize = 1 << 20

// compile parses and compiles a chunk with its concatenations checked.
// A reader that ends early (see ctxReader) leaves a chunk that is not
// compiled.
func compile(r io.Reader, name string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(r, name)
	if err != nil {
		return nil, err
	}
	if c, ok := r.(*ctxReader); ok && c.ctx.Err() != nil {
		return nil, c.ctx.Err()
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
// concatenations, under the script's context, a chunk of at most limit
// bytes (maxChunk; see luacaps.go).
func guardedLoadString(limit int) lua.LGFunction {
	return func(L *lua.LState) int {
		src := L.CheckString(1)
		if len(src) > limit {
			L.Push(lua.LNil)
			L.Push(lua.LString(chunkTooLong(len(src), limit)))
			return 2
		}
		fn, err := compileLoaded(L, src, L.OptString(2, "<string>"))
		if err != nil {
			L.Push(lua.LNil)
			L.Push(lua.LString(err.Error()))
			return 2
		}
		L.Push(fn)
		return 1
	}
}

// guardedLoad is load(reader [, name]) compiling with checked
// concatenations: reader is called until it returns nil or "", or the
// pieces pass limit bytes (maxChunk).
func guardedLoad(limit int) lua.LGFunction {
	loadString := guardedLoadString(limit)
	return func(L *lua.LState) int {
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
			s := lua.LVAsString(piece)
			if s == "" {
				break
			}
			if b.Len()+len(s) > limit {
				L.Push(lua.LNil)
				L.Push(lua.LString(chunkTooLong(b.Len()+len(s), limit)))
				return 2
			}
			b.WriteString(s)
		}
		L.Replace(1, lua.LString(b.String()))
		L.Replace(2, lua.LString(name))
		L.SetTop(2)
		return loadString(L)
	}
}

// concatPart holds the operands of a long `..` chain evaluated so far
// (see guardChain); it lives only between the calls of one chain.
type concatPart struct{ terms []lua.LValue }

// concatPartial collects the operands of a long chain: its first argument
// is nil (a new chain) or the part so far, the others the next operands.
func concatPartial(L *lua.LState) int {
	p, _ := partOf(L.Get(1))
	if p == nil {
		p = &concatPart{}
	}
	for i := 2; i <= L.GetTop(); i++ {
		p.terms = append(p.terms, L.Get(i))
	}
	ud := L.NewUserData()
	ud.Value = p
	L.Push(ud)
	return 1
}

// partOf returns the part a value holds, if it is one.
func partOf(v lua.LValue) (*concatPart, bool) {
	if ud, ok := v.(*lua.LUserData); ok {
		p, ok := ud.Value.(*concatPart)
		return p, ok
	}
	return nil, false
}

// concat is the chain t1 .. t2 .. … .. tn (its arguments; the first may be
// the part of a long chain collected by concatPartial) computed as Lua
// computes it: from the right, runs of strings and numbers joined at once
// with the result's size checked against the memory left under the
// ceiling lim (held: what the process holds against it now), a __concat
// metamethod called on the operand and the result to its right.
func concat(lim budget.Budget, held func() uint64) lua.LGFunction {
	return func(L *lua.LState) int {
		var terms []lua.LValue
		first := 1
		if p, ok := partOf(L.Get(1)); ok {
			terms, first = p.terms, 2
		}
		for i := first; i <= L.GetTop(); i++ {
			terms = append(terms, L.Get(i))
		}
		rhs := terms[len(terms)-1]
		for i := len(terms) - 2; i >= 0; {
			lhs := terms[i]
			if !lua.LVCanConvToString(lhs) || !lua.LVCanConvToString(rhs) {
				op := L.GetMetaField(lhs, "__concat")
				if op == lua.LNil {
					op = L.GetMetaField(rhs, "__concat")
				}
				if op.Type() != lua.LTFunction {
					L.RaiseError("cannot perform concat operation between %s and %s", lhs.Type(), rhs.Type())
				}
				L.Push(op)
				L.Push(lhs)
				L.Push(rhs)
				L.Call(2, 1)
				rhs = L.Get(-1)
				L.Pop(1)
				i--
				continue
			}
			j := i
			need := uint64(len(lua.LVAsString(rhs)))
			for ; j >= 0 && lua.LVCanConvToString(terms[j]); j-- {
				need += uint64(len(lua.LVAsString(terms[j])))
			}
			if err := fits(lim, held, "the concatenation (..)", need); err != nil {
				L.RaiseError("%s", err)
			}
			var b strings.Builder
			b.Grow(int(need))
			for k := j + 1; k <= i; k++ {
				b.WriteString(lua.LVAsString(terms[k]))
			}
			b.WriteString(lua.LVAsString(rhs))
			rhs = lua.LString(b.String())
			i = j
		}
		L.Push(rhs)
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

// stringFormat is string.format with Lua 5.1's limits on a format (flags
// given at most once each, a width and a precision of at most two digits:
// `%1000000d` is refused as Lua refuses it) and its result's size bounded
// before it is made: the format's length plus every argument's (a string's
// length and its width, a number at most formatMax bytes); the original
// does the work.
func stringFormat(lim budget.Budget, held func() uint64, orig *lua.LFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		n := L.GetTop()
		format := L.CheckString(1)
		if err := checkFormat(format); err != nil {
			L.RaiseError("%s", err)
		}
		need := uint64(len(format))
		for i := 2; i <= n; i++ {
			need += formatMax
			if v, ok := L.Get(i).(lua.LString); ok {
				need += uint64(len(v))
			}
		}
		if err := fits(lim, held, "string.format", need); err != nil {
			L.RaiseError("%s", err)
		}
		return callOriginal(L, orig, n)
	}
}

// formatMax bounds the bytes one conversion of a number takes (a width
// of 99, or 309 digits of a float64 and a precision of 99).
const formatMax = 512

// formatFlags are the flags of a conversion (Lua 5.1's FLAGS).
const formatFlags = "-+ #0"

// checkFormat refuses a format Lua 5.1's string.format refuses for its
// flags, width or precision, with Lua's messages.
func checkFormat(format string) error {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i < len(format) && format[i] == '%' {
			continue
		}
		flags := i
		for i < len(format) && strings.IndexByte(formatFlags, format[i]) >= 0 {
			i++
		}
		if i-flags >= len(formatFlags)+1 {
			return fmt.Errorf("invalid format (repeated flags)")
		}
		i = skipDigits(format, i, 2)
		if i < len(format) && format[i] == '.' {
			i = skipDigits(format, i+1, 2)
		}
		if i < len(format) && isDigit(format[i]) {
			return fmt.Errorf("invalid format (width or precision too long)")
		}
	}
	return nil
}

// skipDigits returns i moved past at most n decimal digits of s.
func skipDigits(s string, i, n int) int {
	for ; n > 0 && i < len(s) && isDigit(s[i]); n-- {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

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

// tableConcat is table.concat(t [, sep [, i [, j]]]) computing what
// gopher-lua's computes (its range clamped to 1 … #t as gopher-lua clamps
// it, its message for a value that is neither a string nor a number) with
// the result's size checked before it is made (see fits) and the script's
// context checked every 2¹⁶ entries; gopher-lua's pushes every entry on
// the Lua stack, which overflowed past a few thousand ("registry
// overflow").
func tableConcat(lim budget.Budget, held func() uint64) lua.LGFunction {
	return func(L *lua.LState) int {
		t := L.CheckTable(1)
		sep := L.OptString(2, "")
		n := t.Len()
		i, j := L.OptInt(3, 1), L.OptInt(4, n)
		if L.GetTop() == 3 && (i > n || i < 1) {
			L.Push(lua.LString(""))
			return 1
		}
		i, j = max(min(i, n), 1), min(j, n)
		need := uint64(0)
		for k := i; k <= j; k++ {
			if (k-i)%(1<<16) == 0 && L.Context() != nil && L.Context().Err() != nil {
				L.RaiseError("table.concat: stopped: %v", context.Cause(L.Context()))
			}
			v := t.RawGetInt(k)
			if !lua.LVCanConvToString(v) {
				L.RaiseError("invalid value (%s) at index %d in table for concat", v.Type().String(), k)
			}
			need += uint64(len(lua.LVAsString(v)))
			if k < j {
				need += uint64(len(sep))
			}
		}
		if err := fits(lim, held, "table.concat", need); err != nil {
			L.RaiseError("%s", err)
		}
		var b strings.Builder
		b.Grow(int(need))
		for k := i; k <= j; k++ {
			b.WriteString(lua.LVAsString(t.RawGetInt(k)))
			if k < j {
				b.WriteString(sep)
			}
		}
		L.Push(lua.LString(b.String()))
		return 1
	}
}

// chainGroup is the number of operands of a `..` chain passed in one call:
// a chain of n operands compiles to one call of n+1 registers up to it (Lua
// itself spends n), and longer chains are collected by concatPartial in
// groups of it, so that a chain takes at most chainGroup+2 registers
// beyond the depth of its groups' nesting.
const chainGroup = 32

// guardChain returns the chain t1 .. t2 .. … .. tn (a .. b .. c parses as
// a .. (b .. c)) as __fedlab_concat(t1, …, tn), its operands guarded and
// evaluated left to right as Lua evaluates them; a chain of more than
// chainGroup operands as __fedlab_concat(__fedlab_concat_part(…(
// __fedlab_concat_part(nil, t1, …, t32), …)), …, tn). The calls take the
// chain's line, where Lua reports an error of the chain.
func guardChain(x *ast.StringConcatOpExpr) ast.Expr {
	var terms []ast.Expr
	var e ast.Expr = x
	for {
		c, ok := e.(*ast.StringConcatOpExpr)
		if !ok {
			break
		}
		terms = append(terms, guardExpr(c.Lhs))
		e = c.Rhs
	}
	terms = append(terms, guardExpr(e))
	for _, t := range terms { // each operand gives one value, as in Lua
		switch t := t.(type) {
		case *ast.FuncCallExpr:
			t.AdjustRet = true
		case *ast.Comma3Expr:
			t.AdjustRet = true
		}
	}
	call := func(global string, args []ast.Expr) ast.Expr {
		fn := &ast.IdentExpr{Value: global}
		c := &ast.FuncCallExpr{Func: fn, Args: args, AdjustRet: true}
		for _, n := range []ast.PositionHolder{fn, c} {
			n.SetLine(x.Line())
			n.SetLastLine(x.LastLine())
		}
		return c
	}
	if len(terms) <= chainGroup {
		return call(concatGlobal, terms)
	}
	var part ast.Expr = &ast.NilExpr{}
	part.SetLine(x.Line())
	for len(terms) > chainGroup {
		part = call(concatPartGlobal, append([]ast.Expr{part}, terms[:chainGroup]...))
		terms = terms[chainGroup:]
	}
	return call(concatGlobal, append([]ast.Expr{part}, terms...))
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

// guardExpr returns e with every `..` chain inside it replaced by a call
// of concatGlobal (see guardChain).
func guardExpr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.StringConcatOpExpr:
		return guardChain(x)
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
