package luaapi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tableGen writes a Lua table constructor chosen by fuzz bytes: nested
// tables, holes (nil in the list part, sparse, negative, fractional and
// huge numeric keys), mixed list and named parts, and calls of the
// script's helpers fill (a list of up to 2^16 elements, with a hole) and
// nest (up to 2^16 levels of nesting), built while the script runs so
// that the script text stays small. Running out of bytes ends every open
// table, so every byte string gives a well-formed constructor.
type tableGen struct {
	in  []byte
	out strings.Builder
}

// Bounds of the constructor as written (fill and nest go further at run time).
const (
	genMaxDepth  = 6
	genMaxFields = 12
)

// genNumbers are the numbers the generator writes, as values and keys.
var genNumbers = []string{"1", "2", "5", "0", "-1", "0.5", "1.5", "3", "2^31", "2^53", "2^63", "1e300", "-1e300", "1/0", "-1/0", "0/0", "-0"}

// genNames are the named keys it writes: keys of the decoders it reaches
// (fedlab.stages and its stages, test components, sweeps and runs), a
// misspelling, and sweep keys of problem parts.
var genNames = []string{"rounds", "algo", "lambda", "problem", "seeds", "restart", "keep", "local_steps", "radius",
	"eta_c", "eta_s", "clients", "samples", "features", "start", "factor", "every", "metric", "mode", "label",
	"lamda", `["data.clients"]`, `["reg.lambda"]`, `["algo.eta_c"]`, `[""]`}

// genAtoms are the other values it writes.
var genAtoms = []string{`"x"`, `"last"`, `"top"`, "true", "false", "nil", "stage", "problem", "fedlab.algo.test_gd{}",
	"fedlab.schedule.test_step{ start = 1 }", "function(r) return 0.1 end", "function(r) return nil end", "data"}

// genKeys are the non-name keys of `[k] = v` fields besides genNumbers.
var genKeys = []string{`"x"`, "true", "{}", "stage", "fedlab.algo.test_gd{}"}

// next consumes one byte of the shape (0 once it is used up).
func (g *tableGen) next() int {
	if len(g.in) == 0 {
		return 0
	}
	b := g.in[0]
	g.in = g.in[1:]
	return int(b)
}

// pick chooses an element of list by b.
func pick(list []string, b int) string { return list[b%len(list)] }

// table writes one constructor at the given depth.
func (g *tableGen) table(depth int) {
	g.out.WriteString("{")
	for i := 0; i < genMaxFields; i++ {
		op := g.next() % 6
		if op == 0 {
			break
		}
		if i > 0 {
			g.out.WriteString(",")
		}
		g.out.WriteString(" ")
		switch op {
		case 1: // list element
			g.value(depth)
		case 2: // [k] = v
			if k := g.next(); k%2 == 0 {
				fmt.Fprintf(&g.out, "[%s] = ", pick(genNumbers, k/2))
			} else {
				fmt.Fprintf(&g.out, "[%s] = ", pick(genKeys, k/2))
			}
			g.value(depth)
		case 3: // name = v
			fmt.Fprintf(&g.out, "%s = ", pick(genNames, g.next()))
			g.value(depth)
		case 4: // a hole in the list part
			g.out.WriteString("nil")
		case 5: // a valid stage
			g.out.WriteString("stage")
		}
	}
	g.out.WriteString(" }")
}

// value writes a value: a number, another atom, a nested table, or a
// long list or deep nesting built at run time.
func (g *tableGen) value(depth int) {
	switch b := g.next(); b % 4 {
	case 0:
		g.out.WriteString(pick(genNumbers, b/4))
	case 1:
		g.out.WriteString(pick(genAtoms, b/4))
	case 2:
		if depth < genMaxDepth {
			g.table(depth + 1)
		} else {
			g.out.WriteString("{}")
		}
	default:
		g.runtime(b/4, depth)
	}
}

// runtime writes a call of fill (a list of 2^k elements with a hole) or
// nest (2^k levels of nesting) around a value.
func (g *tableGen) runtime(b, depth int) {
	n := 1 << (g.next() % 17)
	if b%2 == 0 {
		hole := g.next()
		fmt.Fprintf(&g.out, "fill(%d, ", n)
		g.value(depth)
		fmt.Fprintf(&g.out, ", %d)", hole)
		return
	}
	fmt.Fprintf(&g.out, "nest(%d, ", n)
	g.value(depth)
	g.out.WriteString(")")
}

// generateTable is the table that shape describes: mostly a constructor,
// for a quarter of the first bytes a long list or deep nesting.
func generateTable(shape []byte) string {
	g := &tableGen{in: shape}
	if b := g.next(); b%4 == 3 {
		g.runtime(b/4, 0)
	} else {
		g.table(0)
	}
	return g.out.String()
}

// tableSite is where a fuzz case puts its table T, and the name its
// errors at that line must carry.
type tableSite struct{ call, names string }

