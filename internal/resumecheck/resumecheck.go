// Package resumecheck holds the test of the resume line that an
// interrupted fedlab run prints, shared by the tests of cli (fedlab
// itself) and of examples/mybinary (one's own binary built with cli.Main).
// Import it only from _test.go files.
package resumecheck

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// resumeScript is one FedMid run of --set rounds rounds (20 by default),
// evaluated every --set eval rounds (10 by default): without its --set
// values it plans another run.
const resumeScript = `local data = fedlab.data.lasso{ variant = "custom", dim = 20, support = 4, clients = 6, samples = 20, seed = 1 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{ half = false }, reg = fedlab.reg.l1{ lambda = 0.05 } }
fedlab.compare{ problem = problem, rounds = fedlab.args.rounds or 20, clients_per_round = 3, batch = 5, epochs = 1,
  eval_every = fedlab.args.eval or 10, seeds = { 1 }, metrics = { "objective" }, algorithms = { fedlab.algo.fedmid{ eta_c = 0.01 } } }
`

// asProgram runs the program bin with args in dir (env added), and
// returns its exit status and standard error.
func asProgram(t *testing.T, dir string, env []string, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stderr.String()
	}
	t.Fatalf("%s: %v", bin, err)
	return 0, ""
}

// Check is the test of the printed resume line, for a program
// bin (with env) that runs fedlab's command line: a run with --set values,
// --max-memory, --unsafe and an --out with a space is stopped by --timeout
// after a checkpoint; the printed line is exactly the invocation (bin as
// invoked, the script, --out, every --set, the plan-changing flags, quoted
// for a POSIX shell); run through sh -c it resumes the run from its
// checkpoint, and the records and model equal those of an uninterrupted
// run bit for bit.
func Check(t *testing.T, dir string, env []string, bin string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "r.lua"), []byte(resumeScript), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "r.lua", "--out", "runs/a b", "--set", "rounds=100000", "--set", "eval=5000", "--max-memory", "1GB", "--unsafe", "--quiet"}
	var stderr string
	var code int
	for _, timeout := range []string{"300ms", "600ms", "1200ms", "2400ms", "4800ms"} {
		os.RemoveAll(filepath.Join(dir, "runs"))
		code, stderr = asProgram(t, dir, env, bin, append(args, "--timeout", timeout)...)
		if code == 124 && strings.Contains(stderr, "(1 saved a checkpoint to continue from)") {
			break
		}
		t.Logf("--timeout %s left no checkpoint (a loaded machine?): exit %d\n%s", timeout, code, stderr)
	}
	if code != 124 {
		t.Fatalf("no --timeout left a checkpoint: exit %d\n%s", code, stderr)
	}
	line := strings.TrimPrefix(stderr[strings.LastIndex(stderr, "fedlab: resume with: "):], "fedlab: resume with: ")
	line = strings.TrimSuffix(line, "\n")
	want := shellWord(bin) + " run r.lua --out 'runs/a b' --set rounds=100000 --set eval=5000 --max-memory 1GB --unsafe"
	if line != want {
		t.Fatalf("resume line\n%s\nwant\n%s", line, want)
	}
	code, stderr = asProgram(t, dir, env, "sh", "-c", line)
	if code != 0 {
		t.Fatalf("sh -c %q: exit %d\n%s", line, code, stderr)
	}
	if !regexp.MustCompile(`\.ckpt: resuming fedmid \(seed 1\) after round [1-9][0-9]* of 100000\n`).MatchString(stderr) {
		t.Errorf("the printed line did not resume from the checkpoint:\n%s", stderr)
	}
	if !strings.Contains(stderr, "1 runs (1 ran) in runs/a b") {
		t.Errorf("the printed line did not complete the run:\n%s", stderr)
	}
	if code, stderr = asProgram(t, dir, env, bin, "run", "r.lua", "--out", "whole", "--set", "rounds=100000", "--set", "eval=5000", "--quiet"); code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, stderr)
	}
	for _, name := range []string{"records.csv"} {
		if readFile(t, filepath.Join(dir, "runs/a b"), name) != readFile(t, filepath.Join(dir, "whole"), name) {
			t.Errorf("%s of the resumed run differs from the uninterrupted run's", name)
		}
	}
	models, _ := os.ReadDir(filepath.Join(dir, "whole", "models"))
	if len(models) != 1 || readFile(t, filepath.Join(dir, "runs/a b"), filepath.Join("models", models[0].Name())) != readFile(t, filepath.Join(dir, "whole"), filepath.Join("models", models[0].Name())) {
		t.Errorf("the resumed run's model differs from the uninterrupted run's (%d models)", len(models))
	}
}

// shellWord quotes a program path the way the resume line does.
func shellWord(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_-+:@%,=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// readFile is the text of dir/name.
func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
