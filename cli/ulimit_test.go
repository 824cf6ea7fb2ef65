//go:build !race

// The race detector maps terabytes of shadow memory, which a `ulimit -v`
// forbids, so this test runs without it.

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAddressSpaceLimitStopsLuaBombsCleanly: under `ulimit -v 4000000`
// (as on many HPC nodes) a string-doubling loop, a growing table, a
// string.rep loop, one concatenation of two 1 GB strings and a table.concat
// of 2.1 GB stop with the memory-ceiling error, naming RLIMIT_AS, instead of
// the Go runtime's "fatal error: out of memory" (which they gave when the
// ceiling was half of RLIMIT_AS and counted only the live heap, and `..`
// allocated unchecked: the doubling of a 1 GiB string could not be mapped
// beside what the runtime held).
func TestAddressSpaceLimitStopsLuaBombsCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 1 GB per case")
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to set ulimit -v")
	}
	dir := t.TempDir()
	for name, src := range map[string]string{
		"doubling.lua": "local s = 'x'\nwhile true do s = s .. s end\n",
		"table.lua":    "local t, i = {}, 0\nwhile true do i = i + 1; t[i] = { i, i, i } end\n",
		"rep.lua":      "local t = {}\nwhile true do t[#t + 1] = string.rep('x', 1e8) end\n",
		// one allocation beyond the headroom: refused before it is made (concat.go)
		"concat.lua":  "local s = string.rep('x', 1e9)\ns = s .. s\n",
		"tconcat.lua": "local s = string.rep('x', 3e8)\nlocal u = table.concat({ s, s, s, s, s, s, s })\n",
	} {
		script := filepath.Join(dir, name)
		if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		args, _ := json.Marshal([]string{"run", script, "--out", filepath.Join(dir, "out_"+name), "--quiet"})
		cmd := exec.Command("sh", "-c", `ulimit -v 4000000 && exec "$0" -test.run='^$'`, os.Args[0])
		cmd.Env = append(os.Environ(), "FEDLAB_TEST_ARGS="+string(args))
		out, err := cmd.CombinedOutput()
		code := -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		text := string(out)
		want := name + ":2: memory ceiling reached"
		if code != 1 || !strings.Contains(text, want) || !strings.Contains(text, "a quarter of RLIMIT_AS (ulimit -v)") ||
			strings.Contains(text, "fatal error") || strings.Contains(text, "goroutine ") {
			t.Errorf("%s under ulimit -v: exit %d, want 1 and %q naming RLIMIT_AS; output:\n%.600s", name, code, want, text)
		}
	}
}
