package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/registry"
)

// tinyProblem is a problem small enough for tests that run a few rounds.
const tinyProblem = `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
`

// scriptError runs script (with the extra command-line args) and returns
// the exit status and the first line of standard error.
func scriptError(t *testing.T, script string, args ...string) (int, string) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "s.lua")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(append([]string{"run", path, "--out", filepath.Join(dir, "out"), "--quiet"}, args...)...)
	first, _, _ := strings.Cut(stderr, "\n")
	return code, first
}

// TestMisspelledComponentsSuggestInEveryKind: fedlab.KIND.NAME misspelled
// in a script names the closest component of that kind (it listed 31
// algorithms without a suggestion), for every kind.
func TestMisspelledComponentsSuggestInEveryKind(t *testing.T) {
	for _, k := range registry.Kinds {
		names := registry.Names(k)
		if len(names) == 0 {
			continue
		}
		name := names[0]
		for _, n := range names { // the longest name: a doubled last letter is one edit from it and from no other
			if len(n) > len(name) {
				name = n
			}
		}
		bad := name + name[len(name)-1:]
		ns := luaapi.Namespace(k)
		code, first := scriptError(t, fmt.Sprintf("fedlab.%s.%s{}\n", ns, bad))
		want := fmt.Sprintf(`fedlab: s.lua:1: fedlab.%s.%s: unknown %s %q (did you mean %q?); known: %s`, ns, bad, k, bad, name, strings.Join(names, ", "))
		if code != 1 || first != want {
			t.Errorf("kind %s: exit %d\n  %s\nwant 1 and\n  %s", k, code, first, want)
		}
	}
}

// TestMisspelledNamesInScriptsSuggest: metrics (of a call, of a sweep's
// selection, of fedlab.table and fedlab.plot), call keys, fedlab.run's
// keys, component parameters, swept keys, choices and fedlab's fields
// name the closest valid name and the valid names.
func TestMisspelledNamesInScriptsSuggest(t *testing.T) {
	run := "local runs = fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 2, local_steps = 1, metrics = { \"objective\" } }\n"
	for _, c := range []struct{ what, script, want string }{
		{"metric of a call", "fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 2, local_steps = 1, metrics = { \"opt_gapp\" } }\n",
			`s.lua:3: unknown metric "opt_gapp" (did you mean "opt_gap"?); known: `},
		{"selection metric", "fedlab.sweep{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 2, local_steps = 1, metrics = { \"objective\" }, grid = { eta_c = { 0.1, 0.2 } }, select = { metric = \"objectiv\", mode = \"min\" } }\n",
			`s.lua:3: fedlab.sweep: selection metric "objectiv" is not measured (did you mean "objective"?); metrics: objective`},
		{"metric of fedlab.table", run + "fedlab.table(runs, { metrics = { \"objectiv\" } })\n",
			`s.lua:4: fedlab.table: no metric "objectiv" in these runs (did you mean "objective"?); they have: objective`},
		{"metric of fedlab.plot", run + "fedlab.plot(runs, { metric = \"objectiv\" })\n",
			`s.lua:4: fedlab.plot: no metric "objectiv" in these runs (did you mean "objective"?); they have: objective`},
		{"call key", "fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, roundz = 2 }\n",
			`s.lua:3: fedlab.compare: unknown key "roundz" (did you mean "rounds"?); valid keys: `},
		{"run key", "fedlab.run{ problem = p, algorithm = fedlab.algo.fedavg{}, rounds = 2, sed = 1 }\n",
			`s.lua:3: fedlab.run: unknown key "sed" (did you mean "seed"?); valid keys: `},
		{"component parameter", "fedlab.reg.l1{ lamda = 1 }\n",
			`s.lua:3: regularizer "l1": unknown parameter "lamda" (did you mean "lambda"?); valid keys: lambda`},
		{"swept key", "fedlab.sweep{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 2, local_steps = 1, metrics = { \"objective\" }, grid = { eta_cc = { 0.1 } }, select = { metric = \"objective\", mode = \"min\" } }\n",
			`s.lua:3: fedlab.sweep: swept key "eta_cc": algorithm "fedavg" has no parameter "eta_cc" (did you mean "eta_c"?); valid keys: `},
		{"choice", "fedlab.data.lasso{ variant = \"ii\" }\n",
			`s.lua:3: dataset "lasso": parameter "variant": "ii" is not one of `},
		{"fedlab field", "fedlab.comapre{}\n",
			`s.lua:3: fedlab has no field "comapre" (did you mean "compare"?); its fields: `},
	} {
		code, first := scriptError(t, tinyProblem+c.script)
		if code != 1 || !strings.HasPrefix(first, "fedlab: "+c.want) {
			t.Errorf("%s: exit %d\n  %s\nwant 1 and\n  fedlab: %s", c.what, code, first, c.want)
		}
	}
	if _, first := scriptError(t, tinyProblem+"fedlab.data.lasso{ variant = \"ii\" }\n"); !strings.HasSuffix(first, `(did you mean "II"?)`) {
		t.Errorf("choice: %s, want the suggestion II", first)
	}
}

