package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/rundir"
)

// fullManifest reads dir's manifest as rundir does.
func fullManifest(t *testing.T, dir string) *rundir.Manifest {
	t.Helper()
	m, ok, err := rundir.ReadManifest(dir)
	if !ok || err != nil {
		t.Fatalf("%s: manifest %v", dir, err)
	}
	return m
}

// longScriptTemplate is one run of ROUNDS rounds (100,000 take about
// half a second on one worker); the script argument stages makes it a
// two-stage pipeline (ROUNDS, then 5,000 more); checkpoint_rounds sets the
// run setting checkpoint_rounds.
const longScriptTemplate = `local data = fedlab.data.lasso{ variant = "custom", dim = 20, support = 4, clients = 6, samples = 20, seed = 1 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{ half = false }, reg = fedlab.reg.l1{ lambda = 0.05 } }
local settings = { problem = problem, clients_per_round = 3, batch = 5, epochs = 1, eval_every = 5000, seeds = { 1 }, metrics = { "objective" } }
if fedlab.args.checkpoint_rounds then settings.checkpoint_rounds = tonumber(fedlab.args.checkpoint_rounds) end
if fedlab.args.stages then
  settings[1] = { algo = fedlab.algo.fedmid{ eta_c = 0.01 }, rounds = ROUNDS }
  settings[2] = { rounds = 5000 }
  fedlab.stages(settings)
else
  settings.rounds, settings.algorithms = ROUNDS, { fedlab.algo.fedmid{ eta_c = 0.01 } }
  fedlab.compare(settings)
end
`

// longRounds is the rounds of longScript's run: 100,000, or 50,000 under
// -short (about 0.25 s on one worker), still several times what the
// interrupting tests let run before they stop it.
func longRounds() int {
	if testing.Short() {
		return 50000
	}
	return 100000
}

// longScript is longScriptTemplate with longRounds rounds.
func longScript() string {
	return strings.ReplaceAll(longScriptTemplate, "ROUNDS", itoa(longRounds()))
}

// shortOneWorker is --workers 1 under -short (the least CPU for the time
// a timed-out session runs; records do not depend on --workers), nothing
// (the default workers) in the full suite.
func shortOneWorker() []string {
	if testing.Short() {
		return []string{"--workers", "1"}
	}
	return nil
}

// wholeRuns are uninterrupted runs made once per test binary by
// uninterrupted, in a directory TestMain removes.
var wholeRuns struct {
	sync.Mutex
	dir  string
	outs map[string]wholeRun // script name, source and arguments → the run
}

// wholeRun is a run directory and what the script printed.
type wholeRun struct{ dir, stdout string }

// uninterrupted returns the run directory of an uninterrupted fedlab run
// of src (as a script named name, with args), which the tests that
// interrupt and continue the same runs compare theirs with, and the tests
// that only read a run directory share; they must not change it. It is
// run once per test binary: the runs take a second or so each.
func uninterrupted(t *testing.T, name, src string, args ...string) string {
	t.Helper()
	return uninterruptedRun(t, name, src, args...).dir
}