// tableSites are the decoders a generated table reaches.
var tableSites = []tableSite{
	{`fedlab.stages(with(T, { problem = problem, seeds = { 1 }, local_steps = 1 }))`, "fedlab.stages"},
	{`fedlab.stages{ problem = problem, local_steps = 1, T }`, "fedlab.stages"},
	{`fedlab.algo.test_gd(T)`, `"test_gd"`},
	{`fedlab.data.test_data(T)`, `"test_data"`},
	{`fedlab.schedule.test_step(T)`, `"test_step"`},
	{`if not slow(T, nil) then fedlab.sweep{ problem = problem, algorithms = { fedlab.algo.test_gd{} }, rounds = 2, local_steps = 1, select = sel, grid = T } end`, "fedlab.sweep"},
	{`if not slow(nil, T) then fedlab.sweep{ problem = problem, algorithms = { fedlab.algo.test_gd{} }, rounds = 2, local_steps = 1, select = sel, configs = T } end`, "fedlab.sweep"},
	{`if not slow(rawget(T, "grid"), rawget(T, "configs")) then fedlab.sweep(with(T, { problem = problem, algorithms = { fedlab.algo.test_gd{} }, rounds = 2, local_steps = 1, select = sel })) end`, "fedlab.sweep"},
	{`fedlab.run(with(T, { problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 2, local_steps = 1 }))`, "fedlab.run"},
}

// tablesPrelude defines what generated tables refer to; the table is
// built on the line after it, the call on the next (callLine). slow tells
// a sweep of grid and configs that is valid and slow to plan (more than
// 4096 configurations within the bound of 100,000): the sweep sites skip
// it, since such a case runs for seconds (until fuzzTimeLimit), the
// fuzzer's minimization many times over.
const tablesPrelude = problemSrc + `local stage, sel = { algo = fedlab.algo.test_gd{}, rounds = 1 }, { metric = "test_objective", mode = "min" }
local function fill(n, v, hole) local t = {} for i = 1, n do if i ~= hole then t[i] = v end end return t end
local function nest(n, v) for _ = 1, n do v = { v } end return v end
local function with(t, d) for k, v in pairs(d) do if rawget(t, k) == nil then rawset(t, k, v) end end return t end
local function slow(grid, configs) local n = 1 if type(grid) == "table" then for _, v in pairs(grid) do if type(v) == "table" then n = n * #v end end end if type(configs) == "table" then n = n + #configs end return n > 4096 and n <= 100000 end
`

// callLine is the script line of the call (the table is built on the line before).
const callLine = 9

// tablesScript is the script of one fuzz case.
func tablesScript(site uint8, shape []byte) (string, tableSite) {
	s := tableSites[int(site)%len(tableSites)]
	return tablesPrelude + "local T = " + generateTable(shape) + "\n" + s.call + "\n", s
}

// fuzzTimeLimit ends a fuzz case that runs long (a pipeline of 2^16
// stages is valid, and slow).
const fuzzTimeLimit = time.Second

// stopSlack bounds how long after fuzzTimeLimit a case may take to stop
// (generous: the 2-core machine is shared). This target found a grid of
// 65,536 configurations stopping 3–6 s after the limit, when
// plan.Builder.Sweep expanded configurations without checking the context
// (it does now).
const stopSlack = 5 * time.Second

// goFailures are texts of Go failures that no message may carry.
var goFailures = []string{"runtime error", "nil pointer", "index out of range", "goroutine ", "internal error", "panic", "stack traceback"}

// FuzzLuaNestedTables gives generated table constructors (nesting, holes,
// sparse and odd keys, long lists) to the decoders of fedlab.stages, of
// component parameters, of sweep grids and configurations, and of run
// tables: every outcome is a result or an error at a script line, never
// Go failure text; an error at the call's line names the call, the
// component or the key at fault.
func FuzzLuaNestedTables(f *testing.F) {
	for _, seed := range nestedTableSeeds {
		f.Add(seed.site, seed.shape)
	}
	dir := f.TempDir() // the script's; the runs are kept in memory (no run directory), three times faster
	f.Fuzz(func(t *testing.T, site uint8, shape []byte) {
		src, s := tablesScript(site, shape)
		path := filepath.Join(dir, "script.lua")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), fuzzTimeLimit)
		defer cancel()
		var out strings.Builder
		start := time.Now()
		_, err := RunFile(path, Options{Quiet: true, Stdout: &out, Stderr: &out, Context: ctx, MaxMemory: 256 << 20})
		if took := time.Since(start); ctx.Err() != nil {
			// a long sweep or pipeline stopped by the time limit, promptly
			if took > fuzzTimeLimit+stopSlack {
				t.Fatalf("%s\nstopped %v after the time limit", src, took-fuzzTimeLimit)
			}
			return
		}
		if err == nil {
			return
		}
		msg := err.Error()
		for _, bad := range goFailures {
			if strings.Contains(msg, bad) {
				t.Fatalf("%s\nerror %q", src, msg)
			}
		}
		if !strings.HasPrefix(msg, "script.lua:") {
			t.Fatalf("%s\nerror without the script line: %q", src, msg)
		}
		if strings.HasPrefix(msg, fmt.Sprintf("script.lua:%d:", callLine)) && !strings.Contains(msg, s.names) && !strings.Contains(msg, "key ") {
			t.Fatalf("%s\nerror at the call naming neither %s nor a key: %q", src, s.names, msg)
		}
	})
}

