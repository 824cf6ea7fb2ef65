package luaapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/rundir"
	lua "github.com/yuin/gopher-lua"
)

// TestStringFormatKeepsLuaLimits: string.format refuses widths and
// precisions of more than two digits and repeated flags with Lua 5.1's
// messages (gopher-lua passed `%1000000d` to Go: 2,000 of them made 2 GB),
// at the script line; what Lua accepts is formatted as before.
func TestStringFormatKeepsLuaLimits(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"local s = string.format('%1000000d', 1)\n", "script.lua:1: invalid format (width or precision too long)"},
		{"local s = ('%.100f'):format(1)\n", "script.lua:1: invalid format (width or precision too long)"},
		{"local s = ('%5.123s'):format('x')\n", "script.lua:1: invalid format (width or precision too long)"},
		{"\nlocal s = ('%-+ #0-d'):format(1)\n", "script.lua:2: invalid format (repeated flags)"},
	} {
		_, err := script(t, c.src, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
	out, err := script(t, "print(('%99d|%5.2f|%-3s|%%|%.99f'):format(7, 1.234, 'a', 0.5):len(), ('%-+5d|%05.1f|%x'):format(3, 2.25, 255))\n", Options{})
	if want := "213\t+3   |002.2|ff\n"; err != nil || out != want {
		t.Errorf("valid formats: %q, %v, want %q", out, err, want)
	}
}

// gsubCases are string.gsub calls whose results fedlab's gsub must give
// as gopher-lua's does.
var gsubCases = []string{
	`("hello world"):gsub("o", "0")`,
	`("hello world"):gsub("(o)(r?)", "[%2%1%0]")`,
	`("hello world"):gsub("%w+", "%1 %%x %q %")`,
	`("abc"):gsub("", "-")`,
	`("abc"):gsub("b*", "-")`,
	`("hello"):gsub("l", "L", 1)`,
	`("hello"):gsub("l", "L", 0)`,
	`("hello"):gsub("^h", "H")`,
	`("hhh"):gsub("^h", "H")`,
	`("hello"):gsub("x", "y")`,
	`("a=1, b=2"):gsub("(%w+)=(%w+)", "%2=%1")`,
	`("a b c"):gsub("%w", { a = "A", b = false })`,
	`("a1 b2"):gsub("(%a)(%d)", { a = "X" })`,
	`("abc"):gsub("()b", { [2] = "two" })`,
	`("abc"):gsub("%a", function(c) if c ~= "b" then return c:upper() .. 1 end end)`,
	`("abc"):gsub("(a)(b)()", function(x, y, p) return y .. x .. p end)`,
	`("abc"):gsub(".", function() return 5 end)`,
	`("x y"):gsub("()", "%1")`,
	`(("ab"):rep(1000)):gsub("a", "%%")`,
	`pcall(string.gsub, "abc", "(a", "x")`,
	`pcall(string.gsub, "abc", "a", "%2")`,
	`pcall(string.gsub, "abc", "[a", "x")`,
}

// gsubRun evaluates expr with string.gsub replaced by fedlab's (mine) or
// gopher-lua's, and returns what it printed or its error.
func gsubRun(t *testing.T, expr string, mine bool) string {
	t.Helper()
	L := lua.NewState()
	defer L.Close()
	if mine {
		str := L.GetGlobal("string").(*lua.LTable)
		str.RawSetString("gsub", L.NewFunction(gsub(budget.Budget{}, func() uint64 { return 0 })))
	}
	if err := L.DoString("local r = { " + expr + " }\nfor i = 1, #r do r[i] = tostring(r[i]) end\nresult = table.concat(r, '|')"); err != nil {
		return "error: " + err.Error()
	}
	return L.GetGlobal("result").String()
}

// TestGsubComputesWhatLuaComputes: fedlab's string.gsub, which builds its
// result piece by piece under the ceiling, gives gopher-lua's results,
// counts and errors.
func TestGsubComputesWhatLuaComputes(t *testing.T) {
	for _, expr := range gsubCases {
		if got, want := gsubRun(t, expr, true), gsubRun(t, expr, false); got != want {
			t.Errorf("%s\nfedlab:  %q\ngopher-lua: %q", expr, got, want)
		}
	}
}

// TestGsubIsCheckedBeforeItGrows: a gsub whose result passes the ceiling
// is refused at its line before the result is made (gopher-lua built it
// unchecked: the runtime ran out of memory), with a string, a function or
// a table replacement; a gsub with millions of matches stops at the time
// limit (gopher-lua's copies the string once per match).
func TestGsubIsCheckedBeforeItGrows(t *testing.T) {
	// 200 pieces of 1 MB under a 64 MiB ceiling, or under -short of 250 kB
	// under 16 MiB: the result's buffer passes the ceiling, which gsub's
	// check refuses before the buffer grows
	ceiling, big := uint64(64<<20), "1e6"
	if testing.Short() {
		ceiling, big = 16<<20, "2.5e5"
	}
	for _, src := range []string{
		"local big = string.rep('y', " + big + ")\nlocal s = string.rep('x', 200):gsub('x', big)\n",
		"local big = string.rep('y', " + big + ")\nlocal s = string.rep('x', 200):gsub('x', function() return big end)\n",
		"local big = string.rep('y', " + big + ")\nlocal s = string.rep('x', 200):gsub('x', { x = big })\n",
	} {
		_, err := sandboxScript(t, src, Options{MaxMemory: ceiling})
		if err == nil || !strings.HasPrefix(err.Error(), "script.lua:2: memory ceiling reached: string.gsub would make a string of ") {
			t.Errorf("%q: %v", src, err)
		}
	}
	matches := "3e7"
	if testing.Short() {
		matches = "2e6" // still more than a second of matching: far past -short's limit
	}
	ctx, cancel := context.WithTimeout(context.Background(), testLimit(300*time.Millisecond))
	defer cancel()
	start := time.Now()
	_, err := sandboxScript(t, "local s = string.rep('x', "+matches+"):gsub('x', 'y')\n", Options{Context: ctx})
	var intr *rundir.Interrupted
	if !errors.As(err, &intr) || time.Since(start) > stopBound {
		t.Errorf("%s matches under a %v limit: %v after %v", matches, testLimit(300*time.Millisecond), err, time.Since(start))
	}
}

// TestLoadedChunksAreBoundedAndTimed: loadstring and load refuse a chunk
// of more than 16 MiB with a message, and a chunk being compiled stops
// at the time limit (gopher-lua compiled a 120 MB chunk past --timeout).
func TestLoadedChunksAreBoundedAndTimed(t *testing.T) {
	// maxChunk's 16 MiB, or under -short a bound of 1 MiB (the chunks a
	// sixteenth as long)
	var opts Options
	unit := "2^20"
	if testing.Short() {
		opts.chunkLimit, unit = 1<<20, "2^16"
	}
	out, err := script(t, `local f, e = loadstring(("-"):rep(17 * `+unit+`))
print(f, e)
local n = 0
local g, e2 = load(function() n = n + 1; if n < 40 then return ("-"):rep(`+unit+` / 2) end end)
print(g, e2, n)
`, opts)
	want := "nil\tchunk too long: 17.0 MiB of source, more than the 16.0 MiB a chunk loaded by a script may have\n" +
		"nil\tchunk too long: 16.5 MiB of source, more than the 16.0 MiB a chunk loaded by a script may have\t33\n"
	if testing.Short() {
		want = "nil\tchunk too long: 1.1 MiB of source, more than the 1.0 MiB a chunk loaded by a script may have\n" +
			"nil\tchunk too long: 1.0 MiB of source, more than the 1.0 MiB a chunk loaded by a script may have\t33\n"
	}
	if err != nil || out != want {
		t.Errorf("long chunks: %q, %v\nwant %q", out, err, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testLimit(300*time.Millisecond))
	defer cancel()
	start := time.Now()
	_, err = sandboxScript(t, "local src = 'local t = {' .. ('1,'):rep(7e6) .. '}'\nlocal f = loadstring(src)\n", Options{Context: ctx})
	var intr *rundir.Interrupted
	// stopped while compiling (line 2), or, on a loaded machine, while
	// building the source (line 1): either way promptly
	if !errors.As(err, &intr) || !(strings.HasPrefix(err.Error(), "script.lua:2: ") || strings.HasPrefix(err.Error(), "script.lua:1: ")) || time.Since(start) > stopBound {
		t.Errorf("compiling 14 MB under a %v limit: %v after %v", testLimit(300*time.Millisecond), err, time.Since(start))
	}
}

// TestPcallNestingIsBounded: pcall and xpcall calls nest at most 200 deep
// (Lua's LUAI_MAXCCALLS), together: recursion through them fails there
// with a message that the innermost pcall catches, as in Lua 5.1.
func TestPcallNestingIsBounded(t *testing.T) {
	for _, rec := range []string{"ok, e = pcall(f)", "ok, e = xpcall(f, function(e) return e end)",
		"if depth % 2 == 0 then ok, e = pcall(f) else ok, e = xpcall(f, function(e) return e end) end"} {
		src := fmt.Sprintf(`local depth, err = 0
local f
f = function()
  depth = depth + 1
  local ok, e; %s
  if not ok then err = e end
  return ok
end
f()
print(depth, err)
`, rec)
		out, err := script(t, src, Options{})
		if want := "201\tscript.lua:5: " + cCallError() + "\n"; err != nil || out != want {
			t.Errorf("%s: %q, %v\nwant %q", rec, out, err, want)
		}
	}
}

// TestUnpackOfAHugeRangeSaysSo: unpack refuses more than 8000 results
// with Lua 5.1's message (gopher-lua said "registry overflow"), and
// unpacks 8000.
func TestUnpackOfAHugeRangeSaysSo(t *testing.T) {
	for _, src := range []string{"local a = unpack({}, 1, 1e9)\n", "local a = unpack({}, -2^31, 2^31 - 1)\n"} {
		_, err := script(t, src, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "script.lua:1: too many results to unpack (") {
			t.Errorf("%q: %v", src, err)
		}
	}
	out, err := script(t, "local t = {}\nfor i = 1, 8000 do t[i] = i end\nprint(select('#', unpack(t)), select(8000, unpack(t)), unpack({ 1, 2, 3 }, 2))\n", Options{})
	if err != nil || out != "8000\t8000\t2\t3\n" {
		t.Errorf("8000 values: %q, %v", out, err)
	}
}

// tableConcatCases are table.concat calls whose results fedlab's
// table.concat must give as gopher-lua's does.
var tableConcatCases = []string{
	`table.concat({ 1, "a", 2.5 })`, `table.concat({ 1, "a", 2.5 }, ", ")`, `table.concat({ 1, 2, 3 }, "-", 2)`,
	`table.concat({ 1, 2, 3 }, "-", 2, 3)`, `table.concat({ 1, 2, 3 }, "-", 0)`, `table.concat({ 1, 2, 3 }, "-", 5)`,
	`table.concat({ 1, 2, 3 }, "-", 0, 9)`, `table.concat({ 1, 2, 3 }, "-", 3, 1)`, `table.concat({}, "x")`,
	`table.concat({}, "", 1, 2^40)`, `pcall(table.concat, { 1, {}, 3 })`, `pcall(table.concat, { 1, 2, 3 }, "", 1, -1)`,
}

// TestTableConcatComputesWhatLuaComputes: fedlab's table.concat gives
// gopher-lua's results and errors, concatenates 10⁵ entries (gopher-lua's
// overflowed its stack), and its size check over a huge range stops at the
// time limit (it measured 2³⁰ entries first, seconds past --timeout).
func TestTableConcatComputesWhatLuaComputes(t *testing.T) {
	run := func(expr string, mine bool) string {
		L := lua.NewState()
		defer L.Close()
		if mine {
			L.GetGlobal("table").(*lua.LTable).RawSetString("concat", L.NewFunction(tableConcat(budget.Budget{}, func() uint64 { return 0 })))
		}
		if err := L.DoString("local r = { " + expr + " }\nfor i = 1, #r do r[i] = tostring(r[i]) end\nresult = (r[1] or '') .. '|' .. (r[2] or '')"); err != nil {
			return "error: " + err.Error()
		}
		return L.GetGlobal("result").String()
	}
	for _, expr := range tableConcatCases {
		if got, want := run(expr, true), run(expr, false); got != want {
			t.Errorf("%s\nfedlab:  %q\ngopher-lua: %q", expr, got, want)
		}
	}
	out, err := script(t, "local t = {}\nfor i = 1, 1e5 do t[i] = i % 10 end\nprint(#table.concat(t, ','))\n", Options{})
	if err != nil || out != "199999\n" {
		t.Errorf("10^5 entries: %q, %v", out, err)
	}
	entries := "3e6"
	if testing.Short() {
		entries = "3e5" // filled well within the shorter limit: table.concat runs when it ends
	}
	ctx, cancel := context.WithTimeout(context.Background(), testLimit(300*time.Millisecond))
	defer cancel()
	start := time.Now()
	_, err = sandboxScript(t, "local t = {}\nfor i = 1, "+entries+" do t[i] = 'x' end\nwhile true do local s = table.concat(t) end\n", Options{Context: ctx})
	var intr *rundir.Interrupted
	if !errors.As(err, &intr) || time.Since(start) > stopBound {
		t.Errorf("table.concat under a %v limit: %v after %v", testLimit(300*time.Millisecond), err, time.Since(start))
	}
}

// TestXpcallKeepsLuaResults: xpcall, now run on a thread of its own,
// returns what Lua's returns: true and the function's results, or false
// and what the handler makes of the error, whose line is the error's.
func TestXpcallKeepsLuaResults(t *testing.T) {
	out, err := script(t, `print(xpcall(function() return 1, "two", nil end, print))
print(xpcall(function()
  error("e")
end, function(m) return "handled " .. m end))
print(xpcall(function() error({ code = 7 }) end, function(e) return e.code end))
`, Options{})
	want := "true\t1\ttwo\tnil\nfalse\thandled script.lua:3: e\nfalse\t7\n"
	if err != nil || out != want {
		t.Errorf("xpcall: %q, %v\nwant %q", out, err, want)
	}
}

// TestStringRepIsCheckedBesideWhatIsHeld: string.rep refuses a result
// that fits under the ceiling alone but not beside what the process
// holds (it checked the result against the whole ceiling only).
func TestStringRepIsCheckedBesideWhatIsHeld(t *testing.T) {
	n := testCeiling() * 40e6 / (64 << 20) // 40 MB, each alone under the ceiling, not both
	src := fmt.Sprintf("local a = string.rep('x', %d)\nlocal b = string.rep('y', %d)\n", n, n)
	_, err := sandboxScript(t, src, Options{MaxMemory: testCeiling()})
	if want := "script.lua:2: memory ceiling reached: string.rep would make a string of " + budget.Format(n) + " beside the "; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("two strings of %d bytes under %s: %v, want %q", n, budget.Format(testCeiling()), err, want)
	}
}