// uninterruptedRun is uninterrupted with the script's standard output.
func uninterruptedRun(t *testing.T, name, src string, args ...string) wholeRun {
	t.Helper()
	wholeRuns.Lock()
	defer wholeRuns.Unlock()
	key := strings.Join(append([]string{name, src}, args...), "\x00")
	if run, ok := wholeRuns.outs[key]; ok {
		return run
	}
	if wholeRuns.dir == "" {
		dir, err := os.MkdirTemp("", "fedlab-cli-test-")
		if err != nil {
			t.Fatal(err)
		}
		wholeRuns.dir, wholeRuns.outs = dir, map[string]wholeRun{}
	}
	dir := filepath.Join(wholeRuns.dir, fmt.Sprint(len(wholeRuns.outs)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script, out := filepath.Join(dir, name), filepath.Join(dir, "whole")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(append([]string{"run", script, "--out", out, "--quiet"}, args...)...)
	if code != 0 {
		t.Fatalf("the uninterrupted run of %s: exit %d: %s", name, code, stderr)
	}
	wholeRuns.outs[key] = wholeRun{out, stdout}
	return wholeRuns.outs[key]
}

// wholeLongRun is uninterrupted's run of longScript (as long.lua, with
// --keep-checkpoints; on one worker, which costs the least CPU: records do
// not depend on --workers).
func wholeLongRun(t *testing.T) string {
	t.Helper()
	return uninterrupted(t, "long.lua", longScript(), "--keep-checkpoints", "--workers", "1")
}

// interruptAfterARound runs fedlab with args under a --timeout that stops
// its one run after some rounds, leaving a checkpoint in out, and returns
// its stderr. On a loaded machine the script may not reach its first round
// within the first timeout (no checkpoint is written then), so the session
// is tried again in a new out with a longer one; it fails the test if no
// timeout leaves a checkpoint. The first timeout is about a fifth of the
// run's time on an idle machine (80 ms of -short's 50,000 rounds); start-up
// takes a few milliseconds, so a timeout doubled after one that came before
// the first round still stops the run long before its end.
func interruptAfterARound(t *testing.T, out string, args ...string) string {
	t.Helper()
	const saved = "1 planned runs did not complete (1 saved a checkpoint to continue from)\n"
	var code int
	var stderr string
	timeouts := []string{"300ms", "600ms", "1200ms", "2400ms"}
	if testing.Short() {
		timeouts = []string{"80ms", "160ms", "320ms", "640ms", "1280ms", "2560ms"}
	}
	for _, timeout := range timeouts {
		if err := os.RemoveAll(out); err != nil {
			t.Fatal(err)
		}
		code, _, stderr = runCLI(append(args, "--timeout", timeout)...)
		if code == 124 && strings.Contains(stderr, saved) && checkpointedARound(t, out) {
			return stderr
		}
		if code != 124 {
			break
		}
		t.Logf("--timeout %s left no checkpoint (a loaded machine): trying a longer one; stderr:\n%s", timeout, stderr)
	}
	t.Fatalf("no --timeout left a checkpoint to continue from: exit %d, stderr:\n%s", code, stderr)
	return ""
}

// checkpointedARound reports whether out's manifest records a checkpoint
// after round 1 or later.
func checkpointedARound(t *testing.T, out string) bool {
	for _, c := range fullManifest(t, out).Checkpoints {
		if c.Rounds > 0 {
			return true
		}
	}
	return false
}

// TestATimedOutRunContinuesFromItsCheckpoint: --timeout stops the run at
// a round boundary and saves its state there (with --checkpoint-every 0,
// only then); running the script again continues it, the notice naming
// the round, and records.csv is byte for byte an uninterrupted run's; the
// checkpoint is removed when the run completes, or kept, after the last
// round, with --keep-checkpoints.
func TestATimedOutRunContinuesFromItsCheckpoint(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "long.lua")
	if err := os.WriteFile(script, []byte(longScript()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stderr := interruptAfterARound(t, out, append([]string{"run", script, "--out", out, "--quiet", "--checkpoint-every", "0"}, shortOneWorker()...)...)
	if strings.Contains(stderr, "checkpointed") {
		t.Fatalf("stderr:\n%s", stderr)
	}
	m := fullManifest(t, out)
	if m.Status != "interrupted" || len(m.Checkpoints) != 1 {
		t.Fatalf("manifest %s with checkpoints %v", m.Status, m.Checkpoints)
	}
	rounds := 0
	for _, c := range fullManifest(t, out).Checkpoints {
		rounds = c.Rounds
	}
	code, table, _ := runCLI("table", out)
	if want := fmt.Sprintf("; in progress: fedmid seed 1 at round %d of %d]: no run completed, no table\n", rounds, longRounds()); code != 0 || !strings.HasSuffix(table, want) {
		t.Errorf("fedlab table of the unfinished directory: exit %d\n%s\nwant it to end %q", code, table, want)
	}
	code, _, stderr = runCLI("plot", out)
	if want := fmt.Sprintf("fedlab: note: call 1 (long.lua:11 fedlab.compare): 1 of 1 runs pending, no figure: left to other shards or not run yet; in progress: fedmid seed 1 at round %d of %d\n"+
		"fedlab: %s: no run completed, nothing to draw\n", rounds, longRounds(), out); code != 1 || stderr != want {
		t.Errorf("fedlab plot of the unfinished directory: exit %d\n%s\nwant\n%s", code, stderr, want)
	}
	merged := filepath.Join(dir, "merged")
	code, _, stderr = runCLI("merge", out, "--out", merged)
	if want := fmt.Sprintf("fedlab: merged 1 directories into %s: 1 runs, 1 pending (run the script with --out %s to complete them)\n"+
		"fedlab: 1 pending runs continue from their checkpoints, kept in %s: fedmid seed 1 at round %d of %d\n", merged, merged, merged, rounds, longRounds()); code != 0 || stderr != want {
		t.Errorf("fedlab merge of the unfinished directory: exit %d\n%s\nwant\n%s", code, stderr, want)
	}
	page := filepath.Join(dir, "report.html")
	if code, _, stderr := runCLI("report", out, "--out", page); code != 0 {
		t.Fatalf("fedlab report of the unfinished directory: exit %d, %s", code, stderr)
	}
	if want := fmt.Sprintf(`<p class="bad">1 of 1 runs pending: left to other shards or not run yet; in progress, each continued from its checkpoint by the next fedlab run of the script into this directory:</p>
<ul><li>fedmid seed 1 at round %d of %d</li></ul>`, rounds, longRounds()); !strings.Contains(read(t, dir, "report.html"), want) {
		t.Errorf("the report does not say how far the run got:\n%s", want)
	}
	code, _, stderr = runCLI("run", script, "--out", out, "--quiet", "--workers", "1")
	resumed := regexp.MustCompile(`^fedlab: ` + regexp.QuoteMeta(filepath.Join(out, "checkpoints")) + `/[0-9a-f]{16}\.([0-9]+)\.ckpt: resuming fedmid \(seed 1\) after round ([0-9]+) of ` + itoa(longRounds()) + `\n$`).FindStringSubmatch(stderr)
	if code != 0 || resumed == nil || resumed[1] != resumed[2] || resumed[1] == "0" {
		t.Fatalf("resume: exit %d, stderr:\n%s", code, stderr)
	}
	if entries, err := os.ReadDir(filepath.Join(out, "checkpoints")); !os.IsNotExist(err) {
		t.Errorf("checkpoints/ after the run completed: %v %v, want it removed", entries, err)
	}
	if m := fullManifest(t, out); m.Status != "complete" || len(m.Checkpoints) != 0 {
		t.Errorf("manifest %s with checkpoints %v", m.Status, m.Checkpoints)
	}
	whole := wholeLongRun(t)
	if read(t, whole, "records.csv") != read(t, out, "records.csv") {
		t.Errorf("records.csv of the resumed run differs from the uninterrupted run's")
	}
	for key, c := range fullManifest(t, whole).Checkpoints {
		if c.Rounds != longRounds() {
			t.Errorf("kept checkpoint of %s after round %d, want %d", key, c.Rounds, longRounds())
		}
	}
}

// TestPlotNotesTheRunsInProgress: a call with a run completed and runs
// pending is drawn with a legend note per run in progress (three at most)
// and one for the others, and stderr says what fedlab table says.
func TestPlotNotesTheRunsInProgress(t *testing.T) {
	done := experiment.Run{Label: "fedavg", Seed: 1, Result: &core.Result{}}
	runs := []experiment.Run{done, {Label: "fedmid", Seed: 1}, {Label: "fedmid", Seed: 2}, {Label: "fedmid", Seed: 3}}
	var stderr strings.Builder
	notes, drawable := unfinishedRuns(&stderr, 1, "fedlab.compare at s.lua:4", runs, []string{"fedmid seed 1 at round 120 of 400", "fedmid seed 2 at round 80 of 400"})
	want := []string{"in progress, not drawn: fedmid seed 1 at round 120 of 400", "in progress, not drawn: fedmid seed 2 at round 80 of 400", "1 more runs pending, not drawn"}
	if !drawable || !slices.Equal(notes, want) {
		t.Errorf("notes %q (drawable %v), want %q", notes, drawable, want)
	}
	if got, want := stderr.String(), "fedlab: note: call 2 (fedlab.compare at s.lua:4): 3 of 4 runs pending, not drawn: left to other shards or not run yet; in progress: fedmid seed 1 at round 120 of 400, fedmid seed 2 at round 80 of 400\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	if notes, drawable := unfinishedRuns(&stderr, 0, "x", runs[:1], nil); notes != nil || !drawable {
		t.Errorf("a completed call: notes %q, drawable %v", notes, drawable)
	}
}

// TestATimedOutPipelineContinuesFromItsCheckpoint: a pipeline run
// (fedlab.stages) stopped by --timeout saves its state (the stage, what
// the stages before it left and the stage's engine state) and the next
// session continues it; records.csv is byte for byte an uninterrupted
// run's. Under -short it is skipped (2.5 s of CPU): experiment/pipeline's
// TestAPipelineContinuesFromItsCheckpointBitForBit continues a pipeline
// from its checkpoint, and TestATimedOutRunContinuesFromItsCheckpoint a
// timed-out run through the command line.
func TestATimedOutPipelineContinuesFromItsCheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a pipeline's checkpoint is experiment/pipeline's TestAPipelineContinuesFromItsCheckpointBitForBit; a timed-out run's TestATimedOutRunContinuesFromItsCheckpoint")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "long.lua")
	if err := os.WriteFile(script, []byte(longScript()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	interruptAfterARound(t, out, "run", script, "--out", out, "--quiet", "--set", "stages=true")
	rounds := 0
	for _, c := range fullManifest(t, out).Checkpoints {
		rounds = c.Rounds
	}
	code, _, stderr := runCLI("run", script, "--out", out, "--quiet", "--set", "stages=true")
	resumed := regexp.MustCompile(`^fedlab: ` + regexp.QuoteMeta(filepath.Join(out, "checkpoints")) + `/[0-9a-f]{16}\.([0-9]+)\.ckpt: resuming stages \(seed 1\) after round ([0-9]+) of ` + itoa(longRounds()+5000) + `\n$`).FindStringSubmatch(stderr)
	if code != 0 || resumed == nil || resumed[1] != resumed[2] || resumed[1] != fmt.Sprint(rounds) || rounds == 0 {
		t.Fatalf("resume: exit %d, stderr:\n%s", code, stderr)
	}
	whole := filepath.Join(dir, "whole")
	if code, _, stderr := runCLI("run", script, "--out", whole, "--quiet", "--set", "stages=true"); code != 0 {
		t.Fatalf("uninterrupted run: exit %d, %s", code, stderr)
	}
	if read(t, whole, "records.csv") != read(t, out, "records.csv") {
		t.Errorf("records.csv of the resumed pipeline differs from the uninterrupted run's")
	}
}

// TestAKilledRunLosesOnlyTheRoundsSinceItsLastCheckpoint: a session killed
// (SIGKILL) between two checkpoints resumes from the last one the manifest
// recorded, and its records equal an uninterrupted run's.
func TestAKilledRunLosesOnlyTheRoundsSinceItsLastCheckpoint(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "long.lua")
	if err := os.WriteFile(script, []byte(longScript()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd, stderr := child(t, "run", script, "--out", out, "--quiet", "--checkpoint-every", "20ms", "--jobs", "1", "--workers", "1")
	deadline := time.Now().Add(60 * time.Second)
	for {
		if m, ok, _ := rundir.ReadManifest(out); ok && len(m.Checkpoints) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no checkpoint recorded after 60 s; stderr:\n%s", stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(30 * time.Millisecond) // between two checkpoints, or while one is written
	cmd.Process.Kill()
	cmd.Wait()
	var rounds int
	for _, c := range fullManifest(t, out).Checkpoints {
		rounds = c.Rounds
	}
	code, _, errs := runCLI("run", script, "--out", out, "--quiet", "--workers", "1")
	want := fmt.Sprintf("resuming fedmid (seed 1) after round %d of %d\n", rounds, longRounds())
	if code != 0 || rounds == 0 || !strings.Contains(errs, want) {
		t.Fatalf("resume: exit %d, stderr:\n%s\nwant it to contain %q", code, errs, want)
	}
	if read(t, wholeLongRun(t), "records.csv") != read(t, out, "records.csv") {
		t.Errorf("records.csv of the resumed run differs from the uninterrupted run's")
	}
}

// TestCheckpointRoundsSavesAtMultiplesOfN: with --checkpoint-every 0 (no
// time period) and the run setting checkpoint_rounds = 1999, a running
// session's manifest records checkpoints after multiples of 1999 rounds.
func TestCheckpointRoundsSavesAtMultiplesOfN(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "long.lua")
	if err := os.WriteFile(script, []byte(longScript()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd, stderr := child(t, "run", script, "--out", out, "--quiet", "--checkpoint-every", "0", "--set", "checkpoint_rounds=1999", "--jobs", "1", "--workers", "1")
	defer cmd.Wait()
	defer cmd.Process.Kill()
	deadline := time.Now().Add(60 * time.Second)
	var seen []int
	for len(seen) < 2 {
		if m, ok, _ := rundir.ReadManifest(out); ok {
			for _, c := range m.Checkpoints {
				if len(seen) == 0 || seen[len(seen)-1] != c.Rounds {
					seen = append(seen, c.Rounds)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("checkpoints recorded in 60 s: %v; stderr:\n%s", seen, stderr)
		}
		time.Sleep(2 * time.Millisecond)
	}
	for _, r := range seen {
		if r == 0 || r%1999 != 0 {
			t.Errorf("checkpoints after rounds %v, want multiples of 1999", seen)
		}
	}
}
