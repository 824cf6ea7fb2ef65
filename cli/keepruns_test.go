package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// roundsScript is one FedMid run whose rounds --set rounds gives (20 by
// default), evaluated every 10 rounds.
const roundsScript = `local data = fedlab.data.lasso{ variant = "custom", dim = 10, support = 3, clients = 4, samples = 10, seed = 1 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{ half = false }, reg = fedlab.reg.l1{ lambda = 0.05 } }
fedlab.compare{ problem = problem, rounds = fedlab.args.rounds or 20, clients_per_round = 2, batch = 5, epochs = 1,
  eval_every = EVAL, seeds = { 1 }, metrics = { "objective" }, algorithms = { fedlab.algo.fedmid{ eta_c = 0.01 } } }
`

// writeRoundsScript writes roundsScript as dir/s.lua, evaluated every
// eval rounds.
func writeRoundsScript(t *testing.T, dir, eval string) string {
	t.Helper()
	path := filepath.Join(dir, "s.lua")
	if err := os.WriteFile(path, []byte(strings.Replace(roundsScript, "EVAL", eval, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// resultFiles are the names of dir's result files, sorted.
func resultFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "results"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// mustCLI runs the command line, which must exit with code, and returns
// its stdout and stderr.
func mustCLI(t *testing.T, code int, args ...string) (string, string) {
	t.Helper()
	got, stdout, stderr := runCLI(args...)
	if got != code {
		t.Fatalf("fedlab %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, code, stdout, stderr)
	}
	return stdout, stderr
}

func wantIn(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// TestAnotherInvocationKeepsTheEarlierRuns types the sequence of the
// issue: a run with --set rounds=40, then the same script without --set
// into the same directory. The 40-round run stays stored (its result file
// unchanged), the manifest keeps both invocations, the second says so,
// table shows the last invocation's runs and names the other, and
// --invocation shows it; the first invocation again reuses its run.
func TestAnotherInvocationKeepsTheEarlierRuns(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeRoundsScript(t, dir, "10")
	mustCLI(t, 0, "run", "s.lua", "--out", "d", "--set", "rounds=40", "--quiet")
	first := resultFiles(t, "d")
	if len(first) != 1 {
		t.Fatalf("results after the first run: %v", first)
	}
	before := read(t, "d", filepath.Join("results", first[0]))

	_, stderr := mustCLI(t, 0, "run", "s.lua", "--out", "d", "--quiet")
	wantIn(t, "the second run's stderr", stderr,
		"fedlab: d holds the runs of invocation 1 (--set rounds=40: 1 run), kept: this invocation (no --set) stores its runs beside them as invocation 2; fedlab table d --invocation N shows an invocation's runs")
	if got := resultFiles(t, "d"); len(got) != 2 || !slices.Contains(got, first[0]) {
		t.Fatalf("results after the second run: %v, want the first run's %s and one more", got, first[0])
	}
	if read(t, "d", filepath.Join("results", first[0])) != before {
		t.Errorf("the 40-round result file changed")
	}
	m := fullManifest(t, "d")
	if len(m.Earlier) != 1 || m.Earlier[0].Invocation.Set["rounds"] != "40" || m.Earlier[0].Status != "complete" || len(m.Runs) != 2 {
		t.Fatalf("manifest: earlier %+v, %d runs; want the --set rounds=40 invocation and 2 runs", m.Earlier, len(m.Runs))
	}
	if len(m.Invocation.Set) != 0 || m.Invocation.Program != "fedlab" || m.Earlier[0].Invocation.Program != "fedlab" {
		t.Errorf("manifest invocation %+v, earlier %+v", m.Invocation, m.Earlier[0].Invocation)
	}

	stdout, stderr := mustCLI(t, 0, "table", "d")
	wantIn(t, "table's stderr", stderr, "fedlab: note: d also stores the runs of 1 other invocation:\n  1: fedlab run s.lua --out d --set rounds=40 --quiet (1 run, complete)\nshow them with --invocation N (this is invocation 2 of 2)")
	if got := tableRounds(stdout); !slices.Equal(got, []string{"0", "10", "20"}) {
		t.Errorf("table d shows rounds %v, want the last invocation's 0 10 20:\n%s", got, stdout)
	}
	stdout, stderr = mustCLI(t, 0, "table", "d", "--invocation", "1")
	if got := tableRounds(stdout); !slices.Equal(got, []string{"0", "10", "20", "30", "40"}) {
		t.Errorf("table d --invocation 1 shows rounds %v, want 0 to 40:\n%s", got, stdout)
	}
	wantIn(t, "table --invocation 1's stderr", stderr, "  2: fedlab run s.lua --out d --quiet (1 run, complete)", "(this is invocation 1 of 2)")
	_, stderr = mustCLI(t, 2, "table", "d", "--invocation", "3")
	wantIn(t, "table --invocation 3's stderr", stderr, "--invocation 3: the directory holds the runs of 2 invocations (1 to 2; 2, the last, is the default)")

	_, stderr = mustCLI(t, 0, "report", "d", "--out", "r.html")
	wantIn(t, "report's stderr", stderr, "fedlab: note: d also stores the runs of 1 other invocation:\n  1: fedlab run s.lua --out d --set rounds=40 --quiet (1 run, complete)")
	wantIn(t, "the report", read(t, dir, "r.html"), "d also stores the runs of 1 other invocation:   1: fedlab run s.lua --out d --set rounds=40 --quiet (1 run, complete) show them with --invocation N")
	_, stderr = mustCLI(t, 0, "run", "s.lua", "--out", "d", "--set", "rounds=40")
	wantIn(t, "the first invocation again", stderr, "1 runs (1 reused)")
	if got := resultFiles(t, "d"); len(got) != 2 {
		t.Errorf("results after the first invocation again: %v, want both runs", got)
	}
	m = fullManifest(t, "d")
	if len(m.Earlier) != 1 || len(m.Earlier[0].Invocation.Set) != 0 || m.Invocation.Set["rounds"] != "40" {
		t.Errorf("manifest after the first invocation again: earlier %+v, last %+v", m.Earlier, m.Invocation)
	}
}

// TestWhatDeletesRunsSaysSo: --update after an edited script deletes the
// runs of this invocation's earlier session that the script no longer
// plans, and --fresh deletes every stored run; both say how many, of
// which invocation, on stderr, also with --quiet. Another invocation's
// runs survive --update.
func TestWhatDeletesRunsSaysSo(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeRoundsScript(t, dir, "10")
	mustCLI(t, 0, "run", "s.lua", "--out", "d", "--set", "rounds=40", "--quiet")
	mustCLI(t, 0, "run", "s.lua", "--out", "d", "--quiet")
	writeRoundsScript(t, dir, "5") // another evaluation: another run key
	_, stderr := mustCLI(t, 1, "run", "s.lua", "--out", "d", "--quiet")
	wantIn(t, "the edited script without --update", stderr, "holds the runs of another version of s.lua", "--fresh", "--update")
	_, stderr = mustCLI(t, 0, "run", "s.lua", "--out", "d", "--quiet", "--update")
	wantIn(t, "--update's stderr", stderr, "fedlab: d: deleting the 1 stored run of the earlier session of this invocation (fedlab run s.lua --out d --quiet) that the script no longer plans")
	if got := resultFiles(t, "d"); len(got) != 2 {
		t.Errorf("results after --update: %v, want the --set rounds=40 run and the new one", got)
	}
	m := fullManifest(t, "d")
	if len(m.Earlier) != 1 || m.Earlier[0].Invocation.Set["rounds"] != "40" {
		t.Errorf("the --set rounds=40 invocation is not kept after --update: %+v", m.Earlier)
	}
	_, stderr = mustCLI(t, 0, "run", "s.lua", "--out", "d", "--quiet", "--fresh")
	wantIn(t, "--fresh's stderr", stderr, "fedlab: --fresh: deleting the 2 completed runs stored in d: 1 of invocation 1 (fedlab run s.lua --out d --set rounds=40 --quiet); 1 of invocation 2 (fedlab run s.lua --out d --quiet --update)")
	if got := resultFiles(t, "d"); len(got) != 1 {
		t.Errorf("results after --fresh: %v, want this session's run only", got)
	}
	if m := fullManifest(t, "d"); len(m.Earlier) != 0 {
		t.Errorf("after --fresh the manifest keeps earlier invocations: %+v", m.Earlier)
	}
}

// snapshot is every file under dir with its bytes (and mode).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		content := info.Mode().String()
		if !d.IsDir() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			content += " " + string(b)
		}
		files[path] = content
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestMergeIntoAnInputIsRefused: merge A --out A, merge A B --out A and a
// merge into a run directory already there exit with status 2, name the
// choice (a new --out), and leave the directory byte for byte unchanged.
func TestMergeIntoAnInputIsRefused(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeRoundsScript(t, dir, "10")
	mustCLI(t, 0, "run", "s.lua", "--out", "A", "--set", "rounds=40", "--quiet")
	mustCLI(t, 0, "run", "s.lua", "--out", "B", "--set", "rounds=40", "--quiet")
	mustCLI(t, 0, "merge", "A", "B", "--out", "M")
	for _, c := range []struct {
		args []string
		out  string
		want string
	}{
		{[]string{"merge", "A", "--out", "A"}, "A", "fedlab: --out A is one of the directories to merge: merge writes a new directory (its manifest would replace the invocations, status and timing of A); nothing was changed; give --out a new directory, e.g. A-merged\n"},
		{[]string{"merge", "A", "B", "--out", "./A/"}, "A", "fedlab: --out ./A/ is one of the directories to merge:"},
		{[]string{"merge", "A", "--out", "M"}, "M", "fedlab: --out M is a run directory already: merge writes a new directory"},
	} {
		before := snapshot(t, c.out)
		_, stderr := mustCLI(t, 2, c.args...)
		wantIn(t, strings.Join(c.args, " "), stderr, c.want)
		if after := snapshot(t, c.out); !maps.Equal(before, after) {
			t.Errorf("fedlab %s changed %s", strings.Join(c.args, " "), c.out)
		}
	}
	if m := fullManifest(t, "A"); m.Status != "complete" || m.Invocation == nil || m.Finished == nil {
		t.Errorf("A's manifest after the refused merges: %s, %+v", m.Status, m.Invocation)
	}
}

// TestACompletedHalvingSweepLeavesNoCheckpointsFolder: the rung states a
// halving sweep keeps while it runs are removed when it completes, and so
// is the checkpoints/ folder they were in; with --keep-checkpoints they
// stay.
func TestACompletedHalvingSweepLeavesNoCheckpointsFolder(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	script := halvingScript(t, dir, halvingThirds)
	completed := filepath.Join(halvingRun(t).dir, "checkpoints")
	if _, err := os.Stat(completed); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(completed)
		t.Errorf("%s is left after the sweep completed (%v, %d entries)", completed, err, len(entries))
	}
	if testing.Short() {
		t.Skip("-short: TestSuccessiveHalving runs this sweep with --keep-checkpoints (its --workers 2 run) and checks that its checkpoints are kept")
	}
	mustCLI(t, 0, "run", script, "--out", "k", "--quiet", "--keep-checkpoints")
	if entries, err := os.ReadDir(filepath.Join("k", "checkpoints")); err != nil || len(entries) == 0 {
		t.Errorf("--keep-checkpoints: k/checkpoints holds %d files (%v)", len(entries), err)
	}
}

// recordSize sets, in dir's manifest, the recorded size of every
// checkpoint (what "checkpoints") or of every run's result file (what
// "runs", field result_size) to size.
func recordSize(t *testing.T, dir, what string, size int64) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(read(t, dir, "manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	field := map[string]string{"checkpoints": "size", "runs": "result_size"}[what]
	for _, e := range m[what].(map[string]any) {
		e.(map[string]any)[field] = size
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAStoredFileLargerThanTheCeilingIsNotRead: a manifest that records a
// checkpoint, or a result, of 1 TiB, more than the ceiling (--max-memory
// 256MB). The checkpoint is not read and not removed: its run fails (exit
// status 3) with a message that says so, and a session where it fits
// resumes from it, with an uninterrupted run's records; once its file is
// deleted, the run starts again from round 0. The result is not read
// either: the run is computed again, with the same records.
func TestAStoredFileLargerThanTheCeilingIsNotRead(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("long.lua", []byte(longScript()), 0o644); err != nil {
		t.Fatal(err)
	}
	whole := wholeLongRun(t)
	interruptAfterARound(t, "out", append([]string{"run", "long.lua", "--out", "out", "--quiet"}, shortOneWorker()...)...)
	files, _ := filepath.Glob(filepath.Join("out", "checkpoints", "*.ckpt"))
	if len(files) != 1 {
		t.Fatalf("checkpoints after the interruption: %v", files)
	}
	info, err := os.Stat(files[0])
	if err != nil {
		t.Fatal(err)
	}
	recordSize(t, "out", "checkpoints", 1<<40)
	_, stderr := mustCLI(t, exitRunsFailed, "run", "long.lua", "--out", "out", "--max-memory", "256MB", "--quiet")
	notice := regexp.MustCompile(`out/checkpoints/[0-9a-f]{16}\.([0-9]+)\.ckpt \(its size as the manifest records it\) needs about 1.0 TiB of memory, more than 256.0 MiB \(--max-memory\); not read; kept: a session with a larger --max-memory resumes fedmid \(seed 1\) from it, after round ([0-9]+) of ` + itoa(longRounds()) + ` \(delete out/checkpoints/[0-9a-f]{16}\.([0-9]+)\.ckpt to run it again from round 0\)`)
	m := notice.FindStringSubmatch(stderr)
	if m == nil || m[1] != m[2] || m[2] != m[3] || !strings.Contains(stderr, "1 run failed") {
		t.Fatalf("a checkpoint recorded as 1 TiB:\n%s", stderr)
	}
	if after, err := os.Stat(files[0]); err != nil || after.Size() != info.Size() {
		t.Fatalf("the checkpoint not read was not kept: %v", err)
	}
	if !testing.Short() { // deleting the checkpoint instead: the run starts again from round 0
		if err := os.CopyFS("deleted", os.DirFS("out")); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join("deleted", "checkpoints", filepath.Base(files[0]))); err != nil {
			t.Fatal(err)
		}
		_, stderr = mustCLI(t, 0, "run", "long.lua", "--out", "deleted", "--workers", "1")
		wantIn(t, "the checkpoint deleted", stderr, ".ckpt: missing (the manifest records it); fedmid (seed 1) starts again from round 0")
		if read(t, "deleted", "records.csv") != read(t, whole, "records.csv") {
			t.Errorf("records after starting again differ from the uninterrupted run's")
		}
	}
	recordSize(t, "out", "checkpoints", info.Size()) // where it fits
	_, stderr = mustCLI(t, 0, "run", "long.lua", "--out", "out", "--workers", "1")
	wantIn(t, "the session where it fits", stderr, ": resuming fedmid (seed 1) after round "+m[2]+" of "+itoa(longRounds()))
	if read(t, "out", "records.csv") != read(t, whole, "records.csv") {
		t.Errorf("records after resuming differ from the uninterrupted run's")
	}
	writeRoundsScript(t, dir, "5")
	mustCLI(t, 0, "run", "s.lua", "--out", "small", "--quiet")
	records := read(t, "small", "records.csv")
	recordSize(t, "small", "runs", 1<<40)
	_, stderr = mustCLI(t, 0, "run", "s.lua", "--out", "small", "--max-memory", "256MB", "--quiet")
	notice = regexp.MustCompile(`fedlab: small/results/[0-9a-f]{16}\.json \(its size as the manifest records it\) needs about 1.0 TiB of memory, more than 256.0 MiB \(--max-memory\); not read; running it again\n`)
	if !notice.MatchString(stderr) {
		t.Errorf("a result recorded as 1 TiB:\n%s", stderr)
	}
	if read(t, "small", "records.csv") != records {
		t.Errorf("records after recomputing the result differ")
	}
}

// TestAScriptRunEarlierInTheDirectoryNeedsNoUpdate: s.lua, then another
// script t.lua with --update (stored beside it), then s.lua again without
// --update: s.lua's runs are in the directory, so it resumes them (all
// reused) instead of being refused as another script; nothing is deleted.
func TestAScriptRunEarlierInTheDirectoryNeedsNoUpdate(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeRoundsScript(t, dir, "10")
	if err := os.WriteFile("t.lua", []byte(strings.Replace(strings.Replace(roundsScript, "EVAL", "5", 1), "lambda = 0.05", "lambda = 0.07", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, 0, "run", "s.lua", "--out", "d", "--quiet")
	_, stderr := mustCLI(t, 1, "run", "t.lua", "--out", "d", "--quiet")
	wantIn(t, "t.lua without --update", stderr, "d holds the runs of another script, s.lua")
	mustCLI(t, 0, "run", "t.lua", "--out", "d", "--quiet", "--update")
	_, stderr = mustCLI(t, 0, "run", "s.lua", "--out", "d")
	wantIn(t, "s.lua again", stderr, "1 runs (1 reused) in d")
	if got := resultFiles(t, "d"); len(got) != 2 {
		t.Errorf("results: %v, want s.lua's and t.lua's", got)
	}
	if m := fullManifest(t, "d"); len(m.Earlier) != 1 || filepath.Base(m.Earlier[0].Script.Path) != "t.lua" || filepath.Base(m.Script.Path) != "s.lua" {
		t.Errorf("manifest: last %s, earlier %+v", m.Script.Path, m.Earlier)
	}
}

func TestMergeTakesTheInvocationItIsGiven(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeRoundsScript(t, dir, "10")
	mustCLI(t, 0, "run", "s.lua", "--out", "d", "--set", "rounds=40", "--quiet")
	mustCLI(t, 0, "run", "s.lua", "--out", "d", "--quiet")

	_, stderr := mustCLI(t, 0, "merge", "d", "--out", "m")
	wantIn(t, "merge's stderr", stderr, "fedlab: notice: some directories store the runs of several invocations (other --set values): d (2); "+
		"merge took the last invocation of each and left the runs of the others out (they stay in the inputs); "+
		"merge another into a new directory with --invocation N (1 to 2, in the order they were run)\n")
	stdout, _ := mustCLI(t, 0, "table", "m")
	if got := tableRounds(stdout); !slices.Equal(got, []string{"0", "10", "20"}) {
		t.Errorf("the merge of the last invocation shows rounds %v, want 0 10 20:\n%s", got, stdout)
	}
	if got := resultFiles(t, "m"); len(got) != 1 {
		t.Errorf("the merge of the last invocation holds %v, want its one run", got)
	}

	_, stderr = mustCLI(t, 0, "merge", "d", "--out", "m1", "--invocation", "1")
	wantIn(t, "merge --invocation 1's stderr", stderr, "merge took invocation 1 of each")
	stdout, _ = mustCLI(t, 0, "table", "m1")
	if got := tableRounds(stdout); !slices.Equal(got, []string{"0", "10", "20", "30", "40"}) {
		t.Errorf("the merge of invocation 1 shows rounds %v, want 0 to 40:\n%s", got, stdout)
	}
	if read(t, "m1", filepath.Join("results", resultFiles(t, "m1")[0])) != read(t, "d", filepath.Join("results", resultFiles(t, "m1")[0])) {
		t.Errorf("the merged result of invocation 1 differs from the input's")
	}

	_, stderr = mustCLI(t, 2, "merge", "d", "--out", "m3", "--invocation", "3")
	wantIn(t, "merge --invocation 3's stderr", stderr, "d: --invocation 3: the directory holds the runs of 2 invocations (1 to 2; 2, the last, is the default)")
	if _, err := os.Stat("m3"); err == nil {
		t.Errorf("a refused merge created its output m3")
	}
}

// tableRounds are the rounds of the rows of roundsScript's table, in
// order.
func tableRounds(table string) []string {
	var r []string
	for _, m := range regexp.MustCompile(`(?m)^(?:fedmid)?\s+(\d+)\s+[0-9.]+$`).FindAllStringSubmatch(table, -1) {
		r = append(r, m[1])
	}
	return r
}
