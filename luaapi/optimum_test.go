package luaapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/rundir"
)

// TestOptimumIsStoredInTheRunDirectory runs a script that prints its
// problem's optimum into one directory: a re-run reads the stored optimum
// (shown by a stored objective edited to a value no solve gives, the edit
// recorded in the manifest; an edit the manifest does not know is solved
// again), and a run with another λ solves its changed problem.
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
	// the edit alone is refused: the manifest records the file's size and
	// SHA-256, so the re-run solves again and prints the true optimum
	if again := run(nil); again != first {
		t.Fatalf("re-run after an edit the manifest does not know printed %s, want the solved %s", again, first)
	}
	// an edit recorded in the manifest too is taken as stored (the
	// checksums catch careless edits, not forgery): the re-run reads it
	// without solving
	if err := os.WriteFile(files[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	recordOptimum(t, filepath.Join(out, rundir.ManifestFile), filepath.Base(files[0]), b)
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

// recordOptimum records content as the optimum file name's size and
// SHA-256 in the manifest at path.
func recordOptimum(t *testing.T, path, name string, content []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	optima, _ := m["optima"].(map[string]any)
	if optima[name] == nil {
		t.Fatalf("the manifest records no optimum %q: %v", name, m["optima"])
	}
	sum := sha256.Sum256(content)
	optima[name] = map[string]any{"size": len(content), "sha256": hex.EncodeToString(sum[:])}
	if b, err = json.MarshalIndent(m, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
