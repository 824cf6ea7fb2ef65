package luaapi

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/rundir"
)

// TestOptimumIsStoredInTheRunDirectory runs a script that prints its
// problem's optimum three times into one directory: the second run reads
// the stored optimum (shown by a stored objective edited to a value no
// solve gives), the third, with another λ, solves its changed problem.
func TestOptimumIsStoredInTheRunDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "opt.lua")
	src := `local data = fedlab.data.test_data{ clients = 4, samples = 8 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.test_squared{}, reg = fedlab.reg.test_l1{ lambda = fedlab.args.lambda or 0.01 } }
print(string.format("%.17g", fedlab.optimum(problem).objective))
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	run := func(args map[string]any) string {
		t.Helper()
		var buf bytes.Buffer
		if _, err := RunFile(path, Options{Out: out, Stdout: &buf, Quiet: true, Args: args}); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(buf.String())
	}
	first := run(nil)
	files, _ := filepath.Glob(filepath.Join(out, rundir.OptimaDir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("optima after the first run: %v, want one file", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(stored["objective"]); string(got) != first {
		t.Fatalf("stored objective %s, printed %s", got, first)
	}
	stored["objective"] = 12345.5
	if b, err = json.Marshal(stored); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if again := run(nil); again != "12345.5" {
		t.Fatalf("re-run printed %s, want the stored 12345.5 (no solve)", again)
	}
	if changed := run(map[string]any{"lambda": 0.02}); changed == "12345.5" || changed == first {
		t.Fatalf("the problem with λ = 0.02 printed %s: the stored optimum of λ = 0.01 was used", changed)
	}
	if files, _ = filepath.Glob(filepath.Join(out, rundir.OptimaDir, "*.json")); len(files) != 2 {
		t.Fatalf("optima after the changed problem: %v, want two files", files)
	}
}
