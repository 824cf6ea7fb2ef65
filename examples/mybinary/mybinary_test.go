// Package mybinary holds the example of docs/library.md, "Your own fedlab
// binary": a module of its own whose main.go calls cli.Main with fedlab's
// components and its own.
package mybinary

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/internal/resumecheck"
	"github.com/fedlab/fedlab/rundir"
)

// TestYourOwnFedlabBinary creates the module example.com/myexp in a
// temporary directory (`replace github.com/fedlab/fedlab => THIS
// CHECKOUT`), with main.go.txt, the algorithm of examples/proxsgdavg as
// package myalgo and the loss of examples/huber as package myloss; builds
// its binary and runs, with it, describe of its own loss, a script with
// --set and --timeout, table of the run directory, and a script with a
// failed run (exit status 3), and its own command runs (registered with
// cli.RegisterCommand) on that directory; checks that the manifest names the
// binary as the program, and that the line an interrupted run prints names
// it and resumes the run (internal/resumecheck).
func TestYourOwnFedlabBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module (-short)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(mod, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goLine := regexp.MustCompile(`(?m)^go .*$`).FindString(read("go.mod"))
	write("go.mod", "module example.com/myexp\n\n"+goLine+"\n\nrequire github.com/fedlab/fedlab v0.0.0\n\nreplace github.com/fedlab/fedlab => "+root+"\n")
	write("go.sum", read("go.sum"))
	write("main.go", read("examples/mybinary/main.go.txt"))
	write("myalgo/myalgo.go", strings.Replace(read("examples/proxsgdavg/proxsgdavg.go"), "package proxsgdavg", "package myalgo", 1))
	write("myloss/myloss.go", strings.Replace(read("examples/huber/huber.go"), "package huber", "package myloss", 1))
	write("exp.lua", read("examples/mybinary/exp.lua"))
	write("fails.lua", read("examples/mybinary/fails.lua"))
	gocmd := exec.Command(goBin, "mod", "tidy")
	gocmd.Dir, gocmd.Env = mod, append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := gocmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	bin := filepath.Join(mod, "myfedlab")
	gocmd = exec.Command(goBin, "build", "-o", bin, ".")
	gocmd.Dir, gocmd.Env = mod, append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := gocmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = mod
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &exit):
			return exit.ExitCode(), string(out)
		}
		t.Fatalf("myfedlab %s: %v", strings.Join(args, " "), err)
		return 0, ""
	}
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"describe", "huber"}, 0, []string{"loss huber: Huber loss of a linear model", "delta"}},
		{[]string{"list", "loss"}, 0, []string{"huber", "squared"}},
		{[]string{"run", "exp.lua", "--set", "rounds=10", "--timeout", "2m", "--out", "out", "--quiet"}, 0, []string{"prox_sgd_avg", "fedmid", "objective"}},
		{[]string{"table", "out"}, 0, []string{"prox_sgd_avg", "round"}},
		{[]string{"run", "exp.lua", "--set", "rounds=10", "--set", "rouns=3", "--out", "out2", "--quiet"}, 2, []string{`"rouns"`, `did you mean "rounds"?`}},
		{[]string{"run", "fails.lua", "--out", "out3", "--quiet"}, 3, []string{"2 runs (2 ran, 1 failed)", `algorithm "local": client 99 does not exist`, "exit status 3"}},
		{[]string{"describe", "hubber"}, 2, []string{`did you mean "huber"?`}},
		// the program's own command (cli.RegisterCommand)
		{[]string{"help"}, 0, []string{"runs DIR", "list the runs of a run directory, one a line"}},
		{[]string{"runs", "--help"}, 0, []string{"usage: fedlab runs DIR [flags]", "--status STATUS", "myfedlab runs runs/exp --status failed"}},
		{[]string{"runs", "out3", "--status", "failed"}, 0, []string{"call 1  \"local\"  seed 1  failed\n"}},
		{[]string{"runs", "out3"}, 0, []string{"call 1  \"prox_sgd_avg\"  seed 1  done\ncall 1  \"local\"  seed 1  failed\n"}},
		{[]string{"runs"}, 2, []string{"runs takes one run directory, got 0 arguments", "Run 'fedlab runs --help' for usage."}},
		{[]string{"rnus", "out3"}, 2, []string{`did you mean "runs"?`}},
	} {
		code, out := run(c.args...)
		if code != c.code {
			t.Errorf("myfedlab %s: exit %d, want %d\n%s", strings.Join(c.args, " "), code, c.code, out)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("myfedlab %s: the output lacks %q:\n%s", strings.Join(c.args, " "), w, out)
			}
		}
	}
	m, ok, err := rundir.ReadManifest(filepath.Join(mod, "out"))
	if err != nil || !ok || m.Invocation == nil || m.Invocation.Program != bin || m.Invocation.CommandLine[0] != bin {
		t.Errorf("the manifest of myfedlab's run does not name myfedlab as its program: %v %v %+v", ok, err, m)
	}
	// The resume line an interrupted run prints names myfedlab, and resumes.
	resumecheck.Check(t, mod, nil, bin)
}

// TestLibraryDocShowsTheRegisteredCommand: docs/library.md's
// cli.RegisterCommand example is main.go.txt's init, which
// TestYourOwnFedlabBinary builds and runs.
func TestLibraryDocShowsTheRegisteredCommand(t *testing.T) {
	src, err := os.ReadFile("main.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "library.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?ms)^func init\(\) \{$.*?^\}$`).Find(src)
	if block == nil || !strings.Contains(string(doc), "```go\n"+string(block)+"\n```") {
		t.Errorf("docs/library.md does not show main.go.txt's init:\n%s", block)
	}
}