// nestedTableSeeds start FuzzLuaNestedTables from the cases (a
// nil and a key [5] among the stages) and their relatives; text is the
// table each shape generates (TestNestedTableSeeds).
var nestedTableSeeds = []struct {
	site        uint8
	shape       []byte
	text, error string // error: what the script's error must contain
}{
	{0, []byte{0, 5, 4, 5}, "{ stage, nil, stage }", "fedlab.stages: stage 2 is missing (nil, or a hole in the list)"},
	{0, []byte{0, 5, 5, 2, 4, 25}, "{ stage, stage, [5] = stage }", "fedlab.stages: stage 3 is missing"},
	{0, []byte{0, 5, 2, 20, 25}, "{ stage, [2^63] = stage }", "fedlab.stages: the stages must be a list (1, 2, …, n), got the key 9.223372036854776e+18"},
	{0, []byte{0, 5, 2, 8, 25}, "{ stage, [-1] = stage }", "got the key -1"},
	{0, []byte{0, 2, 12, 25}, "{ [1.5] = stage }", "got the key 1.5"},
	{0, []byte{0, 5, 2, 30, 25}, "{ stage, [0/0] = stage }", "table index is NaN"},
	{0, []byte{3, 12, 17, 25}, "fill(4096, stage, 17)", "fedlab.stages: stage 17 is missing"},
	{0, []byte{0, 3, 4, 2, 1, 4, 4, 1, 4, 0, 5}, "{ seeds = { 2, nil, 2 }, stage }", `fedlab.stages: key "seeds": expected a list`},
	{1, []byte{0, 1, 7, 16, 25}, "{ nest(65536, stage) }", `fedlab.stages: stage 1: missing required key "rounds"`},
	{2, []byte{0, 3, 9, 4, 4, 2, 4, 0}, "{ eta_c = 2, nil, [5] = 1 }", `algorithm "test_gd": parameters are named (key = value), got the positional key 5`},
	{3, []byte{0, 3, 12, 2, 1, 20, 4, 1, 0, 0}, "{ samples = { 0.5, nil, 1 } }", `dataset "test_data": parameter "samples": expected a list`},
	{4, []byte{0, 3, 14, 7, 4, 0}, "{ start = nest(16, 1) }", `schedule "test_step": parameter "start"`},
	{5, []byte{0, 3, 9, 2, 1, 20, 4, 1, 0, 0}, "{ eta_c = { 0.5, nil, 1 } }", `fedlab.sweep: key "grid": key "eta_c": expected a list`},
	{5, []byte{0, 3, 9, 3, 16, 0, 4, 3, 10, 3, 2, 0, 4}, "{ eta_c = fill(65536, 2, 0), eta_s = fill(4, 2, 0) }", "fedlab.sweep: key \"grid\": the grid has more than 100000 configurations"},
	{6, []byte{0, 1, 2, 3, 9, 20, 0, 4, 1, 2, 0}, "{ { eta_c = 0.5 }, nil, { } }", `fedlab.sweep: key "configs": expected a list`},
	{8, []byte{0, 3, 0, 40, 4}, "{ rounds = 2^63, nil }", `fedlab.run: key "rounds": expected an integer, got 9.223372036854776e+18, which is too large`},
}

// The seeds generate the cases they stand for, and each gets its clear
// error at the call (or, for a NaN key, where the table is built).
func TestNestedTableSeeds(t *testing.T) {
	for _, c := range nestedTableSeeds {
		if got := generateTable(c.shape); got != c.text {
			t.Errorf("shape %v generates %q, want %q", c.shape, got, c.text)
			continue
		}
		src, s := tablesScript(c.site, c.shape)
		_, err := script(t, src, Options{MaxMemory: 256 << 20})
		line := callLine
		if strings.Contains(c.error, "NaN") {
			line-- // raised where the table is built
		}
		if err == nil || !strings.Contains(err.Error(), c.error) || !strings.HasPrefix(err.Error(), fmt.Sprintf("script.lua:%d: ", line)) {
			t.Errorf("%s: %s\nerror %v, want %q at line %d", s.call, c.text, err, c.error, line)
			continue
		}
		for _, bad := range goFailures {
			if strings.Contains(err.Error(), bad) {
				t.Errorf("%s: %s: error %q", s.call, c.text, err)
			}
		}
	}
}
