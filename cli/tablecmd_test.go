package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTableCommandSaysWhatItCannotShow: --width below what a table can
// hold is refused with the valid range (--width 1 was accepted), --out on
// a directory says so (it said "rename .w.NNN.tmp w: file exists"), and a
// shard's directory says which runs are pending instead of leaving them
// out without a word.
func TestTableCommandSaysWhatItCannotShow(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{}, fedlab.algo.fedmid{} }, rounds = 2, local_steps = 1, seeds = { 1, 2 } }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "shard0")
	if code, _, stderr := runCLI("run", script, "--out", out, "--quiet", "--shard", "0/2"); code != 0 {
		t.Fatalf("shard: %s", stderr)
	}
	code, _, stderr := runCLI("table", out, "--width", "1")
	if code != 2 || !strings.Contains(stderr, "--width 1: want 0 (the default, 100 columns) or at least 20") {
		t.Errorf("--width 1: exit %d %s", code, stderr)
	}
	code, _, stderr = runCLI("table", out, "--out", dir)
	if code != 1 || !strings.Contains(stderr, "--out "+dir+" is a directory; give a file name, e.g. "+filepath.Join(dir, "table.txt")) {
		t.Errorf("--out DIR: exit %d %s", code, stderr)
	}
	code, stdout, stderr := runCLI("table", out)
	if code != 0 || !strings.Contains(stdout, "of 4 runs pending: left to other shards or not run yet]") {
		t.Errorf("a shard's table does not say which runs are pending: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// TestDescribeWrapsToTheTerminal: fedlab describe fits its parameter
// table and description to the terminal's width ($COLUMNS here; the
// description column ran to 200+ columns).
func TestDescribeWrapsToTheTerminal(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	code, stdout, stderr := runCLI("describe", "fedavg")
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, line := range strings.Split(strings.TrimRight(stdout, "\n"), "\n") {
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("line of %d characters at COLUMNS=80: %s", n, line)
		}
	}
	if !strings.Contains(stdout, "server optimizer (fedlab.opt.*)") {
		t.Errorf("the description is missing:\n%s", stdout)
	}
}
