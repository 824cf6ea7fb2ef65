package luaapi

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runawayChild is the environment variable that makes
// TestUndeclaredDatasetStopsAtTheCeiling run the runaway script itself
// (in a child process: the guard ends the process).
const runawayChild = "FEDLAB_TEST_RUNAWAY_CHILD"

// A dataset that declares no size (test_undeclared) and allocates without
// bound, under the fuzz target's ceiling: the guard cancels the script at
// the ceiling, the dataset does not look, and the guard ends the process
// at the runaway bound with the ceiling's message and status 1, long
// before the kernel would (the fuzzer's case reached 24 GB of RSS).
func TestUndeclaredDatasetStopsAtTheCeiling(t *testing.T) {
	const src = "local data = fedlab.data.test_undeclared{ features = 2^31 }\nprint('built')\n"
	if os.Getenv(runawayChild) != "" {
		dir := t.TempDir()
		path := filepath.Join(dir, "script.lua")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := RunFile(path, Options{Quiet: true, Out: filepath.Join(dir, "out"), MaxMemory: 256 << 20})
		t.Fatalf("RunFile returned (%v): the process should have ended", err)
	}
	if testing.Short() {
		t.Skip("allocates about 0.5 GB in a child process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestUndeclaredDatasetStopsAtTheCeiling$")
	cmd.Env = append(os.Environ(), runawayChild+"=1")
	var stderr, stdout bytes.Buffer
	cmd.Stderr, cmd.Stdout = &stderr, &stdout
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("child: %v, want exit status 1\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{"fedlab: memory ceiling reached: the process holds ", "more than the ceiling of 256.0 MiB (--max-memory)",
		"declares no size and does not check its context", "the process ends at 384.0 MiB"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	for _, bad := range goFailures {
		if strings.Contains(msg, bad) {
			t.Errorf("stderr carries Go failure text %q:\n%s", bad, msg)
		}
	}
	// Maxrss is in KiB on Linux: the child stopped within a few times the
	// ceiling (the test binary, the heap at the bound and one append in flight)
	if usage, ok := exit.SysUsage().(*syscall.Rusage); ok && usage.Maxrss > 2<<20 {
		t.Errorf("the child reached %d MiB of RSS, want under 2 GiB", usage.Maxrss>>10)
	}
}
