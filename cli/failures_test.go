package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/rundir"
)

// TestFailedRunsExitThree: a run that fails (its algorithm refuses the
// problem in Init: C-FedDA's ball needs an ℓ1-type ψ) makes fedlab run exit
// with status 3 after the other runs finished and were stored, and the end
// of stderr names the failed run with its reason. Before, the script
// exited 0 and said nothing.
func TestFailedRunsExitThree(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l2sq{ lambda = 0.1 } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{ eta_c = 0.01 }, fedlab.algo.cfedda{ L = 1, radius = 1 } },
  rounds = 2, local_steps = 1, seeds = { 1, 2 } }
print("after the call")
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI("run", script, "--out", out, "--quiet", "--jobs", "1")
	if code != exitRunsFailed || exitRunsFailed != 3 {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "after the call") {
		t.Errorf("the script did not finish: stdout %q", stdout)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	failed := regexp.MustCompile(`^fedlab: failed: s\.lua:3 fedlab\.compare: cfedda seed [12] \(run [0-9a-f]+\): radius > 0 needs a norm regularizer with a constrained prox \(l1 or nuclear\), the problem has "l2sq"$`)
	var n int
	for _, l := range lines {
		if failed.MatchString(l) {
			n++
		}
	}
	last := lines[len(lines)-1]
	if n != 2 || !strings.HasPrefix(last, "fedlab: 2 runs failed (exit status 3); the other runs are stored") {
		t.Fatalf("stderr does not list the 2 failed runs and end with the count:\n%s", stderr)
	}
	m, ok, err := rundir.ReadManifest(out)
	if err != nil || !ok {
		t.Fatalf("manifest: %v %v", ok, err)
	}
	var done, bad int
	for _, e := range m.Runs {
		switch e.Status {
		case "done":
			done++
		case "failed":
			bad++
		}
	}
	if m.Status != rundir.StatusComplete || done != 2 || bad != 2 {
		t.Fatalf("manifest status %s, %d done, %d failed; want complete, 2, 2", m.Status, done, bad)
	}
}

// TestSweepWarnsAtTheEdgeOfItsGrid: a step size selected at the top of
// its grid (with 2 rounds, the largest of three small steps is best) is
// flagged in the script's output and in the sweep table; the grid's middle
// is not.
func TestSweepWarnsAtTheEdgeOfItsGrid(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
local sw = fedlab.sweep{ problem = p, algorithms = { fedlab.algo.fedavg{} }, grid = { eta_c = { 0.001, 0.003, 0.01 } },
  rounds = 2, local_steps = 1, select = { metric = "objective", mode = "min" } }
fedlab.sweep_table(sw)
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI("run", script, "--out", filepath.Join(dir, "out"), "--quiet")
	const want = "eta_c = 0.01 is the largest value of its grid {0.001, 0.003, 0.01}: the best value may lie beyond the grid; extend it to be sure"
	if code != 0 || !strings.Contains(stderr, "fedlab: s.lua:3 fedlab.sweep: fedavg: edge of the grid: "+want) ||
		!strings.Contains(stdout, "edge of the grid: "+want) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}
