// Package library holds the example of docs/library.md: a program in a
// module of its own that uses fedlab through a replace directive.
package library

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestUsingFedlabFromAnotherModule creates a module example.com/myexp in a
// temporary directory, with `replace github.com/fedlab/fedlab => THIS
// CHECKOUT`, the program of main.go.txt and the algorithm of
// examples/proxsgdavg as package myalgo, and fedlab's go.sum; it runs `go
// mod tidy` (through the module proxy, like any module) and `go run`, and
// checks the comparison the script prints.
func TestUsingFedlabFromAnotherModule(t *testing.T) {
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
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(mod, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	goMod := read("go.mod")
	goLine := regexp.MustCompile(`(?m)^go .*$`).FindString(goMod)
	write("go.mod", "module example.com/myexp\n\n"+goLine+"\n\nrequire github.com/fedlab/fedlab v0.0.0\n\nreplace github.com/fedlab/fedlab => "+root+"\n")
	write("go.sum", read("go.sum")) // fedlab's dependencies, already verified
	write("main.go", read("examples/library/main.go.txt"))
	write("myalgo/myalgo.go", strings.Replace(read("examples/proxsgdavg/proxsgdavg.go"), "package proxsgdavg", "package myalgo", 1))
	write("exp.lua", read("examples/library/exp.lua"))
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mod", "tidy")
	out := run("run", ".", "exp.lua", filepath.Join(mod, "out"))
	for _, want := range []string{"prox_sgd_avg", "fedmid", "2 runs (2 ran)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the program's output lacks %q:\n%s", want, out)
		}
	}
}
