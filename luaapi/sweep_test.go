package luaapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sweepSrc = problemSrc + `local sw = fedlab.sweep{
  problem = problem, rounds = 10, clients_per_round = 2, local_steps = 2, batch = 2, eval_every = 2,
  seeds = { 1, 2 }, metrics = { "test_objective", "test_lambda" },
  algorithms = { fedlab.algo.test_gd{ label = "gd" }, fedlab.algo.test_gd{ eta_s = 0.5, label = "half" } },
  grid = { eta_c = { 0.01, 0.1, 1e200 } },
  configs = { { eta_c = 0.05, ["reg.lambda"] = 0.5 } },
  select = { { metric = "test_objective", mode = "min", last = 4 }, { metric = "test_lambda", mode = "min" } } }
`

func TestSweepSelectsTheBestConfigPerAlgorithm(t *testing.T) {
	out, err := script(t, sweepSrc+`assert(#sw.runs == 2 * 4 * 2, "runs: " .. #sw.runs)
local r = sw.runs[1]
assert(r.config.eta_c == 0.01 and r.label == "gd" and r.seed == 1 and #r.key == 16)
assert(sw.runs[5].status == "diverged" and sw.runs[5].config.eta_c == 1e200)
assert(sw.runs[7].config["reg.lambda"] == 0.5 and sw.runs[7].final.test_lambda == 0.5)
assert(#sw.best == 2 and sw.best[1].label == "gd" and sw.best[2].label == "half")
for _, b in ipairs(sw.best) do
  assert(b.config.eta_c == 0.1, b.label .. " picked " .. tostring(b.config.eta_c))
  assert(b.config["reg.lambda"] == nil and #b.runs == 2 and b.scores[1] == b.score)
end
fedlab.sweep_table(sw, { title = "grid" })
-- the best configuration, reused for a final comparison: the same runs
local final = fedlab.compare{ problem = sw.best[1].problem, rounds = 10, clients_per_round = 2, local_steps = 2,
  batch = 2, eval_every = 2, seeds = { 1, 2, 3 }, metrics = { "test_objective", "test_lambda" },
  algorithms = { sw.best[1].algorithm, sw.best[2].algorithm } }
assert(final[1].label == "gd" and final[1].params.eta_c == 0.1 and final[4].params.eta_s == 0.5)
assert(final[1].key == sw.best[1].runs[1].key and final[1].final.test_objective == sw.best[1].runs[1].final.test_objective)
print(tostring(sw.best[2].algorithm))
print(table.concat(fedlab.plot(sw, { metric = "test_objective", file = "figs/best", log = true }), " "))
print(#fedlab.plot(final, { metric = "test_objective", x = "comm", formats = { "svg" } }))
`, Options{Jobs: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"grid\n", "gd: min test_objective (mean over the last 4 rounds), ties by min test_lambda (at the last round)",
		`eta_c \ reg.lambda`, "diverged@", "*", "best gd: eta_c=0.1 (test_objective", "best half: eta_c=0.1",
		`algorithm "test_gd" (label "half") {eta_c = 0.1, eta_s = 0.5}`, "best.png", "best.svg", "\n1\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSweepErrors(t *testing.T) {
	call := func(extra string) string {
		return problemSrc + "fedlab.sweep{ problem = problem, rounds = 2, local_steps = 1, metrics = { 'test_objective' },\n" +
			"  algorithms = { fedlab.algo.test_gd{} }, " + extra + " }\n"
	}
	rule := `select = { metric = "test_objective", mode = "min" }`
	cases := []struct{ src, want string }{
		{call(`grid = { eta_c = { 1 } }`), `missing required key "select"`},
		{call(rule), "give grid = { key = { values... } } or configs"},
		{call(`grid = { mu = { 1 } }, ` + rule), `swept key "mu": algorithm "test_gd" has no parameter "mu"; valid keys: eta_c, eta_s, fail`},
		{call(`grid = { ["foo.bar"] = { 1 } }, ` + rule), `"foo" is not a part of the problem`},
		{call(`grid = { eta_c = {} }, ` + rule), `key "eta_c": the list of values is empty`},
		{call(`grid = { eta_c = { -1 } }, ` + rule), `parameter "eta_c" = -1 is below its minimum 0`},
		{call(`grid = { ["reg.lambda"] = { "x" } }, ` + rule), `regularizer "test_l1": parameter "lambda": expected a number, a schedule or a function`},
		{call(`grid = { ["mirror.p"] = { 1 } }, ` + rule), `the problem has no mirror`},
		{call(`configs = { { eta_c = 1, ["algo.eta_c"] = 2 } }, ` + rule), `key "eta_c" is given twice`},
		{call(`grid = { eta_c = { 1 } }, select = { metric = "f1", mode = "max" }`), `metric "f1" is not measured`},
		{call(`grid = { eta_c = { 1 } }, select = { metric = "test_objective", mode = "best" }`), `"best" is not one of max, min`},
		{call(`grid = { eta_c = { 1 } }, select = { metric = "test_objective", mode = "min", window = 3 }`), `unknown key "window"`},
	}
	for _, c := range cases {
		mustFail(t, c.src, "script.lua:3: ", c.want)
	}
	mustFail(t, "\nfedlab.sweep_table({})\n", "script.lua:2: ", "expected the result of fedlab.sweep")
	mustFail(t, problemSrc+`local r = fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 1, local_steps = 1, metrics = {} }
fedlab.csv(r, "records.csv")
`, "script.lua:4: ", `"records.csv" is reserved in the run directory`)
}

func TestRunDirectoryIsWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if _, err := script(t, sweepSrc, Options{Out: dir}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"manifest.json", "records.csv", "results", "models"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	results, _ := os.ReadDir(filepath.Join(dir, "results"))
	if len(results) != 16 {
		t.Errorf("%d result files, want 16", len(results))
	}
	b, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	for _, want := range []string{`"status": "complete"`, `"function": "fedlab.sweep"`, `"where": "script.lua:3"`,
		`"sha256": "`, `"go_version": "go`, `"reg.lambda": 0.5`, `"mode": "min"`, `"eta_s": 0.5`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("manifest lacks %s", want)
		}
	}
	// A script that fails before running anything leaves no directory.
	empty := filepath.Join(t.TempDir(), "none")
	if _, err := script(t, "error('early')\n", Options{Out: empty}); err == nil {
		t.Fatal("the script did not fail")
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("a failed script created its directory: %v", err)
	}
}
