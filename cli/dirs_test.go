package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMain lets a test run the command line in a child process (to kill
// it): with FEDLAB_TEST_ARGS set, the test binary is fedlab.
func TestMain(m *testing.M) {
	if os.Getenv("FEDLAB_TEST_MAIN") == "1" { // the test binary as fedlab itself: Main with os.Args
		Main()
	}
	if args := os.Getenv("FEDLAB_TEST_ARGS"); args != "" {
		var a []string
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			panic(err)
		}
		os.Exit(Run(a, os.Stdout, os.Stderr))
	}
	code := m.Run()
	if wholeRuns.dir != "" {
		os.RemoveAll(wholeRuns.dir)
	}
	os.Exit(code)
}

// sweepScript is a small LASSO sweep: 2 algorithms × 3 step sizes × 2
// seeds, the largest step size diverging, then a table.
const sweepScript = `local data = fedlab.data.lasso{ variant = "custom", dim = 20, support = 4, clients = 6, samples = 20, seed = 1 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{ half = false }, reg = fedlab.reg.l1{ lambda = 0.05 } }
local sw = fedlab.sweep{ problem = problem, rounds = ROUNDS, clients_per_round = 3, batch = 5, epochs = 1,
  eval_every = 5, seeds = { 1, 2 }, metrics = { "f1", "objective" },
  algorithms = { fedlab.algo.fedmid{}, fedlab.algo.feddualavg{} },
  grid = { eta_c = { 0.001, 0.01, 1e3 } },
  select = { metric = "objective", mode = "min", last = 10 } }
fedlab.sweep_table(sw)
fedlab.csv(sw.runs, "sweep.csv")
`