// TestMisspelledNamesOnTheCommandLineSuggest: --set keys, flags,
// commands, kinds, describe's names and the metrics, formats and axes of
// table, plot and report name the closest valid name, and exit 2 (a
// command-line mistake).
func TestMisspelledNamesOnTheCommandLineSuggest(t *testing.T) {
	for _, c := range []struct {
		script string
		set    string
		want   string
	}{
		{"local r = fedlab.args.rounds or 2\n", "round=5", `s.lua: --set round=5: the script does not read fedlab.args.round (did you mean "rounds"?) (it reads rounds; `},
		{"local a = fedlab.params{ rounds = 2, path = 'x' }\n", "rond=5", `s.lua:1: fedlab.params: --set rond=5: the script has no parameter "rond" (did you mean "rounds"?); its parameters: path, rounds`},
	} {
		code, first := scriptError(t, c.script, "--set", c.set)
		if code != 2 || !strings.HasPrefix(first, "fedlab: "+c.want) {
			t.Errorf("--set %s: exit %d\n  %s\nwant 2 and\n  fedlab: %s", c.set, code, first, c.want)
		}
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := tinyProblem + "fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 2, local_steps = 1, metrics = { \"objective\", \"l2_error\" } }\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI("run", script, "--out", out, "--quiet"); code != 0 {
		t.Fatal(stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rnu"}, `unknown command "rnu" (did you mean "run"?)`},
		{[]string{"help", "tabel"}, `unknown command "tabel" (did you mean "table"?)`},
		{[]string{"run", script, "--sets", "a=1"}, `run has no flag --sets (did you mean "--set"?); its flags: `},
		{[]string{"plot", out, "--panel"}, `plot has no flag --panel (did you mean "--panels"?); its flags: `},
		{[]string{"list", "regularizr"}, `unknown kind "regularizr" (did you mean "regularizer"?); kinds: `},
		{[]string{"describe", "feddualavgg"}, `unknown component "feddualavgg" (did you mean "feddualavg"?); run ` + "`fedlab list` to see them all"},
		{[]string{"describe", "algo.feddualav"}, `unknown algorithm "feddualav" (did you mean "feddualavg"?); known: `},
		{[]string{"describe", "rge.l1"}, `unknown kind "rge" (did you mean "reg"?); kinds: `},
		{[]string{"table", out, "--metric", "l2_eror"}, `--metric l2_eror: no run of ` + out + ` records it (did you mean "l2_error"?); the runs record: objective, l2_error`},
		{[]string{"table", out, "--format", "latx"}, `--format latx: want one of text, md, latex, csv (did you mean "latex"?)`},
		{[]string{"plot", out, "--metric", "objectiv"}, `--metric objectiv: no run of ` + out + ` records it (did you mean "objective"?); the runs record: objective, l2_error`},
		{[]string{"plot", out, "--format", "sgv"}, `--format sgv: want one of png, svg, pdf (did you mean "svg"?)`},
		{[]string{"plot", out, "--x", "rond"}, `--x: "rond" is neither an axis (round, comm, comm_rounds, samples, time) nor a metric the runs measured (did you mean "round"?); they have: objective, l2_error`},
		{[]string{"report", out, "--x", "l2_eror"}, `--x: "l2_eror" is neither an axis (round, comm, comm_rounds, samples, time) nor a metric the runs measured (did you mean "l2_error"?); they have: objective, l2_error`},
	} {
		code, _, stderr := runCLI(c.args...)
		if first, _, _ := strings.Cut(stderr, "\n"); code != 2 || !strings.HasPrefix(first, "fedlab: "+c.want) {
			t.Errorf("fedlab %v: exit %d\n  %s\nwant 2 and\n  fedlab: %s", c.args, code, first, c.want)
		}
	}
}
