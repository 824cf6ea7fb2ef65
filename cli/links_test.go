package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunDirectoryLinksAreRefused: with results/ a link to another
// directory, or the lock a link to another file, fedlab run and fedlab
// plot refuse the directory naming the link (they wrote through it, and
// the lock's target was overwritten); merge names an input given twice
// (it said the directory was in use by its own pid) and an output that is
// a file (it said "not a directory").
func TestRunDirectoryLinksAreRefused(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 2, local_steps = 1 }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("run", script, "--out", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	elsewhere := t.TempDir()
	if err := os.RemoveAll(filepath.Join(out, "results")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(out, "results")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"run", script, "--out", out, "--quiet"}, {"plot", out}, {"table", out}} {
		code, _, stderr := runCLI(args...)
		if code != 1 || !strings.Contains(stderr, filepath.Join(out, "results")+" is a symbolic link (to "+elsewhere+")") {
			t.Errorf("%s with results/ a link: exit %d %s", args[0], code, stderr)
		}
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("files were written through the link: %v", entries)
	}
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh")
	os.Mkdir(fresh, 0o755)
	if err := os.Symlink(victim, filepath.Join(fresh, "fedlab.lock")); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI("run", script, "--out", fresh, "--quiet"); code != 1 || !strings.Contains(stderr, "fedlab.lock is a symbolic link") {
		t.Errorf("lock a link: exit %d %s", code, stderr)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me\n" {
		t.Errorf("the lock's target was overwritten: %q", b)
	}
	good := filepath.Join(dir, "good")
	if code, _, stderr := runCLI("run", script, "--out", good, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runCLI("merge", good, good, "--out", filepath.Join(dir, "m")); code != 1 || !strings.Contains(stderr, good+" is given twice") {
		t.Errorf("merge A A: exit %d %s", code, stderr)
	}
	if code, _, stderr := runCLI("merge", good, "--out", victim); code != 1 || !strings.Contains(stderr, "the output "+victim+" is a file") {
		t.Errorf("merge --out FILE: exit %d %s", code, stderr)
	}
}

// TestManifestOutOfRangeIsNamed: a manifest whose rounds read 1e300 is
// refused naming the field and the value, not a Go struct path
// ("Go struct field SettingsID.runs.rounds of type int").
func TestManifestOutOfRangeIsNamed(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 7, local_steps = 1 }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("run", script, "--out", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	path := filepath.Join(out, "manifest.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(regexp.MustCompile(`"rounds": *7\b`).ReplaceAllString(string(b), `"rounds": 1e300`)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI("table", out)
	if code != 1 || !strings.Contains(stderr, `field "runs.settings.rounds" at byte`) || !strings.Contains(stderr, "number 1e300 is not a whole number in range") ||
		strings.Contains(stderr, "Go struct") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// TestUnfinishedDirectoryIsSaid: a directory whose manifest still says
// running while no session holds it (its session was killed, or could not
// write its last manifest on a full disk) is shown with a note saying so
// (it was shown as if complete).
func TestUnfinishedDirectoryIsSaid(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 2, local_steps = 1 }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("run", script, "--out", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	path := filepath.Join(out, "manifest.json")
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), `"status": "complete"`, `"status": "running"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := runCLI("table", out); code != 0 || stdout == "" {
		t.Fatalf("table: exit %d", code)
	}
	code, _, stderr := runCLI("table", out)
	if code != 0 || !strings.Contains(stderr, "its last session did not finish (manifest status \"running\", and no session holds the directory)") {
		t.Errorf("no note: exit %d %q", code, stderr)
	}
}