// writeScript writes the sweep script with the given number of rounds.
func writeScript(t *testing.T, dir string, rounds int) string {
	t.Helper()
	path := filepath.Join(dir, "sweep.lua")
	src := strings.Replace(sweepScript, "ROUNDS", itoa(rounds), 1)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// wholeSweep is uninterrupted's run of the sweep of interruptedRounds
// rounds (as writeScript writes it).
func wholeSweep(t *testing.T) string {
	t.Helper()
	return uninterrupted(t, "sweep.lua", strings.Replace(sweepScript, "ROUNDS", itoa(interruptedRounds()), 1))
}

// interruptedRounds is the rounds of each run of the sweep that the kill
// and signal tests interrupt after its second result: long enough that
// the other ten runs are still to come when the signal lands (about 0.2 s
// each at 10,000 rounds, 50 ms at the 2,500 of -short).
func interruptedRounds() int {
	if testing.Short() {
		return 2500
	}
	return 10000
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestRunResumesAndRefusesAChangedScript(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, 20)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI("run", script, "--out", out, "--jobs", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "12 runs (12 ran, 4 diverged) in "+out) || !strings.Contains(stdout, "best fedmid") {
		t.Errorf("first run: stderr %q\nstdout %s", stderr, stdout)
	}
	code, again, stderr := runCLI("run", script, "--out", out)
	if code != 0 || !strings.Contains(stderr, "12 runs (12 reused, 4 diverged)") || again != stdout {
		t.Errorf("resume: exit %d, stderr %q; same output: %v", code, stderr, again == stdout)
	}
	writeScript(t, dir, 25)
	code, _, stderr = runCLI("run", script, "--out", out)
	if code != 1 || !strings.Contains(stderr, "another version of sweep.lua") || !strings.Contains(stderr, "--fresh") {
		t.Errorf("changed script: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI("run", script, "--out", out, "--update", "--quiet")
	if deleted := "fedlab: " + out + ": deleting the 12 stored runs of the earlier session of this invocation (fedlab run " + script + " --out " + out + ") that the script no longer plans\n"; code != 0 || stderr != deleted {
		t.Errorf("--update: exit %d, stderr %q, want %q", code, stderr, deleted)
	}
	if results, _ := os.ReadDir(filepath.Join(out, "results")); len(results) != 12 {
		t.Errorf("%d result files after --update, want 12", len(results))
	}
	code, _, stderr = runCLI("run", script, "--out", out, "--fresh")
	if code != 0 || !strings.Contains(stderr, "12 runs (12 ran, 4 diverged)") {
		t.Errorf("--fresh: exit %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{{"run", script, "--fresh", "--update"}, {"run", script, "--shard", "3/3"}, {"run", script, "--jobs", "-1"}} {
		if code, _, _ := runCLI(args...); code != 2 {
			t.Errorf("fedlab %v: exit %d, want 2", args, code)
		}
	}
}

func TestShardsMergedEqualTheSingleRun(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, 20)
	whole := uninterruptedRun(t, "sweep.lua", strings.Replace(sweepScript, "ROUNDS", "20", 1))
	single, want := whole.dir, whole.stdout
	var shards []string
	for i := range 3 {
		s := filepath.Join(dir, "shard"+itoa(i))
		shards = append(shards, s)
		code, stdout, stderr := runCLI("run", script, "--out", s, "--shard", itoa(i)+"/3", "--jobs", "1")
		if code != 0 || stdout != "" || !strings.Contains(stderr, "shard "+itoa(i)+"/3 stopped at the call at sweep.lua:3") {
			t.Fatalf("shard %d: exit %d, stdout %q, stderr %q", i, code, stdout, stderr)
		}
	}
	merged := filepath.Join(dir, "merged")
	code, tables, stderr := runCLI(append(append([]string{"merge"}, shards...), "--out", merged)...)
	if code != 0 || !strings.Contains(stderr, "merged 3 directories into "+merged+": 12 runs, 0 pending") {
		t.Fatalf("merge: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(tables, "call 1: fedlab.sweep at sweep.lua:3") || !strings.Contains(want, tables[strings.Index(tables, "fedmid:"):]) {
		t.Errorf("merge tables:\n%s\nwant the script's:\n%s", tables, want)
	}
	sameRecords(t, single, merged)
	// The script finishes in the merged directory without running anything.
	code, got, stderr := runCLI("run", script, "--out", merged)
	if code != 0 || got != want || !strings.Contains(stderr, "12 runs (12 reused, 4 diverged)") {
		t.Errorf("finishing the merge: exit %d, stderr %q, output equal: %v", code, stderr, got == want)
	}
	sameRecords(t, single, merged)
	if a, b := read(t, single, "sweep.csv"), read(t, merged, "sweep.csv"); a != b {
		t.Errorf("sweep.csv differs")
	}
	code, stdout, _ := runCLI("plot", merged, "--metric", "objective", "--log")
	if code != 0 || !strings.Contains(stdout, filepath.Join(merged, "plots", "call1_objective.png")) {
		t.Errorf("plot: exit %d, %q", code, stdout)
	}
}

func TestAKilledRunLeavesNothingThatPassesForComplete(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a sweep mid-write (-short: TestAKilledRunLosesOnlyTheRoundsSinceItsLastCheckpoint kills a session and resumes it)")
	}
	dir := t.TempDir()
	script := writeScript(t, dir, interruptedRounds())
	out := filepath.Join(dir, "out")
	killAfterTwoRuns(t, script, out)

	m := manifest(t, out)
	if m.Status != "running" {
		t.Errorf("the killed run's manifest says %q", m.Status)
	}
	complete := map[string]bool{}
	results, _ := os.ReadDir(filepath.Join(out, "results"))
	for _, r := range results {
		if strings.HasPrefix(r.Name(), ".") {
			continue // a temporary file: not a result
		}
		var res struct{ Key, Status string }
		if err := json.Unmarshal([]byte(read(t, out, filepath.Join("results", r.Name()))), &res); err != nil || res.Key+".json" != r.Name() {
			t.Errorf("result file %s does not pass for complete: %+v %v", r.Name(), res, err)
		}
		complete[res.Key] = true
	}
	for key, e := range m.Runs {
		if e.Status != "pending" && !complete[key] {
			t.Errorf("the manifest says run %s is %s, but it has no result file", key, e.Status)
		}
	}
	if len(complete) == 0 || len(complete) == 12 {
		t.Errorf("killed with %d of 12 runs complete: the kill did not interrupt the sweep", len(complete))
	}
	// Resuming completes the directory.
	code, _, stderr := runCLI("run", script, "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("resume: exit %d, %s", code, stderr)
	}
	if m := manifest(t, out); m.Status != "complete" || len(m.Runs) != 12 {
		t.Errorf("after the resume: %s with %d runs", m.Status, len(m.Runs))
	}
	entries, _ := os.ReadDir(filepath.Join(out, "results"))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left after the resume", e.Name())
		}
	}
	sameRecords(t, wholeSweep(t), out)
}

type manifestView struct {
	Status string
	Runs   map[string]struct{ Status, Result string }
}

func manifest(t *testing.T, dir string) manifestView {
	t.Helper()
	var m manifestView
	if err := json.Unmarshal([]byte(read(t, dir, "manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameRecords checks that two run directories have byte-identical
// records.csv and model files.
func sameRecords(t *testing.T, a, b string) {
	t.Helper()
	if read(t, a, "records.csv") != read(t, b, "records.csv") {
		t.Errorf("records.csv of %s and %s differ", a, b)
	}
	ma, _ := os.ReadDir(filepath.Join(a, "models"))
	mb, _ := os.ReadDir(filepath.Join(b, "models"))
	names := func(es []os.DirEntry) []string {
		var n []string
		for _, e := range es {
			n = append(n, e.Name())
		}
		return n
	}
	if !slices.Equal(names(ma), names(mb)) || len(ma) != 12 {
		t.Fatalf("models: %v vs %v", names(ma), names(mb))
	}
	for _, e := range ma {
		p := filepath.Join("models", e.Name())
		if read(t, a, p) != read(t, b, p) {
			t.Errorf("%s differs", p)
		}
	}
}
