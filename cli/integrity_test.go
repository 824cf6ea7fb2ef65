package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/rundir"
)

// TestAlteredOrMissingResultsAreNamed: with one result file deleted and
// another edited (its status, which the file's own checksums do not
// cover), fedlab table, plot and report refuse naming both files instead
// of leaving the runs out (the caption changed to "over 1–2 seeds" and
// nothing else said so), merge refuses, and a resume says it runs them
// again and restores the directory.
func TestAlteredOrMissingResultsAreNamed(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.table(fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{ eta_c = 0.01 } }, rounds = 2, local_steps = 1, seeds = { 1, 2, 3 } })
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("run", script, "--out", out, "--quiet"); code != 0 {
		t.Fatalf("run: %d %s", code, stderr)
	}
	m, _, err := rundir.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{m.Calls[0].Runs[0].Key, m.Calls[0].Runs[1].Key}
	for _, k := range keys {
		if m.Runs[k].ResultSHA256 == "" {
			t.Fatalf("run %s: the manifest records no result checksum", k)
		}
	}
	gone := filepath.Join(out, "results", keys[0]+".json")
	edited := filepath.Join(out, "results", keys[1]+".json")
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, bytes.Replace(b, []byte(`"status":"done"`), []byte(`"status":"failed"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"table", out}, {"plot", out, "--out", filepath.Join(dir, "plots")}, {"report", out, "--out", filepath.Join(dir, "r.html")},
		{"merge", out, "--out", filepath.Join(dir, "merged")}} {
		code, _, stderr := runCLI(args...)
		named := strings.Contains(stderr, gone) && strings.Contains(stderr, edited)
		if args[0] == "merge" { // merge stops at the first damaged result
			named = strings.Contains(stderr, gone) || strings.Contains(stderr, edited)
		}
		if code != 1 || !named {
			t.Errorf("%s: exit %d, want 1 naming %s and %s:\n%s", args[0], code, gone, edited, stderr)
		}
	}
	code, stdout, stderr := runCLI("run", script, "--out", out, "--quiet")
	// the edit changed the file's size: it is refused before it is read
	if code != 0 || !strings.Contains(stderr, gone+": missing; running it again") ||
		!strings.Contains(stderr, edited+": is "+strconv.Itoa(len(b)+2)+" bytes, the manifest recorded "+strconv.Itoa(len(b))+": it was altered; running it again") {
		t.Fatalf("resume: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runCLI("table", out); code != 0 || !strings.Contains(stdout, "over 3 seeds") {
		t.Fatalf("table after the resume: %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestHugeLabelReadsBack: a label of 70,000 characters is tabulated, and a
// second run reuses the stored run (its model file's header line passed
// bufio.Scanner's 64 KiB limit: table and plot printed nothing and resume
// ran the run again).
func TestHugeLabelReadsBack(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{ label = string.rep("x", 70000) } }, rounds = 2, local_steps = 1 }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("run", script, "--out", out); code != 0 || !strings.Contains(stderr, "1 runs (1 ran)") {
		t.Fatalf("run: %d %s", code, stderr)
	}
	code, _, stderr := runCLI("run", script, "--out", out)
	if code != 0 || !strings.Contains(stderr, "1 runs (1 reused)") {
		t.Errorf("resume did not reuse the run: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runCLI("table", out)
	if code != 0 || !strings.Contains(stdout, strings.Repeat("x", 70000)) {
		t.Errorf("table: exit %d, %d bytes of output\n%s", code, len(stdout), stderr)
	}
}
