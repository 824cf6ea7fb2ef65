package luaapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/report"
)

const runSrc = problemSrc + `local r = fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{ label = LABEL }, rounds = 2, local_steps = 1, metrics = {"test_objective"} }
`

// sandboxScript runs src (with LABEL replaced) in a fresh directory whose
// run directory is dir/out, and returns dir and the error.
func sandboxScript(t *testing.T, src string, opts Options) (string, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "script.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	opts.Stdout, opts.Stderr, opts.Out = &out, &out, filepath.Join(dir, "out")
	_, err := RunFile(path, opts)
	return dir, err
}

func TestSandboxRefusesWritesOutsideTheRunDirectory(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "victim.txt")
	run := strings.ReplaceAll(runSrc, "LABEL", `"a"`)
	cases := []struct{ call, want string }{
		{`fedlab.csv(r, "` + victim + `")`, `fedlab.csv: absolute path "` + victim + `" refused`},
		{`fedlab.save_model(r, "` + victim + `")`, "fedlab.save_model: absolute path"},
		{`fedlab.plot(r, { metric = "test_objective", file = "` + victim + `" })`, "fedlab.plot: absolute path"},
		{`fedlab.csv(r, "../victim.txt")`, `fedlab.csv: path "../victim.txt" leaves the run directory`},
		{`fedlab.csv(r, "a/../../victim.txt")`, "leaves the run directory"},
		{`fedlab.save_model(r, "..")`, "leaves the run directory"},
		{`fedlab.csv(r, ".")`, "names the run directory itself"},
		{`fedlab.csv(r, "manifest.json")`, `fedlab.csv: "manifest.json" is reserved in the run directory`},
		{`fedlab.csv(r, "records.csv")`, "is reserved"},
		{`fedlab.save_model(r, "results/x.json")`, "is reserved"},
		{`fedlab.save_model(r, "./models/k.txt")`, "is reserved"},
		{`fedlab.csv(r, "fedlab.lock")`, "is reserved"},
		{`fedlab.plot(r, { metric = "test_objective", file = "results/p" })`, "is reserved"},
	}
	for _, c := range cases {
		_, err := sandboxScript(t, run+c.call+"\n", Options{})
		if err == nil {
			t.Errorf("%s: accepted", c.call)
			continue
		}
		if !strings.HasPrefix(err.Error(), "script.lua:4: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want script.lua:4: … %q", c.call, err, c.want)
		}
		if strings.Contains(c.want, "absolute") || strings.Contains(c.want, "leaves") {
			if !strings.Contains(err.Error(), "--unsafe") {
				t.Errorf("%s: error %q does not name --unsafe", c.call, err)
			}
		}
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Errorf("the victim file was written: %v", err)
	}
}

func TestSandboxUnsafeAllowsAbsolutePathsButNotReservedNames(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "allowed.csv")
	run := strings.ReplaceAll(runSrc, "LABEL", `"a"`)
	if _, err := sandboxScript(t, run+`fedlab.csv(r, "`+victim+`")`+"\n", Options{Unsafe: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("--unsafe: %v", err)
	}
	// an absolute path into the run directory's results is refused even with --unsafe
	dir := t.TempDir()
	path := filepath.Join(dir, "script.lua")
	abs := filepath.Join(dir, "out", "results", "x.json")
	os.WriteFile(path, []byte(run+`fedlab.csv(r, "`+abs+`")`+"\n"), 0o644)
	_, err := RunFile(path, Options{Out: filepath.Join(dir, "out"), Unsafe: true, Stdout: &strings.Builder{}, Stderr: &strings.Builder{}})
	if err == nil || !strings.Contains(err.Error(), "is reserved") {
		t.Errorf("absolute path into results/: %v", err)
	}
}

func TestSandboxRefusesSymbolicLinksOutOfTheRunDirectory(t *testing.T) {
	outside := t.TempDir()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(out, "link")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	path := filepath.Join(dir, "script.lua")
	src := strings.ReplaceAll(runSrc, "LABEL", `"a"`) + `fedlab.csv(r, "link/x.csv")` + "\n"
	os.WriteFile(path, []byte(src), 0o644)
	_, err := RunFile(path, Options{Out: out, Stdout: &strings.Builder{}, Stderr: &strings.Builder{}})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("write through a link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.csv")); !os.IsNotExist(err) {
		t.Errorf("the file outside was written")
	}
}

func TestFreeTextStaysOnItsLineInTheModelFile(t *testing.T) {
	label := `"x\nexport PATH=/tmp/evil:$PATH\n#"`
	src := strings.ReplaceAll(runSrc, "LABEL", label) + `fedlab.save_model(r, "m.txt")` + "\n"
	dir, err := sandboxScript(t, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "m.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "export") {
			t.Fatalf("the label started a line of the model file:\n%s", b)
		}
	}
	if !strings.Contains(string(b), `# fedlab model: "x\nexport PATH=/tmp/evil:$PATH\n#"`) {
		t.Errorf("label not quoted in the header:\n%s", b)
	}
	w, err := report.ReadModel(filepath.Join(dir, "out", "m.txt"))
	if err != nil || len(w) == 0 {
		t.Errorf("model does not read back: %v %v", w, err)
	}
}
