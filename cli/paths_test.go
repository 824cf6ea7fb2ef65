package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// heartScript is the reported script: its data path comes from --set, with
// a default written in the script.
const heartScript = `local path = fedlab.args.path or "heart_scale"
local data = fedlab.data.svmlight{ path = path, clients = 1 }
print("samples " .. data:samples())
`

// svmLines is an svmlight file of n samples.
func svmLines(n int) string {
	return strings.Repeat("+1 1:0.5 2:1\n", n)
}

// TestCommandLinePathsResolveAgainstTheWorkingDirectory reproduces the
// report: `cd exp/data; fedlab run ../scripts/heart_l1.lua --set
// path=heart_scale` read ../scripts/heart_scale (the script's directory),
// silently, although the user named the file in the directory the command
// was typed in. A path typed on the command line now resolves against the
// working directory; a path written in the script against the script's
// directory; a name that could be either file stops the run naming both.
func TestCommandLinePathsResolveAgainstTheWorkingDirectory(t *testing.T) {
	exp := t.TempDir()
	data, scripts := filepath.Join(exp, "data"), filepath.Join(exp, "scripts")
	writeFixture(t, filepath.Join(scripts, "heart_l1.lua"), heartScript)
	writeFixture(t, filepath.Join(data, "heart_scale"), svmLines(3))
	t.Chdir(data)
	run := func(args ...string) (int, string, string) {
		return runCLI(append([]string{"run", "../scripts/heart_l1.lua", "--out", filepath.Join(exp, "out"), "--fresh", "--quiet"}, args...)...)
	}

	// only the working directory holds heart_scale: the file typed is read
	code, stdout, stderr := run("--set", "path=heart_scale")
	if code != 0 || stdout != "samples 3\n" {
		t.Errorf("--set path=heart_scale with ./heart_scale: exit %d, stdout %q, stderr %q; want the 3 samples of ./heart_scale", code, stdout, stderr)
	}

	// both directories hold a different heart_scale: the run stops and names both
	writeFixture(t, filepath.Join(scripts, "heart_scale"), svmLines(5))
	code, stdout, stderr = run("--set", "path=heart_scale")
	want := `fedlab: heart_l1.lua:2: dataset "svmlight": parameter "path" = "heart_scale" names two different files: ` +
		filepath.Join(data, "heart_scale") + " and " + filepath.Join("..", "scripts", "heart_scale") +
		"; typed on the command line (--set), it resolves against the working directory, but the other may be the one meant: give an absolute path to choose"
	if code != 1 || stdout != "" || !strings.HasPrefix(stderr, want) {
		t.Errorf("two heart_scale files: exit %d, stdout %q, stderr\n  %q\nwant 1 and\n  %q", code, stdout, stderr, want)
	}
	// an absolute path chooses
	code, stdout, stderr = run("--set", "path="+filepath.Join(data, "heart_scale"))
	if code != 0 || stdout != "samples 3\n" {
		t.Errorf("absolute path: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// the path written in the script (no --set) also stops on two files ...
	code, _, stderr = run()
	if code != 1 || !strings.Contains(stderr, "written in the script, it resolves against the script's directory") {
		t.Errorf("two heart_scale files, the script's default: exit %d, stderr %q", code, stderr)
	}
	// ... and reads the script's directory when the name is only there
	if err := os.Remove(filepath.Join(data, "heart_scale")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = run()
	if code != 0 || stdout != "samples 5\n" {
		t.Errorf("the script's default: exit %d, stdout %q, stderr %q; want the 5 samples of ../scripts/heart_scale", code, stdout, stderr)
	}
}
