package luaapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/internal/budget"
)

// TestCheckedConcatenationKeepsLuaSemantics: scripts are compiled with
// `..` as a checked call (concat.go); what it computes is Lua's: numbers
// are formatted as Lua formats them, chains associate to the right, a
// __concat metamethod is called, concatenation inside functions, loops,
// table constructors, method calls, loadstring and load chunks is checked
// too, and a bad operand is reported at its script line.
func TestCheckedConcatenationKeepsLuaSemantics(t *testing.T) {
	out, err := script(t, `local mt = { __concat = function(a, b)
  local x = type(a) == "table" and a.v or a
  local y = type(b) == "table" and b.v or b
  return "<" .. x .. "|" .. y .. ">"
end }
local o = setmetatable({ v = "o" }, mt)
local function f(s) return s .. "!" end
local t = { ["k" .. 1] = 1 .. 2, f("a" .. "b") }
local parts = {}
for i = 1, 3 do parts[#parts + 1] = i .. "" end
local r = ("x"):rep(2) .. ("y"):upper()
print(1 .. 2, 1.5 .. "", 2^53 .. "", "a" .. "b" .. "c" .. 1, t.k1, t[1], table.concat(parts, ","), r)
print(o .. "s", "s" .. o, f(f("z")), loadstring("return 'p' .. 'q'")(), load(function() return nil end) ~= nil, string.format("%5.2f|%s|%d", 1.234, "w", 7))
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "12\t1.5\t9007199254740992\tabc1\t12\tab!\t1,2,3\txxY\n<o|s>\t<s|o>\tz!!\tpq\ttrue\t 1.23|w|7\n"
	if out != want {
		t.Errorf("output\n%q\nwant\n%q", out, want)
	}
	_, err = script(t, "local a = 'x'\n\nlocal b = a .. nil\n", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "script.lua:3:") || !strings.Contains(err.Error(), "concat") {
		t.Errorf("a nil operand: %v", err)
	}
}

// TestConcatenationIsCheckedBeforeItAllocates: one concatenation, a
// table.concat or a loadstring chunk whose result would not fit under the
// ceiling beside what the process holds is refused at its line before it
// allocates (under a `ulimit -v` the runtime would end the process); one
// that fits after a collection is not refused for garbage.
func TestConcatenationIsCheckedBeforeItAllocates(t *testing.T) {
	// sizes for a ceiling of 64 MiB, a quarter of them under -short's 16 MiB
	ceiling := testCeiling()
	mb := func(n uint64) uint64 { return n * ceiling / (64 << 20) }
	for _, c := range []struct{ src, want string }{
		{fmt.Sprintf("local s = string.rep('x', %d)\nlocal t = s .. s\n", mb(40e6)), "script.lua:2: memory ceiling reached: the concatenation (..) would make a string of " + budget.Format(mb(80e6))},
		{fmt.Sprintf("local s = string.rep('x', %d)\nlocal u = table.concat({ s, s, s, s })\n", mb(20e6)), "script.lua:2: memory ceiling reached: table.concat would make a string of " + budget.Format(mb(80e6))},
		{fmt.Sprintf("local s = string.rep('x', %d)\nlocal f = loadstring('local s = ... return s .. s')\nf(s)\n", mb(40e6)), "<string>:1: memory ceiling reached: the concatenation (..)"},
		{fmt.Sprintf("local s = string.rep('x', %d)\nlocal u = ('%%s%%s'):format(s, s)\n", mb(30e6)), "script.lua:2: memory ceiling reached: string.format would make a string of " + budget.Format(mb(60e6))},
	} {
		_, err := sandboxScript(t, c.src, Options{MaxMemory: ceiling})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
	// 10 strings of 20 MB (under 64 MiB; under -short 4 of 5 MB, under 16 MiB) made and dropped one
	// after another: each fits once the last is collected
	n := 10
	if testing.Short() {
		n = 4
	}
	src := fmt.Sprintf("for i = 1, %d do local s = string.rep('x', %d) .. string.rep('y', %d) end\n", n, mb(1e7), mb(1e7))
	if _, err := sandboxScript(t, src, Options{MaxMemory: ceiling}); err != nil {
		t.Errorf("garbage counted against a concatenation: %v", err)
	}
}
