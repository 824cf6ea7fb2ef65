package luaapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/rundir/runfile"
)

const runSrc = problemSrc + `local r = fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{ label = LABEL }, rounds = 2, local_steps = 1, metrics = {"test_objective"} }
`

// sandboxScript runs src (with LABEL replaced) in a fresh directory whose
// run directory is dir/out, and returns dir and the error.
func sandboxScript(t *testing.T, src string, opts Options) (string, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "script.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	opts.Stdout, opts.Stderr, opts.Out = &out, &out, filepath.Join(dir, "out")
	_, err := RunFile(path, opts)
	return dir, err
}

func TestSandboxRefusesWritesOutsideTheRunDirectory(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "victim.txt")
	run := strings.ReplaceAll(runSrc, "LABEL", `"a"`)
	cases := []struct{ call, want string }{
		{`fedlab.csv(r, "` + victim + `")`, `fedlab.csv: absolute path "` + victim + `" refused`},
		{`fedlab.save_model(r, "` + victim + `")`, "fedlab.save_model: absolute path"},
		{`fedlab.plot(r, { metric = "test_objective", file = "` + victim + `" })`, "fedlab.plot: absolute path"},
		{`fedlab.csv(r, "../victim.txt")`, `fedlab.csv: path "../victim.txt" leaves the run directory`},
		{`fedlab.csv(r, "a/../../victim.txt")`, "leaves the run directory"},
		{`fedlab.save_model(r, "..")`, "leaves the run directory"},
		{`fedlab.csv(r, ".")`, "names the run directory itself"},
		{`fedlab.csv(r, "manifest.json")`, `fedlab.csv: "manifest.json" is reserved in the run directory`},
		{`fedlab.csv(r, "records.csv")`, "is reserved"},
		{`fedlab.save_model(r, "results/x.json")`, "is reserved"},
		{`fedlab.save_model(r, "./models/k.txt")`, "is reserved"},
		{`fedlab.csv(r, "fedlab.lock")`, "is reserved"},
		{`fedlab.plot(r, { metric = "test_objective", file = "results/p" })`, "is reserved"},
	}
	for _, c := range cases {
		_, err := sandboxScript(t, run+c.call+"\n", Options{})
		if err == nil {
			t.Errorf("%s: accepted", c.call)
			continue
		}
		if !strings.HasPrefix(err.Error(), "script.lua:4: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want script.lua:4: … %q", c.call, err, c.want)
		}
		if strings.Contains(c.want, "absolute") || strings.Contains(c.want, "leaves") {
			if !strings.Contains(err.Error(), "--unsafe") {
				t.Errorf("%s: error %q does not name --unsafe", c.call, err)
			}
		}
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Errorf("the victim file was written: %v", err)
	}
}

func TestSandboxUnsafeAllowsAbsolutePathsButNotReservedNames(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "allowed.csv")
	run := strings.ReplaceAll(runSrc, "LABEL", `"a"`)
	if _, err := sandboxScript(t, run+`fedlab.csv(r, "`+victim+`")`+"\n", Options{Unsafe: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("--unsafe: %v", err)
	}
	// an absolute path into the run directory's results is refused even with --unsafe
	dir := t.TempDir()
	path := filepath.Join(dir, "script.lua")
	abs := filepath.Join(dir, "out", "results", "x.json")
	os.WriteFile(path, []byte(run+`fedlab.csv(r, "`+abs+`")`+"\n"), 0o644)
	_, err := RunFile(path, Options{Out: filepath.Join(dir, "out"), Unsafe: true, Stdout: &strings.Builder{}, Stderr: &strings.Builder{}})
	if err == nil || !strings.Contains(err.Error(), "is reserved") {
		t.Errorf("absolute path into results/: %v", err)
	}
}

func TestSandboxRefusesSymbolicLinksOutOfTheRunDirectory(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(out, "link")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	path := filepath.Join(dir, "script.lua")
	src := strings.ReplaceAll(runSrc, "LABEL", `"a"`) + `fedlab.csv(r, "link/x.csv")` + "\n"
	os.WriteFile(path, []byte(src), 0o644)
	_, err := RunFile(path, Options{Out: out, Stdout: &strings.Builder{}, Stderr: &strings.Builder{}})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("write through a link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.csv")); !os.IsNotExist(err) {
		t.Errorf("the file outside was written")
	}
}

