package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/present/report"
	"github.com/fedlab/fedlab/rundir"
)

// halvingLua is goplan.lua's sweep by successive halving with every
// default (eta 3, the first rung max(eval_every, rounds/eta², 1) = 20).
const halvingLua = `local data = fedlab.data.sparse_ar1{ dim = 64, support = 8, clients = 8, samples = 40, test_samples = 0 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{ intercept = false },
  reg = fedlab.reg.l1{ lambda = 0.02 } }
local fda = fedlab.algo.feddualavg{ eta_c = 0.002, label = "FedDualAvg" }
local sweep = fedlab.sweep{ problem = problem, metrics = { "l2_error", "f1", "objective" }, seeds = { 1, 2 },
  rounds = 60, clients_per_round = 4, local_steps = 5, batch = 8, eval_every = 20, init = "normal", init_scale = 1,
  algorithms = { fda }, grid = { eta_c = { 0.001, 0.002, 0.004 } },
  select = { metric = "objective", mode = "min", last = 20 }, halving = {} }
fedlab.table(sweep.best[1].runs, { title = "FedDualAvg, the step size selected" })
`

// TestHalvingFromGoLikeLua: a Go plan's halving sweep (plan.Builder.Halve
// with the zero experiment.Halving, every default) runs the same rungs as
// the Lua script's fedlab.sweep with halving = {}: the default first rung
// is eval_every (20, not rounds/eta² = 6: rungs of 20 and 60 rounds, not
// 7, 20 and 60), and the run directories hold the same records, the same
// calls (names and rungs) and the same selected runs.
func TestHalvingFromGoLikeLua(t *testing.T) {
	tmp := t.TempDir()
	script := filepath.Join(tmp, "halving.lua")
	if err := os.WriteFile(script, []byte(halvingLua), 0o644); err != nil {
		t.Fatal(err)
	}
	luaOut := filepath.Join(tmp, "lua")
	var luaTable bytes.Buffer
	if _, err := luaapi.RunFile(script, luaapi.Options{Out: luaOut, Quiet: true, Stdout: &luaTable, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	lm, _, err := rundir.ReadManifest(luaOut)
	if err != nil {
		t.Fatal(err)
	}

	goOut := filepath.Join(tmp, "go")
	sw := build().Sweep
	dir, err := rundir.Open(goOut, rundir.Options{Script: lm.Script, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	// the rungs are the calls of the sweep, at the Lua call's place
	res, err := plan.NewBuilder().Halve(sw, experiment.Halving{}, experiment.Rungs(dir, experiment.Call{Function: "fedlab.sweep", Where: lm.Calls[0].Where, Select: sw.Select}))
	if _, ferr := dir.Finish(err); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	if res.Halving != (experiment.Halving{Eta: 3, First: 20}) || !slices.Equal(res.Budgets, []int{20, 60}) {
		t.Errorf("halving %+v with rungs %v, want eta 3, first 20: rungs of 20 and 60 rounds", res.Halving, res.Budgets)
	}
	var rungs []experiment.Rung
	for _, r := range res.Rungs {
		rungs = append(rungs, r.Rung)
	}
	if want := []experiment.Rung{{Index: 1, Of: 2, Rounds: 20}, {Index: 2, Of: 2, Rounds: 60}}; !slices.Equal(rungs, want) {
		t.Errorf("rungs %v, want %v", rungs, want)
	}
	gm, _, err := rundir.ReadManifest(goOut)
	if err != nil {
		t.Fatal(err)
	}
	if len(gm.Calls) != 2 || len(lm.Calls) != 2 {
		t.Fatalf("%d calls of the Go plan, %d of the Lua script, want 2 (one per rung)", len(gm.Calls), len(lm.Calls))
	}
	for i := range gm.Calls {
		g, l := gm.Calls[i], lm.Calls[i]
		if g.Name != l.Name || !reflect.DeepEqual(g.Rung, l.Rung) || !reflect.DeepEqual(g.Runs, l.Runs) {
			t.Errorf("call %d: Go plan %q rung %v, %d runs; Lua script %q rung %v, %d runs", i+1, g.Name, g.Rung, len(g.Runs), l.Name, l.Rung, len(l.Runs))
		}
	}
	if name := gm.Calls[1].Name; name != "rung 2 of 2 (60 rounds)" {
		t.Errorf("second call named %q", name)
	}
	a, err := os.ReadFile(filepath.Join(goOut, rundir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(luaOut, rundir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("records of the Go plan and of the Lua script differ:\n%s\nLua:\n%s", a, b)
	}
	var table bytes.Buffer
	if err := report.Table(&table, experiment.BestRuns(res.Selections), report.TableOptions{Title: "FedDualAvg, the step size selected"}); err != nil {
		t.Fatal(err)
	}
	if table.String() != luaTable.String() {
		t.Errorf("the selected runs differ:\n%s\nLua:\n%s", table.String(), luaTable.String())
	}
}

// TestHalvingFromGoWithEta1IsTheFullGrid: with eta = 1 a Go plan's
// halving plans exactly the full grid's jobs, in one rung.
func TestHalvingFromGoWithEta1IsTheFullGrid(t *testing.T) {
	sw := build().Sweep
	b := plan.NewBuilder()
	full, err := b.Sweep(sw)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := rundir.Open("", rundir.Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Halve(sw, experiment.Halving{Eta: 1}, experiment.Rungs(dir, experiment.Call{Function: "sweep", Where: "goplan:halving", Select: sw.Select}))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rungs) != 1 || res.Rungs[0].Rung.Rounds != sw.Settings.Rounds || len(res.Rungs[0].Jobs) != len(full) {
		t.Fatalf("eta = 1: %d rungs, want one of the full grid's %d jobs", len(res.Rungs), len(full))
	}
	for i, j := range res.Rungs[0].Jobs {
		if j.Key != full[i].Key {
			t.Errorf("job %d: key %s, the full grid's %s", i, j.Key, full[i].Key)
		}
	}
	if c := res.Selections[0].Candidates[res.Selections[0].Best]; c.Rung != 1 || c.Rounds != sw.Settings.Rounds {
		t.Errorf("the selected configuration stopped at rung %d (%d rounds), want the only one", c.Rung, c.Rounds)
	}
}
