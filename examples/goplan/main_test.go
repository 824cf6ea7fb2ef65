package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/luaapi"
)

// The Go program runs its plans into a run directory; run again, it reuses
// every run. Its Lua counterpart plans the same runs (same keys) and
// writes the same records and tables.
func TestGoPlanRunsLikeItsLuaScript(t *testing.T) {
	tmp := t.TempDir()
	out := filepath.Join(tmp, "go")
	var tables bytes.Buffer
	sum, err := run(out, &tables, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Runs != 10 || sum.Ran != 10 {
		t.Errorf("%s, want 10 runs executed (the sweep reuses the comparison's FedDualAvg runs)", sum)
	}
	if again, err := run(out, io.Discard, io.Discard); err != nil || again.Ran != 0 || again.Reused != 10 {
		t.Errorf("second run: %s, %v; want every run reused", again, err)
	}
	lua := filepath.Join(tmp, "lua")
	var luaTables bytes.Buffer
	if _, err := luaapi.RunFile("goplan.lua", luaapi.Options{Out: lua, Quiet: true, Stdout: &luaTables, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"records.csv"} {
		a, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(lua, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s of the Go plan and of the Lua script differ", f)
		}
	}
	if tables.String() != luaTables.String() {
		t.Errorf("tables differ:\n%s\nLua:\n%s", tables.String(), luaTables.String())
	}
	if !strings.Contains(tables.String(), "C-FedDA stages") {
		t.Errorf("no pipeline table:\n%s", tables.String())
	}
}