func TestFreeTextStaysOnItsLineInTheModelFile(t *testing.T) {
	label := `"x\nexport PATH=/tmp/evil:$PATH\n#"`
	src := strings.ReplaceAll(runSrc, "LABEL", label) + `fedlab.save_model(r, "m.txt")` + "\n"
	dir, err := sandboxScript(t, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "m.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "export") {
			t.Fatalf("the label started a line of the model file:\n%s", b)
		}
	}
	if !strings.Contains(string(b), `# fedlab model: "x\nexport PATH=/tmp/evil:$PATH\n#"`) {
		t.Errorf("label not quoted in the header:\n%s", b)
	}
	w, err := runfile.ReadModel(filepath.Join(dir, "out", "m.txt"))
	if err != nil || len(w) == 0 {
		t.Errorf("model does not read back: %v %v", w, err)
	}
}

func TestMemoryCeilingStopsStringAndTableBombs(t *testing.T) {
	ceiling := testCeiling()
	cases := []struct{ src, want string }{
		{"local s = string.rep('x', 2^40)\n", "script.lua:1: string.rep: the result would take 1.0 TiB, more than the memory ceiling of " + budget.Format(ceiling) + " (--max-memory"},
		{"local s = ('ab'):rep(2^50)\n", "script.lua:1: string.rep: the result would take"},
		{"local s = 'x'\nwhile true do\n  s = s .. s\nend\n", "memory ceiling reached"},
		{"local t = {}\nlocal i = 0\nwhile true do\n  i = i + 1\n  t[i] = {i, i, i}\nend\n", "memory ceiling reached"},
	}
	for _, c := range cases {
		_, err := sandboxScript(t, c.src, Options{MaxMemory: ceiling})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "script.lua:") {
			t.Errorf("%q: error %q lacks the script line", c.src, err)
		}
	}
	if _, err := sandboxScript(t, "assert(string.rep('ab', 3) == 'ababab')\n", Options{MaxMemory: 64 << 20}); err != nil {
		t.Errorf("string.rep within the ceiling: %v", err)
	}
}

// TestPcallKeepsTheCallersUpvaluesOpen is gopher-lua issue 448: after a
// failed pcall, a closure no longer saw assignments to the caller's local.
func TestPcallKeepsTheCallersUpvaluesOpen(t *testing.T) {
	out, err := script(t, `local failed
local function check() return failed end
local ok, msg = pcall(function() error("boom") end)
failed = true
print(ok, msg, check())
print(pcall(function(a, b) return a + b, "x" end, 2, 3))
print(pcall(42))
print(select("#", pcall(function() end)))
local t = setmetatable({}, { __call = function(self, x) return x * 2 end })
print(pcall(t, 21))
print(pcall(pcall, error, "inner", 0))
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "false\tscript.lua:3: boom\ttrue\ntrue\t5\tx\nfalse\tattempt to call a number value\n1\ntrue\t42\ntrue\tfalse\tinner\n"
	if out != want {
		t.Errorf("output\n%q\nwant\n%q", out, want)
	}
}

func TestErrorWithATableKeepsTheLine(t *testing.T) {
	mustFail(t, "local x = 1\n\nerror({ code = 42 })\n", "script.lua:3: error value { code = 42 }")
	mustFail(t, "local f = function() error({ 1 }, 2) end\nf()\n", "script.lua:2: error value { [1] = 1 }")
	out, err := script(t, "local ok, e = pcall(error, { code = 7 })\nprint(ok, e.code)\n", Options{})
	if err != nil || out != "false\t7\n" {
		t.Errorf("a caught error table: %q %v", out, err)
	}
}

func TestSeedsMustBeDistinctAndGiven(t *testing.T) {
	run := problemSrc + "fedlab.compare{ problem = problem, algorithms = { fedlab.algo.test_gd{} }, rounds = 1, local_steps = 1, metrics = {\"test_objective\"}, seeds = SEEDS }\n"
	mustFail(t, strings.Replace(run, "SEEDS", "{ 1, 2, 1 }", 1), "script.lua:3: ", `key "seeds": seed 1 appears twice (elements 1 and 3)`)
	mustFail(t, strings.Replace(run, "SEEDS", "{}", 1), "script.lua:3: ", `key "seeds": the list is empty`)
}
