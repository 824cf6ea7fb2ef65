//go:build unix

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Run directories as untrusted input (issue 30), through the commands:
// each case read /dev/zero whole, blocked, read or wrote outside the
// directory, or used an edited value before.

const hostileScript = `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 2, local_steps = 1, metrics = { "objective", "opt_gap" } }
`

// hostileRun runs hostileScript into a fresh directory and returns the
// script, the directory and the file names of its one result, model and
// stored optimum.
func hostileRun(t *testing.T) (script, out, result, model, optimum string) {
	t.Helper()
	dir := t.TempDir()
	script, out = filepath.Join(dir, "s.lua"), filepath.Join(dir, "out")
	if err := os.WriteFile(script, []byte(hostileScript), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("run", script, "--out", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	glob := func(pattern string) string {
		m, _ := filepath.Glob(filepath.Join(out, pattern))
		if len(m) != 1 {
			t.Fatalf("%s: %v", pattern, m)
		}
		return m[0]
	}
	return script, out, glob("results/*.json"), glob("models/*.txt"), glob("optima/*.json")
}

// replace puts a link to target (or a named pipe, for "fifo") at path.
func replace(t *testing.T, path, target string) {
	t.Helper()
	os.Remove(path)
	var err error
	if target == "fifo" {
		err = syscall.Mkfifo(path, 0o644)
	} else {
		err = os.Symlink(target, path)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// cliWithin runs fedlab with args and fails the test if it does not end
// within 20 s.
func cliWithin(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); code, stdout, stderr = runCLI(args...) }()
	select {
	case <-done:
		return
	case <-time.After(20 * time.Second):
		t.Fatalf("fedlab %v: still running after 20 s", args)
	}
	return
}

func TestTableAndResumeRefuseLinksAndPipesInTheRunDirectory(t *testing.T) {
	for _, c := range []struct {
		file, target string
		table        string // what table says (exit 1); "" when table does not read the file
		resume       string // the notice of a resume, which then recomputes the file
	}{
		{"result", "/dev/zero", `is a symbolic link (to "/dev/zero"): fedlab does not follow links inside a run directory; remove the link`, "; running it again"},
		{"result", "fifo", "is a named pipe, not a regular file: fedlab reads only regular files in a run directory; remove it", "; running it again"},
		{"model", "/dev/zero", `is a symbolic link (to "/dev/zero")`, "; running it again"},
		{"optimum", "/dev/zero", "", `is a symbolic link (to "/dev/zero"): fedlab does not follow links inside a run directory; remove the link; solving it again`},
		{"optimum", "fifo", "", "is a named pipe, not a regular file: fedlab reads only regular files in a run directory; remove it; solving it again"},
	} {
		script, out, result, model, optimum := hostileRun(t)
		file := map[string]string{"result": result, "model": model, "optimum": optimum}[c.file]
		replace(t, file, c.target)
		if c.file == "optimum" {
			os.Remove(result) // the run executes again, and needs the optimum
		}
		if c.table != "" {
			code, _, stderr := cliWithin(t, "table", out)
			if code != 1 || !strings.Contains(stderr, file+" ") && !strings.Contains(stderr, filepath.Base(file)) || !strings.Contains(stderr, c.table) {
				t.Errorf("table with the %s → %s: exit %d, stderr %s", c.file, c.target, code, stderr)
			}
		}
		code, _, stderr := cliWithin(t, "run", script, "--out", out, "--quiet")
		if code != 0 || !strings.Contains(stderr, filepath.Base(file)) || !strings.Contains(stderr, c.resume) {
			t.Errorf("resume with the %s → %s: exit %d, stderr %s", c.file, c.target, code, stderr)
		}
		if code, _, stderr := cliWithin(t, "table", out); code != 0 {
			t.Errorf("table after the resume (%s → %s): exit %d, %s", c.file, c.target, code, stderr)
		}
	}
}

func TestMergeRefusesAKeyLeavingTheOutput(t *testing.T) {
	_, out, result, _, _ := hostileRun(t)
	key := strings.TrimSuffix(filepath.Base(result), ".json")
	const evil = "../../MK/x"
	b, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
	b = []byte(strings.ReplaceAll(string(b), `"`+key+`"`, `"`+evil+`"`))
	os.WriteFile(filepath.Join(out, "manifest.json"), b, 0o644)
	// the result the key leads to, a result of that key, as an attacker would plant it
	var f map[string]any
	r, _ := os.ReadFile(result)
	json.Unmarshal(r, &f)
	f["key"] = evil
	delete(f, "model")
	delete(f, "model_sha256")
	r, _ = json.Marshal(f)
	os.MkdirAll(filepath.Join(filepath.Dir(out), "MK"), 0o755)
	os.WriteFile(filepath.Join(filepath.Dir(out), "MK", "x.json"), r, 0o644)
	merged := filepath.Join(t.TempDir(), "a", "b")
	code, _, stderr := cliWithin(t, "merge", out, "--out", merged)
	want := "fedlab: " + out + `/manifest.json: run key "../../MK/x" contains a path separator (was the file edited? fedlab writes hexadecimal run keys)` + "\n"
	if code != 1 || stderr != want {
		t.Errorf("merge: exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(merged)), "MK")); err == nil {
		t.Errorf("merge wrote outside --out")
	}
}

func TestAnEditedObjectiveIsNotUsed(t *testing.T) {
	script, out, result, _, optimum := hostileRun(t)
	var o map[string]any
	b, _ := os.ReadFile(optimum)
	json.Unmarshal(b, &o)
	o["objective"] = 0
	e, _ := json.Marshal(o)
	os.WriteFile(optimum, e, 0o644)
	os.Remove(result) // the run executes again, and needs the optimum
	code, _, stderr := cliWithin(t, "run", script, "--out", out, "--quiet")
	if want := "fedlab: " + optimum; code != 0 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "altered") || !strings.Contains(stderr, "; solving it again\n") {
		t.Errorf("edited objective: exit %d, stderr %q; want %s… altered … solving it again", code, stderr, want)
	}
	if again, _ := os.ReadFile(optimum); string(again) != string(b) {
		t.Errorf("the optimum was not solved again:\n%s\nwant\n%s", again, b)
	}
}
