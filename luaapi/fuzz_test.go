package luaapi

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzLuaValueDecoder gives arbitrary Lua expressions to the decoders of
// component parameters and call tables: every outcome is a result or an
// error at a script line, never a Go panic ("internal error"), a runtime
// error of fedlab or a stack trace.
func FuzzLuaValueDecoder(f *testing.F) {
	for _, s := range []string{`{}`, `{ eta_c = 0.1 }`, `{ eta_c = -1 }`, `{ eta_c = 0/0 }`, `{ eta_c = 1/0 }`,
		`{ eta_c = function(r) return 0/0 end }`, `{ eta_c = { 1, 2 } }`, `{ eta_c = "x" }`, `{ 1, 2, 3 }`,
		`{ clients = 2^62 }`, `{ clients = -0 }`, `{ samples = 1e300 }`, `{ label = "a\nb" }`, `{ [{}] = 1 }`,
		`{ eta_c = fedlab.schedule.test_step{ start = 1 } }`, `setmetatable({}, { __index = function() error("x") end })`,
		`{ eta_c = setmetatable({}, { __call = function() return 1 end }) }`, `nil`, `42`, `"str"`,
		`{ problem = 1, rounds = 1 }`, `{ rounds = 1e12, local_steps = 1 }`, `{ seeds = { 1, 1 } }`, `{ seeds = {} }`,
		`{ algorithms = { 1 } }`, `{ metrics = { "nope" } }`, `{ grid = { eta_c = {} } }`, `error({ code = 1 })`} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, expr string) {
		if strings.ContainsAny(expr, "\x00") {
			return
		}
		src := problemSrc + "local v = " + expr + "\n" +
			"pcall(fedlab.algo.test_gd, v)\npcall(fedlab.data.test_data, v)\npcall(fedlab.schedule.test_step, v)\n" +
			"if type(v) == 'table' then\n  v.problem = v.problem or problem\n  pcall(fedlab.run, v)\n  pcall(fedlab.sweep, v)\nend\n" +
			"fedlab.algo.test_gd(v)\n"
		path := filepath.Join(dir, "script.lua")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var out strings.Builder
		_, err := RunFile(path, Options{Out: filepath.Join(dir, "out"), Fresh: true, Quiet: true, Stdout: &out, Stderr: &out,
			Context: ctx, MaxMemory: 256 << 20})
		if err == nil {
			return
		}
		msg := err.Error()
		for _, bad := range []string{"internal error", "runtime error", "goroutine", "panic", "stack traceback"} {
			if strings.Contains(msg, bad) {
				t.Fatalf("%q: error %q", expr, msg)
			}
		}
		if !strings.HasPrefix(msg, "script.lua") {
			t.Fatalf("%q: error without the script: %q", expr, msg)
		}
	})
}
