package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotMetricsSkipsCallsWithoutThemAndSaysSo: `fedlab plot DIR --metric
// f1` on a directory whose second call does not record f1 draws the first
// call and names the second as not drawn (it stopped with an error at call
// 2, the command of docs/results.md); when no call records it, the usage
// error names the metrics the runs do record.
func TestPlotMetricsSkipsCallsWithoutThemAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 2, local_steps = 1, metrics = { "objective", "f1" } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedmid{} }, rounds = 2, local_steps = 1, metrics = { "objective" } }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("run", script, "--out", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	code, stdout, stderr := runCLI("plot", out, "--metric", "f1", "--metric", "objective", "--panels", "--x", "comm", "--format", "svg")
	if code != 0 || !strings.HasSuffix(strings.TrimSpace(stdout), "call1_f1_objective_vs_comm.svg") ||
		stderr != "fedlab: call 2 (s.lua:4 fedlab.compare) does not record f1: not drawn\n" {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI("plot", out, "--metric", "opt_gap")
	if code != 2 || !strings.HasPrefix(stderr, "fedlab: --metric opt_gap: no run of "+out+" records it; the runs record: objective, f1\n") {
		t.Fatalf("no call with the metric: exit %d, %s", code, stderr)
	}
}
