package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSparseDataIsEstimatedByItsNonzeros checks the memory pre-check of a
// compressed dataset: 1,000 clients × 10 rows × 10 nonzeros at d = 2^20 is
// about 1.4 MB and passes a 64 MB ceiling, while the same rows stored
// densely (84 GB) are refused before anything is allocated.
func TestSparseDataIsEstimatedByItsNonzeros(t *testing.T) {
	const src = `local d = fedlab.data.sparse_federated{ dim = 2^20, support = 5, clients = 1000, samples = 10, nnz = 10, format = "FORMAT" }
local p = fedlab.problem{ data = d, loss = fedlab.loss.squared{} }
`
	run := func(format string) (int, string) {
		dir := t.TempDir()
		script := filepath.Join(dir, "s.lua")
		if err := os.WriteFile(script, []byte(strings.ReplaceAll(src, "FORMAT", format)), 0o644); err != nil {
			t.Fatal(err)
		}
		return isolated(t, "run", script, "--out", filepath.Join(dir, "out"), "--quiet", "--max-memory", "64MB")
	}
	if code, stderr := run("sparse"); code != 0 {
		t.Fatalf("sparse data: exit %d, %s", code, stderr)
	}
	if code, stderr := run("dense"); code != 1 || !strings.Contains(stderr, "--max-memory") {
		t.Fatalf("dense data: exit %d, %q; want 1 and a memory-ceiling error", code, stderr)
	}
}

// TestClientStateCountsOnlyForStatefulAlgorithms checks the state estimate:
// with 200 clients and d = 4001 under a 16 MB ceiling, SCAFFOLD (a control
// variate per client, core.ClientStateful) is refused, while FedAvg (per-worker
// scratch and one reply per client) runs.
func TestClientStateCountsOnlyForStatefulAlgorithms(t *testing.T) {
	const src = `local data = fedlab.data.lasso{ variant = 'custom', dim = 4000, support = 2, clients = 200, samples = 1, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{} }
local r = fedlab.run{ problem = p, algorithm = fedlab.algo.ALGO{}, rounds = 2, local_steps = 1 }
`
	for algo, want := range map[string]int{"scaffold": 1, "fedavg": 0} {
		if testing.Short() && algo == "scaffold" {
			continue // -short: TestBadInputsGetClearErrors' "state over budget" refuses the same SCAFFOLD run, naming its state
		}
		dir := t.TempDir()
		script := filepath.Join(dir, "s.lua")
		if err := os.WriteFile(script, []byte(strings.ReplaceAll(src, "ALGO", algo)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stderr := isolated(t, "run", script, "--out", filepath.Join(dir, "out"), "--quiet", "--max-memory", "16MB")
		if code != want {
			t.Errorf("%s: exit %d, want %d; %s", algo, code, want, stderr)
		}
	}
}

// isolated runs the command line in a child process and returns its exit
// code and standard error. The memory ceiling measures the whole process's
// live heap, so a test of it must not share its process with other tests.
func isolated(t *testing.T, args ...string) (int, string) {
	t.Helper()
	cmd, stderr := child(t, args...)
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}
