package luaapi

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// callScripts calls every declared call table with the entry %s added;
// the calls' other arguments are valid, so the entry decides.
var callScripts = map[string]string{
	"fedlab.problem": "fedlab.problem{ data = data, loss = fedlab.loss.test_squared{}, %s }",
	"fedlab.run":     "fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 1, local_steps = 1, metrics = { 'test_objective' }, %s }",
	"fedlab.compare": "fedlab.compare{ problem = problem, algorithms = { fedlab.algo.test_gd{} }, rounds = 1, local_steps = 1, metrics = { 'test_objective' }, %s }",
	"fedlab.sweep": "fedlab.sweep{ problem = problem, algorithms = { fedlab.algo.test_gd{} }, rounds = 1, local_steps = 1, metrics = { 'test_objective' }, " +
		"grid = { eta_c = { 0.1 } }, select = { metric = 'test_objective', mode = 'min' }, %s }",
	"fedlab.sweep select": "fedlab.sweep{ problem = problem, algorithms = { fedlab.algo.test_gd{} }, rounds = 1, local_steps = 1, metrics = { 'test_objective' }, " +
		"grid = { eta_c = { 0.1 } }, select = { metric = 'test_objective', mode = 'min', %s } }",
	"fedlab.sweep halving": "fedlab.sweep{ problem = problem, algorithms = { fedlab.algo.test_gd{} }, rounds = 4, local_steps = 1, metrics = { 'test_objective' }, " +
		"grid = { eta_c = { 0.1, 0.2 } }, select = { metric = 'test_objective', mode = 'min' }, halving = { %s } }",
	"fedlab.stages":        "fedlab.stages{ problem = problem, local_steps = 1, metrics = { 'test_objective' }, { algo = fedlab.algo.test_gd{}, rounds = 1 }, %s }",
	"fedlab.stages stage":  "fedlab.stages{ problem = problem, local_steps = 1, metrics = { 'test_objective' }, { algo = fedlab.algo.test_gd{}, rounds = 1, %s } }",
	"fedlab.table":         "fedlab.table(run, { %s })",
	"fedlab.sweep_table":   "fedlab.sweep_table(sweep, { %s })",
	"fedlab.plot":          "fedlab.plot(run, { metric = 'test_objective', %s })",
	"fedlab.plot hline":    "fedlab.plot(run, { metric = 'test_objective', hline = { value = 1, %s } })",
	"fedlab.xyplot":        "fedlab.xyplot{ file = 'x', series = {}, %s }",
	"fedlab.claim":         "fedlab.claim{ text = 'x', runs = run, label = 'test_gd', metric = 'test_objective', at = 1, at_least = 0, %s }",
	"fedlab.claim equals":  "fedlab.claim{ text = 'x', runs = run, label = 'test_gd', metric = 'test_objective', at = 1, equals = { label = 'test_gd', metric = 'test_objective', at = 1, %s }, tol = 0 }",
	"fedlab.xyplot series": "fedlab.xyplot{ file = 'x', series = { { label = 'a', x = { 1 }, y = { 2 }, %s } } }",
}

// mustFailInMemory is mustFail for a script whose runs are kept in memory
// (Options.Out ""): no run directory is made, and a file the script
// writes lands in the test's own current directory (t.Chdir).
func mustFailInMemory(t *testing.T, src, prefix string, want ...string) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	path := filepath.Join(dir, "script.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	_, err := RunFile(path, Options{Stdout: &out, Stderr: &out})
	if err == nil {
		t.Fatalf("script succeeded, want an error beginning %q", prefix)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		t.Errorf("error %q does not begin with %q", msg, prefix)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
	if strings.Contains(msg, "traceback") || strings.Contains(msg, "goroutine") {
		t.Errorf("error carries a stack trace: %q", msg)
	}
}

// Every call table rejects a misspelled key with the script line, the
// call, a "did you mean" naming the key and the valid keys; and the same
// entry spelled right is accepted.
func TestEveryCallTableRejectsUnknownKeys(t *testing.T) {
	const prelude = problemSrc + `local run = fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 1, local_steps = 1, metrics = { 'test_objective' } }
local sweep = fedlab.sweep{ problem = problem, algorithms = { fedlab.algo.test_gd{} }, rounds = 1, local_steps = 1, metrics = { 'test_objective' },
  grid = { eta_c = { 0.1 } }, select = { metric = 'test_objective', mode = 'min' } }
`
	line := strings.Count(prelude, "\n") + 1
	for _, c := range callTables {
		src, ok := callScripts[c.Name]
		if !ok {
			t.Errorf("%s: add a script to callScripts", c.Name)
			continue
		}
		// the longest key, misspelled by one extra letter
		k := slices.MaxFunc(c.Keys, func(a, b key) int { return len(a.Name) - len(b.Name) })
		bad := k.Name + "z"
		mustFailInMemory(t, prelude+fmt.Sprintf(src, bad+" = 1")+"\n", fmt.Sprintf("script.lua:%d: ", line),
			fmt.Sprintf("unknown key %q (did you mean %q?)", bad, k.Name), "valid keys: "+strings.Join(c.names(), ", "))
	}
	for name := range callScripts {
		if !slices.ContainsFunc(callTables, func(c *callTable) bool { return c.Name == name }) {
			t.Errorf("callScripts has %q, which is not declared", name)
		}
	}
}

// All mistakes in one table are reported together.
func TestCallTableReportsEveryMistake(t *testing.T) {
	mustFail(t, problemSrc+"fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, local_step = 1, sed = 2, eval_every = 'x' }\n",
		"script.lua:3: ", `unknown key "local_step" (did you mean "local_steps"?)`, `unknown key "sed" (did you mean "seed"?)`,
		`missing required key "rounds"`, `key "eval_every": expected an integer`)
}

// docs/lua-api.md holds the reference generated from the declarations.
func TestCallTablesAreDocumented(t *testing.T) {
	const path, heading = "../docs/lua-api.md", "## Call tables\n\n"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	before, _, _ := strings.Cut(doc, heading)
	want := before + heading + callTablesMarkdown()
	if os.Getenv("FEDLAB_UPDATE_DOCS") != "" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if doc != want {
		t.Errorf("%s: the section %q is stale; run FEDLAB_UPDATE_DOCS=1 go test ./luaapi -run TestCallTablesAreDocumented", path, strings.TrimSpace(heading))
	}
}
