package luaapi

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDryRunPlansEveryCall dry-runs a sweep (full grid and halving), a
// comparison, a pipeline, an optimum and every output: each call is
// printed with its runs and rounds, results are placeholders (status
// "planned", NaN metrics), a sweep's best is its first configuration, the
// optimum is not solved, tables print no numbers, and nothing is written;
// test_gd, which does not declare its state, is named once as an
// algorithm whose runs cannot be checkpointed.
func TestDryRunPlansEveryCall(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	src := problemSrc + `
local opt = fedlab.optimum(problem)
assert(opt.objective ~= opt.objective and opt.iters ~= opt.iters, "the optimum is a placeholder")
local sw = fedlab.sweep{
  problem = problem, rounds = 10, clients_per_round = 2, local_steps = 2, batch = 2, eval_every = 5,
  seeds = { 1, 2 }, metrics = { "test_objective" },
  algorithms = { fedlab.algo.test_gd{ label = "gd" } },
  grid = { eta_c = { 0.01, 0.1, 1 } }, select = { metric = "test_objective", mode = "min" } }
assert(#sw.runs == 6 and sw.runs[1].status == "planned", sw.runs[1].status)
assert(sw.runs[1].error == "dry run: planned, not computed", sw.runs[1].error)
local v = sw.runs[1].final.test_objective
assert(v ~= v, "a placeholder's metric is NaN")
local rounds = {}
for _, rec in ipairs(sw.runs[1].records) do rounds[#rounds + 1] = rec.round end
assert(table.concat(rounds, ",") == "0,5,10", table.concat(rounds, ",")); local rec, el = sw.runs[1].records[2], sw.runs[1].elapsed
assert(rec.comm_up ~= rec.comm_up and rec.comm_down ~= rec.comm_down and rec.samples ~= rec.samples and el ~= el, "a placeholder's counts are NaN")
assert(sw.best[1].config.eta_c == 0.01, "the first configuration stands as the best")
fedlab.sweep_table(sw, { file = "sweep.md" })
local h = fedlab.sweep{
  problem = problem, rounds = 9, clients_per_round = 2, local_steps = 2, batch = 2,
  metrics = { "test_objective" }, algorithms = { fedlab.algo.test_gd{ label = "gd" } },
  grid = { eta_c = { 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09 } },
  select = { metric = "test_objective", mode = "min" }, halving = { eta = 3, first = 1 } }
assert(h.best[1].config.eta_c == 0.01, "halving keeps the first configurations")
local runs = fedlab.compare{ problem = sw.best[1].problem, rounds = 10, clients_per_round = 2, local_steps = 2,
  batch = 2, eval_every = 5, seeds = { 1, 2, 3 }, metrics = { "test_objective" },
  algorithms = { sw.best[1].algorithm, fedlab.algo.test_gd{ label = "other", eta_c = 0.5 } } }
local st = fedlab.stages{ problem = problem, clients_per_round = 2, local_steps = 2, batch = 2, eval_every = 2,
  metrics = { "test_objective" }, seeds = { 1 },
  { algo = fedlab.algo.test_gd{ eta_c = 0.05 }, rounds = 4 }, { lambda = 0.1, rounds = 2 } }
assert(st[1].status == "planned" and st[1].records[1].stage ~= st[1].records[1].stage)
local m = fedlab.model(runs[1])
assert(#m > 0 and m[1] ~= m[1], "a placeholder's model is NaN")
fedlab.table(runs, { metrics = { "test_objective" }, file = "table.md" })
fedlab.csv(runs, "runs.csv")
fedlab.save_model(runs[1], "model.txt")
fedlab.plot(runs, { metric = "test_objective", file = "figs/obj" })
fedlab.xyplot{ series = { { label = "a", x = { 1, 2 }, y = { 1, 0/0 } } }, file = "xy" }
print("script output")
`
	got, err := script(t, src, Options{Out: out, DryRun: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, got)
	}
	want := `dry run: script.lua: every run is planned, not computed: results are placeholders (status "planned", every metric NaN), a sweep selects its first configuration, and no file is written
dry run: fedlab.optimum at script.lua:4: the reference solve is skipped (objective, lambda and iters NaN)
fedlab: warning: fedlab.sweep at script.lua:6: algorithm "test_gd" does not declare its state (core.Stateful): its runs cannot be checkpointed, and one interrupted (--timeout, Ctrl-C, SIGTERM) starts again from round 0
dry run: call 1: fedlab.sweep at script.lua:6: 6 runs of 10 rounds (60 rounds)
dry run: fedlab.sweep_table at script.lua:20: 6 runs, no scores (nothing was computed; the first configuration stands as the best)
dry run: fedlab.sweep_table at script.lua:20: not written: ` + filepath.Join(out, "sweep.md") + `
dry run: call 2: rung 1 of 3 (1 rounds) (fedlab.sweep at script.lua:21): 9 runs of 1 round (9 rounds)
dry run: call 3: rung 2 of 3 (3 rounds) (fedlab.sweep at script.lua:21): 3 runs of 3 rounds (9 rounds)
dry run: call 4: rung 3 of 3 (9 rounds) (fedlab.sweep at script.lua:21): 1 run of 9 rounds (9 rounds)
dry run: call 5: fedlab.compare at script.lua:27: 4 runs of 10 rounds (40 rounds); 2 runs planned by an earlier call
dry run: call 6: fedlab.stages at script.lua:30: 1 run of 6 rounds (6 rounds)
dry run: fedlab.table at script.lua:36: 6 runs, no numbers (nothing was computed)
dry run: fedlab.table at script.lua:36: not written: ` + filepath.Join(out, "table.md") + `
dry run: fedlab.csv at script.lua:37: not written: ` + filepath.Join(out, "runs.csv") + `
dry run: fedlab.save_model at script.lua:38: not written: ` + filepath.Join(out, "model.txt") + `
dry run: fedlab.plot at script.lua:39: not written: ` + filepath.Join(out, "figs/obj.png") + `, ` + filepath.Join(out, "figs/obj.svg") + `
dry run: fedlab.xyplot at script.lua:40: not written: ` + filepath.Join(out, "xy.png") + `, ` + filepath.Join(out, "xy.svg") + `
script output
dry run: script.lua: 6 calls, 24 runs, 133 rounds; nothing was computed or written
`
	if got != want {
		t.Errorf("dry run printed\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(out)
		t.Errorf("the dry run left %s (%v): %v", out, err, entries)
	}
}
