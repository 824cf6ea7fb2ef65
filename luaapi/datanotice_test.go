package luaapi

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The writers a LEAF dataset's labels filter drops are named on the
// script's stderr, once per dataset, like fedlab's other notices; stdout
// holds what the script prints.
func TestDroppedWritersReachStderr(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "train.json")
	os.WriteFile(data, []byte(`{"users":["a","b","c"],"user_data":{"a":{"x":[[0,1],[1,0]],"y":[0,1]},"b":{"x":[[1,1]],"y":[2]},"c":{"x":[[0,0]],"y":[1]}}}`), 0o644)
	path := filepath.Join(dir, "script.lua")
	os.WriteFile(path, []byte(fmt.Sprintf(`local d = fedlab.data.leaf{ path = %q, classes = 2, labels = {0, 1} }
print(fedlab.info(d).clients)
print(fedlab.info(d).clients)
`, data)), 0o644)
	var stdout, stderr bytes.Buffer
	if _, err := RunFile(path, Options{Stdout: &stdout, Stderr: &stderr, Out: filepath.Join(dir, "out"), Quiet: true}); err != nil {
		t.Fatal(err)
	}
	if stdout.String() != "2\n2\n" {
		t.Errorf("stdout %q, expected the 2 clients left, twice", stdout.String())
	}
	want := "fedlab: leaf: " + data + `: 1 of 3 writers dropped (no sample with a label in labels = {0, 1}): "b"` + "\n"
	if got := stderr.String(); strings.Count(got, want) != 1 {
		t.Errorf("stderr\n%q\nexpected once\n%q", got, want)
	}
}
