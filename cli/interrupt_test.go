package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// child starts the command line in a child process (see TestMain).
func child(t *testing.T, args ...string) (*exec.Cmd, *strings.Builder) {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FEDLAB_TEST_ARGS="+string(a))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// waitResults waits until dir/results holds n result files.
func waitResults(t *testing.T, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		results, _ := os.ReadDir(filepath.Join(dir, "results"))
		if len(results) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %d results in %s after 60 s", n, dir)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestSIGINTLeavesAResumableInterruptedDirectory(t *testing.T) {
	if testing.Short() {
		t.Skip("interrupts a sweep with SIGINT and resumes it (-short: TestDocumentedExitCodes interrupts a child with SIGINT, TestATimedOutRunContinuesFromItsCheckpoint resumes an interrupted directory)")
	}
	dir := t.TempDir()
	script := writeScript(t, dir, interruptedRounds())
	out := filepath.Join(dir, "out")
	cmd, stderr := child(t, "run", script, "--out", out, "--jobs", "1", "--workers", "1", "--quiet")
	waitResults(t, out, 2)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want status 130; stderr:\n%s", err, stderr)
	}
	msg := stderr.String()
	for _, want := range []string{"fedlab: sweep.lua:3: interrupted (SIGINT)", "kept ", `(manifest status "interrupted")`,
		"resume with: fedlab run " + script + " --out " + out} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "goroutine") || strings.Contains(msg, "panic") {
		t.Errorf("stderr has a Go dump:\n%s", msg)
	}
	m := manifest(t, out)
	if m.Status != "interrupted" {
		t.Errorf("manifest status %q, want interrupted", m.Status)
	}
	if _, err := os.Stat(filepath.Join(out, "fedlab.lock")); !os.IsNotExist(err) {
		t.Errorf("the lock file is left: %v", err)
	}
	done := 0
	for _, e := range m.Runs {
		if e.Status != "pending" {
			done++
		}
	}
	if done == 0 || done == 12 {
		t.Errorf("%d of 12 runs complete: the signal did not interrupt the sweep", done)
	}
	code, _, errs := runCLI("run", script, "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("resume: exit %d, %s", code, errs)
	}
	if m := manifest(t, out); m.Status != "complete" || len(m.Runs) != 12 {
		t.Errorf("after the resume: %s with %d runs", m.Status, len(m.Runs))
	}
	sameRecords(t, wholeSweep(t), out)
}

func TestTimeoutStopsAnInfiniteLuaLoop(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "loop.lua")
	os.WriteFile(script, []byte("local n = 0\nwhile true do\n  n = n + 1\nend\n"), 0o644)
	timeout := "300ms"
	if testing.Short() {
		timeout = "100ms" // the loop spins until it
	}
	start := time.Now()
	code, _, stderr := runCLI("run", script, "--out", filepath.Join(dir, "out"), "--timeout", timeout)
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the loop ran %s past a %s timeout", took, timeout)
	}
	if code != 124 {
		t.Errorf("exit %d, want 124", code)
	}
	if first, _, _ := strings.Cut(stderr, "\n"); !regexp.MustCompile(`^fedlab: loop\.lua:[234]: time limit reached \(--timeout ` + timeout + `\)$`).MatchString(first) {
		t.Errorf("stderr %q", stderr)
	}
	if !strings.Contains(stderr, "nothing was written") {
		t.Errorf("stderr does not say that nothing was written: %q", stderr)
	}
}

func TestTimeoutStopsRunsAtARoundBoundaryAndKeepsTheCompletedOnes(t *testing.T) {
	dir := t.TempDir()
	script := writeScript(t, dir, 1000000)
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI("run", script, "--out", out, "--timeout", "1s", "--quiet", "--jobs", "1", "--workers", "1")
	if code != 124 || !strings.Contains(stderr, "sweep.lua:3: time limit reached (--timeout 1s)") || !strings.Contains(stderr, "resume with") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if m := manifest(t, out); m.Status != "interrupted" {
		t.Errorf("manifest status %q", m.Status)
	}
}

func TestTwoScriptsIntoOneDirectoryLoseNothing(t *testing.T) {
	dir := t.TempDir()
	a := writeScript(t, dir, 3000)
	b := filepath.Join(dir, "other.lua")
	// B: another problem, and 20 rounds (only A must still run when B starts)
	src := strings.Replace(sweepScript, "ROUNDS", "20", 1)
	os.WriteFile(b, []byte(strings.Replace(src, "lambda = 0.05", "lambda = 0.07", 1)), 0o644)
	out := filepath.Join(dir, "out")

	// B starts while A runs: refused, A is untouched.
	cmd, aErr := child(t, "run", a, "--out", out, "--jobs", "1", "--workers", "1", "--quiet")
	waitResults(t, out, 1)
	code, _, stderr := runCLI("run", b, "--out", out, "--quiet")
	if code != 1 || !strings.Contains(stderr, "is in use by another fedlab session (pid ") || !strings.Contains(stderr, "script sweep.lua") {
		t.Errorf("B while A runs: exit %d, %s", code, stderr)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("A: %v\n%s", err, aErr)
	}
	ma := manifest(t, out)
	if ma.Status != "complete" || len(ma.Runs) != 12 {
		t.Fatalf("A: %s with %d runs", ma.Status, len(ma.Runs))
	}
	// B after A: refused as another script; with --update it adds its runs and prunes none of A's.
	code, _, stderr = runCLI("run", b, "--out", out, "--quiet")
	if code != 1 || !strings.Contains(stderr, "holds the runs of another script, sweep.lua") {
		t.Errorf("B after A: exit %d, %s", code, stderr)
	}
	if code, _, stderr = runCLI("run", b, "--out", out, "--quiet", "--update"); code != 0 {
		t.Fatalf("B --update: exit %d, %s", code, stderr)
	}
	mb := manifest(t, out)
	for key := range ma.Runs {
		if _, err := os.Stat(filepath.Join(out, "results", key+".json")); err != nil {
			t.Errorf("A's run %s lost: %v", key, err)
		}
	}
	for key := range mb.Runs {
		if _, err := os.Stat(filepath.Join(out, "results", key+".json")); err != nil {
			t.Errorf("B's run %s missing: %v", key, err)
		}
	}
	if len(mb.Runs) != 24 { // B's 12 and A's 12, kept as an earlier invocation
		t.Errorf("B: %d runs in the manifest, want B's 12 and A's 12", len(mb.Runs))
	}
	if m := fullManifest(t, out); len(m.Earlier) != 1 || filepath.Base(m.Earlier[0].Script.Path) != "sweep.lua" {
		t.Errorf("B: earlier invocations %+v, want A's", m.Earlier)
	}
}

func TestWorkerCountsAreCapped(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "w.lua")
	os.WriteFile(script, []byte(`local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.run{ problem = p, algorithm = fedlab.algo.fedavg{}, rounds = 3, local_steps = 1 }
`), 0o644)
	code, _, stderr := runCLI("run", script, "--out", filepath.Join(dir, "out"), "--quiet", "--workers", "100000000", "--jobs", "100000000")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, flag := range []string{"--jobs", "--workers"} {
		if !regexp.MustCompile(`fedlab: ` + flag + ` 100000000 capped at \d+ \(8 per CPU`).MatchString(stderr) {
			t.Errorf("no note for %s: %q", flag, stderr)
		}
	}
}
