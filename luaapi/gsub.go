package luaapi

import (
	"fmt"
	"strings"

	"github.com/fedlab/fedlab/internal/budget"
	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/pm"
)

// gsub is string.gsub computing what gopher-lua's computes (the same
// patterns, replacements and count), built piece by piece: before its
// result grows, the new size is checked against the memory left under the
// ceiling lim (held: what the process holds against it now), and the
// script's context (a signal, --timeout, the ceiling) is checked every
// ctxEvery matches. gopher-lua's own gsub collects every match first and
// copies the whole string once per match, unchecked.
func gsub(lim budget.Budget, held func() uint64) lua.LGFunction {
	return func(L *lua.LState) int {
		str := L.CheckString(1)
		pat := L.CheckString(2)
		L.CheckTypes(3, lua.LTString, lua.LTTable, lua.LTFunction)
		repl := L.CheckAny(3)
		limit := L.OptInt(4, -1)
		if limit == 0 {
			L.SetTop(1)
			L.Push(lua.LNumber(0))
			return 2
		}
		src := []byte(str)
		b := checkedBuilder{check: func(need uint64) error { return fits(lim, held, "string.gsub", need) }}
		grow := func(piece string) {
			if err := b.WriteString(piece); err != nil {
				L.RaiseError("%s", err)
			}
		}
		count, done := 0, 0 // matches, bytes of str written
		for sp := 0; sp <= len(src); {
			mds, err := pm.Find(pat, src, sp, 1)
			if err != nil {
				L.RaiseError("%s", err.Error())
			}
			if len(mds) == 0 {
				break
			}
			m := mds[0]
			start, end := m.Capture(0), m.Capture(1)
			count++
			if count%ctxEvery == 0 {
				if ctx := L.Context(); ctx != nil && ctx.Err() != nil {
					L.RaiseError("string.gsub: stopped: %v", ctx.Err())
				}
			}
			if value, ok := replacement(L, str, repl, m); ok {
				grow(str[done:start])
				grow(value)
				done = end
			}
			if count == limit || strings.HasPrefix(pat, "^") {
				break
			}
			sp = max(start+1, end)
		}
		if count == 0 {
			L.Push(lua.LString(str))
		} else {
			grow(str[done:])
			L.Push(lua.LString(b.b.String()))
		}
		L.Push(lua.LNumber(count))
		return 2
	}
}

// ctxEvery is how many matches string.gsub makes between looks at the
// script's context.
const ctxEvery = 1024

// replacement is the value that replaces the match m of str, as gopher-lua
// computes it; ok is false when the match is kept (a table or function
// giving false or nil).
func replacement(L *lua.LState, str string, repl lua.LValue, m *pm.MatchData) (string, bool) {
	switch r := repl.(type) {
	case lua.LString:
		return expand(L, str, string(r), m), true
	case *lua.LTable:
		idx := 0
		if m.CaptureLength() > 2 {
			idx = 2
		}
		var value lua.LValue
		if m.IsPosCapture(idx) {
			value = L.GetTable(r, lua.LNumber(m.Capture(idx)))
		} else {
			value = L.GetField(r, str[m.Capture(idx):m.Capture(idx+1)])
		}
		return lua.LVAsString(value), !lua.LVIsFalse(value)
	case *lua.LFunction:
		L.Push(r)
		nargs := 0
		if m.CaptureLength() > 2 {
			for i := 2; i < m.CaptureLength(); i += 2 {
				if m.IsPosCapture(i) {
					L.Push(lua.LNumber(m.Capture(i)))
				} else {
					L.Push(lua.LString(captured(L, m, str, i)))
				}
				nargs++
			}
		} else {
			L.Push(lua.LString(captured(L, m, str, 0)))
			nargs++
		}
		L.Call(nargs, 1)
		value := L.Get(-1)
		L.Pop(1)
		return lua.LVAsString(value), !lua.LVIsFalse(value)
	}
	return "", false
}

// expand is the string replacement repl of the match m: %0 … %9 its
// captures (%1 the whole match when there is none), %% a percent sign,
// % before another character kept with it.
func expand(L *lua.LState, str, repl string, m *pm.MatchData) string {
	if !strings.Contains(repl, "%") {
		return repl
	}
	var b strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		switch {
		case c != '%' || i == len(repl)-1:
			b.WriteByte(c)
		case repl[i+1] == '%':
			b.WriteByte('%')
			i++
		case repl[i+1] >= '0' && repl[i+1] <= '9':
			b.WriteString(captured(L, m, str, 2*int(repl[i+1]-'0')))
			i++
		default:
			b.WriteByte('%')
			b.WriteByte(repl[i+1])
			i++
		}
	}
	return b.String()
}

// captured is the capture at idx (2×its number) of the match m of str,
// as gopher-lua gives it: its text, or its position for a position
// capture; capture 1 of a pattern without captures is the whole match.
func captured(L *lua.LState, m *pm.MatchData, str string, idx int) string {
	if idx > 2 && idx >= m.CaptureLength() {
		L.RaiseError("invalid capture index")
	}
	if idx >= m.CaptureLength() && idx == 2 {
		idx = 0
	}
	if m.IsPosCapture(idx) {
		return fmt.Sprint(m.Capture(idx))
	}
	return str[m.Capture(idx):m.Capture(idx+1)]
}

// checkedBuilder is a strings.Builder whose growth is checked before it
// happens: a write that passes the capacity first gives check the bytes the
// growth allocates beside the old buffer (strings.Builder asks for twice
// the capacity plus the piece, which the allocator rounds up: allocation),
// and is refused if check refuses.
type checkedBuilder struct {
	b     strings.Builder
	check func(need uint64) error
}

// WriteString appends piece, growing the buffer if check allows it.
func (c *checkedBuilder) WriteString(piece string) error {
	if c.b.Len()+len(piece) > c.b.Cap() {
		if err := c.check(allocation(2*c.b.Cap() + len(piece))); err != nil {
			return err
		}
		c.b.Grow(len(piece))
	}
	c.b.WriteString(piece)
	return nil
}

// allocation bounds the bytes Go's allocator gives a request of n bytes: a
// size class of at most 32 KiB, or whole 8 KiB pages above that.
func allocation(n int) uint64 {
	const small, page = 32 << 10, 8 << 10
	if n <= small {
		return small
	}
	return uint64((n + page - 1) &^ (page - 1))
}
