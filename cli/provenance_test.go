package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/rundir"
)

// TestRunDirectoryKeepsWhatRan: the run directory keeps the script's copy,
// its absolute path, the --set values, the command line and the working
// directory, so that `fedlab report DIR` shows the script from any
// directory. Before, the manifest kept the script path as typed
// (relative), no --set values, and a report made elsewhere said the
// script was not found.
func TestRunDirectoryKeepsWhatRan(t *testing.T) {
	exp := t.TempDir()
	src := "local eta = fedlab.args.eta or 0.01\n" + prelude + runOK
	writeFixture(t, filepath.Join(exp, "scripts", "s.lua"), src)
	t.Chdir(exp)
	args := []string{"run", "scripts/s.lua", "--out", "out", "--set", "eta=0.02", "--quiet"}
	if code, _, stderr := runCLI(args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, ok, err := rundir.ReadManifest("out")
	if err != nil || !ok {
		t.Fatalf("manifest: %v %v", ok, err)
	}
	want := &rundir.Invocation{CommandLine: append([]string{"fedlab"}, args...), Program: "fedlab", WorkDir: exp,
		Set: map[string]string{"eta": "0.02"}, ScriptCopy: "script.lua"}
	if m.Script.Path != filepath.Join(exp, "scripts", "s.lua") || !reflect.DeepEqual(m.Invocation, want) {
		t.Errorf("manifest: script %q, invocation %+v; want %s and %+v", m.Script.Path, m.Invocation, filepath.Join(exp, "scripts", "s.lua"), want)
	}
	if copied := read(t, "out", "script.lua"); copied != src {
		t.Errorf("script.lua = %q, want the script", copied)
	}
	if !strings.Contains(read(t, "out", "manifest.json"), `"fedlab_version"`) {
		t.Error("the manifest does not record the build")
	}

	// the report, from another directory, with the script gone: the copy
	elsewhere := t.TempDir()
	t.Chdir(elsewhere)
	if err := os.Remove(filepath.Join(exp, "scripts", "s.lua")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(exp, "out")
	if code, _, stderr := runCLI("report", out, "--out", "r.html"); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	page := read(t, elsewhere, "r.html")
	for _, w := range []string{"local eta = fedlab.args.eta or 0.01", filepath.Join(out, "script.lua") + ", the copy kept in the run directory of " + filepath.Join(exp, "scripts", "s.lua"),
		"run as fedlab run scripts/s.lua --out out --set eta=0.02 --quiet in " + exp} {
		if !strings.Contains(page, w) {
			t.Errorf("the report lacks %q", w)
		}
	}

	// a directory written before these fields: still read, the script looked up as before
	var old map[string]any
	if err := json.Unmarshal([]byte(read(t, out, "manifest.json")), &old); err != nil {
		t.Fatal(err)
	}
	delete(old, "invocation")
	old["script"].(map[string]any)["path"] = "scripts/s.lua"
	b, _ := json.Marshal(old)
	os.WriteFile(filepath.Join(out, "manifest.json"), b, 0o644)
	os.Remove(filepath.Join(out, "script.lua"))
	if code, _, stderr := runCLI("report", out, "--out", "old.html"); code != 0 {
		t.Fatalf("report of an old directory: exit %d: %s", code, stderr)
	}
	if page := read(t, elsewhere, "old.html"); !strings.Contains(page, "scripts/s.lua not found (SHA-256") {
		t.Errorf("the report of an old directory does not say the script is not found")
	}
}
