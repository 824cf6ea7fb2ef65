package cli

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/rundir"
)

// halvingScript writes sweep.lua into dir: a sweep of 9 step sizes × 2
// algorithms, 90 rounds, with the given extra keys (a halving table, or
// none for the full grid).
func halvingScript(t *testing.T, dir, extra string) string {
	t.Helper()
	path := filepath.Join(dir, "sweep.lua")
	if err := os.WriteFile(path, []byte(halvingSrc(extra)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// halvingThirds is the halving of halvingScript with eta = 3 from 10
// rounds: rungs of 10, 30 and 90 rounds.
const halvingThirds = ", halving = { eta = 3, first = 10 }"

// halvingRun is uninterrupted's run of halvingScript with halvingThirds
// (--workers 1), which the tests that read a halving sweep's directory
// share.
func halvingRun(t *testing.T) wholeRun {
	t.Helper()
	return uninterruptedRun(t, "sweep.lua", halvingSrc(halvingThirds), "--workers", "1")
}

// halvingSrc is the source halvingScript writes.
func halvingSrc(extra string) string {
	return `local data = fedlab.data.lasso{ variant = "custom", dim = 32, support = 4, clients = 6, samples = 10, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
local sw = fedlab.sweep{ problem = p, algorithms = { fedlab.algo.fedavg{}, fedlab.algo.fedmid{} },
  grid = { eta_c = { 0.001, 0.002, 0.003, 0.005, 0.01, 0.02, 0.03, 0.05, 3 } }, rounds = 90, local_steps = 2, batch = 3, eval_every = 10,
  seeds = { 1, 2 }, select = { metric = "objective", mode = "min", last = 20 }` + extra + ` }
for _, b in ipairs(sw.best) do print(b.label, b.config.eta_c, b.score) end
`
}

// mustRunCLI runs fedlab and returns its standard output.
func mustRunCLI(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(args...)
	if code != 0 {
		t.Fatalf("fedlab %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// TestSuccessiveHalving: with eta = 1 the sweep is the full grid, run for
// run and record for record; a rung's survivors are the full grid's best
// ⌈n/eta⌉ scored on its records truncated at the rung's rounds (and those
// truncated records are the rung's records bit for bit); the outcome does
// not depend on --workers; shards merged and resumed give the single run's
// selection.
func TestSuccessiveHalving(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full")
	fullOut := mustRunCLI(t, "run", halvingScript(t, t.TempDir(), ""), "--out", full, "--quiet")

	// eta = 1: the same runs (keys) and records as the full grid
	one := filepath.Join(dir, "one")
	oneOut := mustRunCLI(t, "run", halvingScript(t, t.TempDir(), ", halving = { eta = 1 }"), "--out", one, "--quiet")
	if oneOut != fullOut {
		t.Errorf("eta = 1 selects otherwise:\n%s\nfull grid:\n%s", oneOut, fullOut)
	}
	lf, err := rundir.Load(full)
	if err != nil {
		t.Fatal(err)
	}
	l1, err := rundir.Load(one)
	if err != nil {
		t.Fatal(err)
	}
	if len(l1.Calls) != 1 || len(l1.Calls[0]) != len(lf.Calls[0]) {
		t.Fatalf("eta = 1: %d calls", len(l1.Calls))
	}
	for i, r := range lf.Calls[0] {
		if r.Key != l1.Calls[0][i].Key || !reflect.DeepEqual(r.Result.Records, l1.Calls[0][i].Result.Records) {
			t.Fatalf("eta = 1: run %d differs from the full grid's", i)
		}
	}

	// eta = 3 from 10 rounds: rungs of 10, 30 and 90 rounds
	whole := halvingRun(t)
	h, hOut := whole.dir, whole.stdout
	script := halvingScript(t, t.TempDir(), halvingThirds)
	lh, err := rundir.Load(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(lh.Calls) != 3 || !strings.Contains(lh.Manifest.Calls[1].Name, "rung 2 of 3 (30 rounds)") {
		t.Fatalf("want 3 rung calls, got %d (%v)", len(lh.Calls), lh.Manifest.Calls)
	}
	if r := lh.Manifest.Calls[1].Rung; r == nil || *r != (experiment.Rung{Index: 2, Of: 3, Rounds: 30}) {
		t.Errorf("the manifest's second call records rung %+v, want 2 of 3, 30 rounds", r)
	}
	// records.csv has a rung column after call and run (the full grid's has none)
	rungOf := map[string]string{}
	for i, row := range readCSV(t, filepath.Join(h, rundir.RecordsFile)) {
		if i == 0 {
			if !slices.Equal(row[:4], []string{"call", "run", "rung", "label"}) {
				t.Fatalf("halving records.csv header %v", row)
			}
			continue
		}
		rungOf[row[0]] = row[2]
	}
	if fmt.Sprint(rungOf) != "map[1:1/3 2:2/3 3:3/3]" {
		t.Errorf("rung column per call: %v", rungOf)
	}
	if header := readCSV(t, filepath.Join(full, rundir.RecordsFile))[0]; slices.Contains(header, "rung") {
		t.Errorf("a full grid's records.csv has a rung column: %v", header)
	}
	rules := lf.Manifest.Calls[0].Select
	truncated := func(runs []experiment.Run, rounds int) []experiment.Run {
		out := make([]experiment.Run, len(runs))
		for i, r := range runs {
			res := *r.Result
			res.Records = slices.DeleteFunc(slices.Clone(res.Records), func(rec core.Record) bool { return rec.Round > rounds })
			if res.Status == "diverged" && res.DivergedAt > rounds {
				res.Status = "done"
			}
			out[i] = r
			out[i].Result = &res
		}
		return out
	}
	for k, rounds := range []int{10, 30} {
		// the rung's records are the full grid's first rounds
		rung := lh.Calls[k]
		for _, r := range rung {
			for _, fr := range lf.Calls[0] {
				if fr.Label == r.Label && fr.Seed == r.Seed && fr.Config.String() == r.Config.String() && r.Result.Status == "done" &&
					!reflect.DeepEqual(truncated([]experiment.Run{fr}, rounds)[0].Result.Records, r.Result.Records) {
					t.Errorf("rung %d: %s %s seed %d: records differ from the full grid's first %d rounds", k+1, r.Label, r.Config, r.Seed, rounds)
				}
			}
		}
		// the survivors are the rung's best ⌈n/3⌉
		for _, sel := range experiment.Select(truncated(lf.Calls[0], rounds), rules) {
			var rungSel experiment.Selection
			for _, s := range experiment.Select(rung, rules) {
				if s.Label == sel.Label {
					rungSel = s
				}
			}
			var want []string
			keep := experiment.Halving{Eta: 3}.Keep(len(rungSel.Candidates)) // ⌈n/3⌉
			for _, i := range rungSel.Ranked(rules)[:min(keep, len(rungSel.Ranked(rules)))] {
				want = append(want, rungSel.Candidates[i].Config.String())
			}
			var got []string
			for _, r := range lh.Calls[k+1] {
				if r.Label == sel.Label && r.Seed == 1 {
					got = append(got, r.Config.String())
				}
			}
			slices.Sort(want)
			slices.Sort(got)
			if fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("%s after rung %d: survivors %v, want the best ⌈n/3⌉ %v", sel.Label, k+1, got, want)
			}
			// the full grid truncated ranks the rung's configurations the same way
			var fromFull []string
			for _, i := range sel.Ranked(rules) {
				c := sel.Candidates[i].Config.String()
				if slices.ContainsFunc(rungSel.Candidates, func(rc experiment.Candidate) bool { return rc.Config.String() == c }) {
					fromFull = append(fromFull, c)
				}
			}
			var fromRung []string
			for _, i := range rungSel.Ranked(rules) {
				fromRung = append(fromRung, rungSel.Candidates[i].Config.String())
			}
			if fmt.Sprint(fromFull) != fmt.Sprint(fromRung) {
				t.Errorf("%s rung %d: ranking %v, the full grid truncated ranks %v", sel.Label, k+1, fromRung, fromFull)
			}
		}
	}

	// workers and shards do not change the outcome; --keep-checkpoints
	// keeps the completed sweep's checkpoints (TestACompletedHalvingSweepLeavesNoCheckpointsFolder
	// checks that they are removed without it)
	h2 := filepath.Join(dir, "halving2")
	if out := mustRunCLI(t, "run", script, "--out", h2, "--quiet", "--workers", "2", "--keep-checkpoints"); out != hOut {
		t.Errorf("--workers 2 selects otherwise:\n%s\n--workers 1:\n%s", out, hOut)
	}
	if entries, err := os.ReadDir(filepath.Join(h2, "checkpoints")); err != nil || len(entries) == 0 {
		t.Errorf("--keep-checkpoints: %s/checkpoints holds %d files (%v)", h2, len(entries), err)
	}
	s0, s1, merged := filepath.Join(dir, "s0"), filepath.Join(dir, "s1"), filepath.Join(dir, "merged")
	for _, shard := range []struct{ out, spec string }{{s0, "0/2"}, {s1, "1/2"}} {
		runCLI("run", script, "--out", shard.out, "--quiet", "--shard", shard.spec)
	}
	mustRunCLI(t, "merge", s0, s1, "--out", merged)
	if out := mustRunCLI(t, "run", script, "--out", merged, "--quiet"); out != hOut {
		t.Errorf("shards merged and resumed select otherwise:\n%s\nsingle run:\n%s", out, hOut)
	}
	single, _ := os.ReadFile(filepath.Join(h, rundir.RecordsFile))
	if m, _ := os.ReadFile(filepath.Join(merged, rundir.RecordsFile)); string(m) != string(single) {
		t.Errorf("records.csv of the shards merged and resumed differs from the single run's")
	}
}

// TestExampleScriptsRun runs the shipped example scripts that take
// seconds (docs/scripts.md lists them), so that a change that refuses what a
// script asks (a table row for a round that was never evaluated, as
// multistage_example.lua's row 50 under eval_every = 20 was) cannot land
// unnoticed; the reproduction scripts take minutes and run by hand.
func TestExampleScriptsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scripts (-short)")
	}
	for _, name := range []string{"quickstart", "homotopy_example", "multistage_example"} {
		out := filepath.Join(t.TempDir(), name)
		if code, _, stderr := runCLI("run", filepath.Join("..", "scripts", name+".lua"), "--out", out, "--quiet"); code != 0 {
			t.Errorf("scripts/%s.lua: exit %d\n%s", name, code, stderr)
		}
	}
}

// readCSV reads every row of the CSV file at path.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
