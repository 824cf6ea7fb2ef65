package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestUsageMistakesExitTwo: a usage mistake prints its message and one
// line pointing to the command's help, not the whole usage (it printed
// the 81 lines of the usage before); fedlab alone prints the usage.
func TestUsageMistakesExitTwo(t *testing.T) {
	for _, args := range [][]string{{"bogus"}, {"run"}, {"run", "a.lua", "--bogus"}, {"run", "a.lua", "b.lua"},
		{"list", "nokind"}, {"describe"}, {"docs", "x"}, {"plot"}, {"plot", "a", "b"}, {"plot", "d", "--xlim", "1"},
		{"merge", "a"}, {"merge", "--out", "m"}} {
		code, _, stderr := runCLI(args...)
		help := "fedlab --help"
		if args[0] != "bogus" {
			help = "fedlab " + args[0] + " --help"
		}
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if code != 2 || len(lines) != 2 || !strings.HasPrefix(lines[0], "fedlab: ") || lines[1] != "Run '"+help+"' for usage." {
			t.Errorf("fedlab %v: exit %d, stderr %q; want 2, the message and one line pointing to %s", args, code, stderr, help)
		}
	}
	if code, _, stderr := runCLI(); code != 2 || !strings.HasPrefix(stderr, "usage:") {
		t.Errorf("fedlab alone: exit %d, stderr %q; want 2 and the usage", code, stderr)
	}
}

// TestUsageMistakesSuggest: a misspelled command, flag, kind or component
// is named with the closest valid one.
func TestUsageMistakesSuggest(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"rnu", "x.lua"}, 2, `fedlab: unknown command "rnu" (did you mean "run"?)`},
		{[]string{"run", "x.lua", "--outt", "d"}, 2, `fedlab: run has no flag --outt (did you mean "--out"?); its flags: `},
		{[]string{"table", "d", "--formatt", "md"}, 2, `fedlab: table has no flag --formatt (did you mean "--format"?); its flags: --bold, --call, `},
		{[]string{"list", "regularizr"}, 2, `fedlab: unknown kind "regularizr" (did you mean "regularizer"?); kinds: `},
		{[]string{"describe", "fedavgg"}, 2, `fedlab: unknown component "fedavgg" (did you mean "fedavg"?); run ` + "`fedlab list`"},
		{[]string{"describe", "algo.fedavgg"}, 2, `fedlab: unknown algorithm "fedavgg" (did you mean "fedavg"?); known: `},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("fedlab %v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

func TestErrorsExitOne(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.lua")
	if err := os.WriteFile(bad, []byte("local x = 1\nfedlab.reg.l1{ lamda = 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", bad}, `fedlab: bad.lua:2: regularizer "l1": unknown parameter "lamda"`},
		{[]string{"run", filepath.Join(dir, "missing.lua")}, "fedlab: script " + filepath.Join(dir, "missing.lua") + ": no such file or directory"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(c.args...)
		if code != 1 || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("fedlab %v: exit %d, stderr %q; want 1 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestListAndDescribe(t *testing.T) {
	code, out, _ := runCLI("list", "reg")
	if code != 0 || !strings.Contains(out, "regularizer (fedlab.reg.*)") || !strings.Contains(out, "  l1 ") {
		t.Errorf("list reg: exit %d, output %q", code, out)
	}
	code, out, _ = runCLI("describe", "reg.l1")
	if code != 0 || !strings.Contains(out, "fedlab.reg.l1{ lambda = ... }") || !strings.Contains(out, "required") {
		t.Errorf("describe reg.l1: exit %d, output %q", code, out)
	}
}

func TestRunScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "tiny.lua")
	src := `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 4, samples = 16 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.01 } }
local runs = fedlab.compare{ problem = problem, rounds = 5, local_steps = 2, seeds = { 1, 2 },
  algorithms = { fedlab.algo.fedavg{ eta_c = 0.05 }, fedlab.algo.fedmid{ eta_c = 0.05 } },
  metrics = { "objective" } }
fedlab.table(runs)
fedlab.csv(runs, "tiny.csv")
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("run", script, "--out", filepath.Join(dir, "results"), "--workers", "2", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "fedmid") || !strings.Contains(out, " ± ") {
		t.Errorf("table output %q", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "results", "tiny.csv")); err != nil {
		t.Error(err)
	}
}

// TestScriptMustBeABoundedRegularFile: fedlab run /dev/zero read without
// end; a device, a directory or a named pipe is refused before reading.
func TestScriptMustBeABoundedRegularFile(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "/dev/zero", "--out", filepath.Join(dir, "o")}, "fedlab: script /dev/zero is not a regular file (a character device); a script is a Lua text file\n"},
		{[]string{"run", dir, "--out", filepath.Join(dir, "o")}, "fedlab: script " + dir + " is a directory, not a file\n"},
		{[]string{"report", dir, "--script", "/dev/zero"}, "fedlab: --script: script /dev/zero is not a regular file (a character device); a script is a Lua text file\n"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != 1 || stderr != c.want {
			t.Errorf("fedlab %v: exit %d, stderr %q; want 1 and %q", c.args, code, stderr, c.want)
		}
	}
}
