package luaapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/internal/budget"
	lua "github.com/yuin/gopher-lua"
)

// runChunk runs src as the chunk "script.lua" in a fresh state, compiled
// as gopher-lua compiles it (guarded false) or with its concatenations
// checked (guarded true, no ceiling), and returns what it printed and its
// error.
func runChunk(t *testing.T, src string, guarded bool) (string, string) {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	var out strings.Builder
	L.SetGlobal("print", L.NewFunction(func(L *lua.LState) int {
		for i := 1; i <= L.GetTop(); i++ {
			if i > 1 {
				out.WriteString("\t")
			}
			out.WriteString(L.ToStringMeta(L.Get(i)).String())
		}
		out.WriteString("\n")
		return 0
	}))
	var fn *lua.LFunction
	var err error
	if guarded {
		L.SetGlobal(concatGlobal, L.NewFunction(concat(budget.Budget{}, func() uint64 { return 0 })))
		L.SetGlobal(concatPartGlobal, L.NewFunction(concatPartial))
		fn, err = load(L, strings.NewReader(src), "script.lua")
	} else {
		fn, err = L.Load(strings.NewReader(src), "script.lua")
	}
	if err != nil {
		return out.String(), err.Error()
	}
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err != nil {
		msg := err.Error()
		msg, _, _ = strings.Cut(msg, "\nstack traceback:")
		return out.String(), msg
	}
	return out.String(), ""
}

// chain returns the Lua expression t(1) .. t(2) .. … .. t(n).
func chain(n int, t func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = t(i + 1)
	}
	return strings.Join(parts, " .. ")
}

// TestConcatenationChainsComputeWhatLuaComputes: a `..` chain compiled
// with checked concatenation prints and fails exactly as gopher-lua's own
// compilation of it: chains of strings and numbers up to 200 operands
// (Lua 5.1 compiles them; the first rewrite spent two registers per
// operand and refused 110 with "register overflow"), __concat metamethods
// met on either side and in the middle of long chains, operands that are
// calls returning several values, the order operands are evaluated in,
// and errors at the chain's line.
func TestConcatenationChainsComputeWhatLuaComputes(t *testing.T) {
	mt := `local log = {}
local mt = { __concat = function(a, b)
  local x = type(a) == "table" and a.v or a
  local y = type(b) == "table" and b.v or b
  log[#log + 1] = tostring(x) .. "+" .. tostring(y)
  return setmetatable({ v = "<" .. x .. "|" .. y .. ">" }, getmetatable(type(a) == "table" and a or b))
end }
local function o(v) return setmetatable({ v = v }, mt) end
local n = 0
local function tick(v) n = n + 1; return v .. "#" .. n, "dropped" end
`
	cases := []string{
		"local a, b = 'a', 'b'\nlocal s = " + chain(110, func(i int) string { return []string{"a", "b", "i", "1.5", "2^53"}[i%5] }) + "\nprint(s, #s)\n",
		mt + "local r = " + chain(70, func(i int) string {
			switch i % 23 {
			case 0:
				return fmt.Sprintf("o('m%d')", i)
			case 5:
				return "tick('c')"
			}
			return fmt.Sprint(i)
		}) + "\nprint(r.v, n)\nprint(table.concat(log, ' '))\n",
		mt + "print((o('x') .. 'a' .. 1 .. o('y') .. 'b' .. 2).v)\nprint(('a' .. o('y')).v, (o('y') .. 'a').v, (1 .. o('z')).v)\nprint(table.concat(log, ' '))\n",
		"local function two() return 'p', 'q' end\nlocal function va(...) return 'v' .. ... end\nprint('a' .. two(), two() .. 'b' .. two(), va('x', 'y'))\n",
		"local s = 'a' ..\n  'b' ..\n  nil ..\n  'c'\n",
		"local t = {}\nlocal s = 'x' .. 1 .. t\n",
		"local t = {}\n\nlocal s = " + chain(150, func(i int) string {
			if i == 140 {
				return "t"
			}
			return "'s'"
		}) + "\n",
		"local s = 1 .. 2\nprint(s, type(s), 1 .. '' == '1', -0.0 .. '', 1e300 * 10 .. '')\n",
	}
	for _, src := range cases {
		wantOut, wantErr := runChunk(t, src, false)
		out, err := runChunk(t, src, true)
		if out != wantOut || err != wantErr {
			t.Errorf("%s\nchecked: %q, error %q\nLua:     %q, error %q", src, out, err, wantOut, wantErr)
		}
	}
	// 200 operands: gopher-lua's own compiler refuses them (200 registers
	// at most), Lua 5.1 compiles them (250): the results by hand
	var want strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprint(&want, i)
	}
	for src, want := range map[string]string{
		"local t = {}\nfor i = 1, 200 do t[i] = i end\nlocal s = " + chain(200, func(i int) string { return fmt.Sprintf("t[%d]", i) }) + "\nprint(s, #s)\n": want.String() + "\t492\n",
		"local x = " + chain(200, func(i int) string { return fmt.Sprintf("%q", fmt.Sprint(i%7)) }) + "\nprint(x)\n":                                        strings.Repeat("1234560", 29)[:200] + "\n",
	} {
		if out, err := runChunk(t, src, true); out != want || err != "" {
			t.Errorf("%s\nchecked: %q, error %q\nwant %q", src, out, err, want)
		}
	}
}

// TestLongConcatenationChainRunsInAScript: the 200-operand chain runs in
// a script (through fedlab's loader), and a wrong operand in it is
// reported at its line.
func TestLongConcatenationChainRunsInAScript(t *testing.T) {
	out, err := script(t, "local a = 'ab'\nprint(#("+chain(200, func(int) string { return "a" })+"))\n", Options{})
	if err != nil || out != "400\n" {
		t.Errorf("200 operands: %q, %v", out, err)
	}
	_, err = script(t, "local a = 'ab'\n\nprint(#("+chain(199, func(int) string { return "a" })+" .. {}))\n", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "script.lua:3: cannot perform concat operation between string and table") {
		t.Errorf("a table operand: %v", err)
	}
}
