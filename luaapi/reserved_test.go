package luaapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryRunDirectoryEntryIsReserved: a script cannot write any of the
// run directory's own entries (rundir.Reserved) with fedlab.csv,
// fedlab.save_model or fedlab.plot, with or without --unsafe. Under
// -short each entry is tried with one of the calls, in one of the modes,
// in turn (10 scripts instead of 60: every entry, every call and both
// modes).
func TestEveryRunDirectoryEntryIsReserved(t *testing.T) {
	run := strings.ReplaceAll(runSrc, "LABEL", `"a"`)
	names := []string{"manifest.json", "records.csv", "script.lua", "fedlab.lock", "results", "models", "optima", "plots", "report.html", "checkpoints"}
	for i, name := range names {
		calls := []string{
			`fedlab.csv(r, "` + name + `")`,
			`fedlab.save_model(r, "` + name + `/x.txt")`,
			`fedlab.plot(r, { metric = "test_objective", file = "./` + name + `" })`,
		}
		modes := []bool{false, true}
		if testing.Short() {
			calls, modes = calls[i%3:i%3+1], modes[i%2:i%2+1]
		}
		for _, call := range calls {
			for _, unsafe := range modes {
				dir, err := sandboxScript(t, run+call+"\n", Options{Unsafe: unsafe})
				want := `is reserved in the run directory (fedlab keeps manifest.json, records.csv, script.lua, fedlab.lock, results, models, optima, plots, report.html, checkpoints, claims.json there)`
				if err == nil || !strings.HasPrefix(err.Error(), "script.lua:4: ") || !strings.Contains(err.Error(), want) {
					t.Errorf("%s (unsafe %v): error %v, want script.lua:4: … %s", call, unsafe, err, want)
				}
				if name == "report.html" || name == "checkpoints" || name == "plots" { // not written by fedlab run
					if _, err := os.Lstat(filepath.Join(dir, "out", name)); err == nil {
						t.Errorf("%s (unsafe %v): %s written", call, unsafe, name)
					}
				}
			}
		}
	}
}

// TestAFileNamedOptimaCannotBreakTheOptimum: a script that tries to write
// a file named optima is refused there, so fedlab.optimum still stores
// its optimum (before, the file was written and fedlab.optimum then
// failed with "not a directory").
func TestAFileNamedOptimaCannotBreakTheOptimum(t *testing.T) {
	src := strings.ReplaceAll(runSrc, "LABEL", `"a"`) + `local ok, err = pcall(fedlab.csv, r, "optima")
assert(not ok and string.find(err, '"optima" is reserved', 1, true), err)
local opt = fedlab.optimum(problem)
assert(opt.objective > 0)
`
	dir, err := sandboxScript(t, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "out", "optima", "*.json"))
	if len(files) != 1 {
		t.Fatalf("stored optima: %v, want one", files)
	}
}
