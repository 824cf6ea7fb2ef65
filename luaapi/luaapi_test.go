package luaapi

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/fedlabtest"
)

// script runs src as script.lua and returns its standard output.
func script(t *testing.T, src string, opts Options) (string, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "script.lua")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	opts.Stdout = &out
	opts.Stderr = &out
	if opts.Out == "" {
		opts.Out = filepath.Join(dir, "out")
	}
	_, err := RunFile(path, opts)
	return out.String(), err
}

// mustFail runs src and checks the error begins with prefix and contains every want.
func mustFail(t *testing.T, src, prefix string, want ...string) {
	t.Helper()
	_, err := script(t, src, Options{})
	if err == nil {
		t.Fatalf("script succeeded, want an error beginning %q", prefix)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		t.Errorf("error %q does not begin with %q", msg, prefix)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q lacks %q", msg, w)
		}
	}
	if strings.Contains(msg, "traceback") || strings.Contains(msg, "goroutine") {
		t.Errorf("error carries a stack trace: %q", msg)
	}
}

const problemSrc = `local data = fedlab.data.test_data{ clients = 4, samples = 8 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.test_squared{}, reg = fedlab.reg.test_l1{ lambda = 0.01 } }
`

func TestSyntaxError(t *testing.T) {
	mustFail(t, "local x = 1\n\nlocal y = = 2\n", "script.lua:3: ", "syntax error")
	mustFail(t, "local x = 1\nif x then\n", "script.lua:2: ", "end of the file")
}

func TestRuntimeError(t *testing.T) {
	mustFail(t, "local x = 1\nlocal y = x + nil\n", "script.lua:2: ", "nil")
	mustFail(t, "\n\nerror('boom')\n", "script.lua:3: boom")
}

func TestMisspelledParameter(t *testing.T) {
	mustFail(t, "local a = 1\nlocal r = fedlab.reg.test_l1{ lamda = 1 }\n", "script.lua:2: ",
		`regularizer "test_l1"`, `unknown parameter "lamda"`, `did you mean "lambda"`, "valid keys: lambda")
}

func TestParameterTypesAndRanges(t *testing.T) {
	cases := []struct{ src, want string }{
		{`fedlab.data.test_data{ clients = "four" }`, `dataset "test_data": parameter "clients": expected an integer, got the string "four"`},
		{`fedlab.data.test_data{ clients = 2.5 }`, `parameter "clients": expected an integer, got 2.5`},
		{`fedlab.data.test_data{ clients = 0 }`, `parameter "clients" = 0 is below its minimum 1`},
		{`fedlab.data.test_data{ clients = function(r) return 1 end }`, "functions are allowed only for schedule parameters"},
		{`fedlab.algo.test_gd{ eta_c = -1 }`, `algorithm "test_gd": parameter "eta_c" = -1 is below its minimum 0`},
		{`fedlab.algo.test_gd{ eta_c = {1, 2} }`, `expected a number, a schedule or a function of the round, got a list`},
		{`fedlab.algo.test_gd{ eta_c = {a = 1} }`, `parameter "eta_c": expected a list, got a table with the key "a"`},
		{`fedlab.algo.test_gd{ 0.1 }`, "parameters are named"},
		{`fedlab.algo.nope{}`, `fedlab.algo.nope: unknown algorithm "nope"; known: test_gd`},
		{`fedlab.compar{}`, `fedlab has no field "compar"`},
		{`fedlab.algo.test_gd{ label = 3 }`, `key "label": expected a string`},
		{`fedlab.algo.test_gd(1)`, "fedlab.algo.test_gd: expected a table of parameters, got the number 1"},
		{`fedlab.schedule.test_step{ start = 1, every = 0 }`, `schedule "test_step": parameter "every" = 0 is below its minimum 1`},
		{`fedlab.algo.test_gd{ fail = fedlab.schedule.test_step{ start = 1 } }`, "schedules are allowed only for schedule parameters"},
	}
	for _, c := range cases {
		mustFail(t, "local x = 1\n"+c.src+"\n", "script.lua:2: ", c.want)
	}
}

func TestSettingsAreStrict(t *testing.T) {
	run := problemSrc + "fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, local_steps = 1, %s }\n"
	cases := []struct{ settings, want string }{
		{"round = 5", `fedlab.run: unknown key "round" (did you mean "rounds"?); valid keys: algorithm, seed, problem, rounds`},
		{"rounds = 2.5", `fedlab.run: key "rounds": expected an integer, got 2.5`},
		{"rounds = 2, init = 'ones'", `key "init": "ones" is not one of default, zeros, normal, kaiming_uniform`},
		{"rounds = 2, metrics = {'nope'}", `unknown metric "nope"`},
		{"rounds = 2, metrics = {fedlab.reg.test_l1{}}", `key "metrics" element 1: expected a metric (from fedlab.metric.*), got regularizer "test_l1"`},
		{"rounds = 2, seed = -1", `key "seed": expected an integer ≥ 0, got -1`},
		{"rounds = 2, problem = 3", `key "problem": expected a problem`},
	}
	for _, c := range cases {
		src := strings.Replace(run, "problem = problem, ", "", 1)
		if !strings.Contains(c.settings, "problem =") {
			src = run
		}
		mustFail(t, strings.Replace(src, "%s", c.settings, 1), "script.lua:3: ", c.want)
	}
	mustFail(t, problemSrc+"fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 2 }\n",
		"script.lua:3: ", "give local_steps or epochs")
}

func TestLuaFunctionSchedulesAreTabulated(t *testing.T) {
	rec := fedlabtest.NewRecorder()
	out, err := script(t, `local data = fedlab.data.test_data{}
local reg = fedlab.reg.test_l1{ lambda = function(r) return (r + 1) / 10 end }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.test_squared{}, reg = reg }
local run = fedlab.run{ problem = problem, rounds = 4, local_steps = 1, eval_every = 1,
  metrics = { "test_lambda" },
  algorithm = fedlab.algo.`+rec.Name()+`{ eta_s = function(r) return 1 / (r + 1) end } }
for _, rec in ipairs(run.records) do print(rec.round, rec.test_lambda) end
print(#run.params.eta_s, run.params.eta_c)
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// λ of round r is evaluated after round r (and λ(0) before round 0)
	want := "0\t0.1\n1\t0.1\n2\t0.2\n3\t0.3\n4\t0.4\n4\t0.1\n"
	if out != want {
		t.Errorf("output:\n%s\nwant:\n%s", out, want)
	}
	steps := rec.Steps()
	wantSteps := []float64{1, 0.5, 1.0 / 3, 0.25}
	if len(steps) != len(wantSteps) {
		t.Fatalf("server steps %v, want %v", steps, wantSteps)
	}
	for i := range steps {
		if steps[i] != wantSteps[i] {
			t.Fatalf("server steps %v, want %v", steps, wantSteps)
		}
	}
}

func TestScheduleFunctionErrors(t *testing.T) {
	body := problemSrc + `local bad = fedlab.algo.test_gd{
  eta_s = function(r)
    if r == 2 then return r + nil end
    return 1
  end }
fedlab.run{ problem = problem, algorithm = bad, rounds = 4, local_steps = 1, metrics = {} }
`
	mustFail(t, body, "script.lua:5: ", "nil", `algorithm "test_gd" parameter "eta_s", at round 2`)
	mustFail(t, problemSrc+`local bad = fedlab.algo.test_gd{ eta_s = function(r) return "x" end }
fedlab.run{ problem = problem, algorithm = bad, rounds = 4, local_steps = 1, metrics = {} }
`, "script.lua:3: ", `parameter "eta_s": the function returned the string "x" at round 0`)
	mustFail(t, problemSrc+`local bad = fedlab.algo.test_gd{ eta_s = function(r) return -r end }
fedlab.run{ problem = problem, algorithm = bad, rounds = 4, local_steps = 1, metrics = {} }
`, "script.lua:4: ", `parameter "eta_s" = -3 is below its minimum 0`)
}

func TestScheduleComponents(t *testing.T) {
	rec := fedlabtest.NewRecorder()
	_, err := script(t, problemSrc+`local s = fedlab.schedule.test_step{ start = 1, factor = 0.5 }
fedlab.run{ problem = problem, algorithm = fedlab.algo.`+rec.Name()+`{ eta_s = s }, rounds = 3, local_steps = 1, metrics = {} }
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.Steps(); len(got) != 3 || got[0] != 1 || got[1] != 0.5 || got[2] != 0.25 {
		t.Errorf("server steps %v, want [1 0.5 0.25]", got)
	}
}

func TestSandbox(t *testing.T) {
	// the safe state's os, io, package, dofile, loadfile and require say
	// that they are sandboxed and name --unsafe (they were nil, and the
	// error read "attempt to call a non-function object")
	for _, call := range []string{"dofile('x')", "loadfile('x')", "require('os')", "io.open('x')", "os.execute('ls')", "package.loadlib('x')"} {
		name := call[:strings.Index(call, "(")]
		mustFail(t, "\n"+call+"\n", "script.lua:2: "+name+" is not available in the sandbox", "run fedlab with --unsafe to allow it")
	}
	unsafe := "assert(os ~= nil and io ~= nil and dofile ~= nil and require ~= nil)\n"
	if _, err := script(t, unsafe, Options{Unsafe: true}); err != nil {
		t.Errorf("unsafe state: %v", err)
	}
	mustFail(t, "\nos.exit(1)\n", "script.lua:2: os.exit is not available in the sandbox")
}

func TestCompareReturnsRecordsAndReports(t *testing.T) {
	dir := t.TempDir()
	out, err := script(t, problemSrc+`local runs = fedlab.compare{
  problem = problem, rounds = 10, clients_per_round = 2, local_steps = 2, batch = 2, eval_every = 5,
  seeds = { 1, 2 }, metrics = { "test_objective", fedlab.metric.test_lambda{} },
  algorithms = { fedlab.algo.test_gd{ eta_c = 0.1 }, fedlab.algo.test_gd{ eta_c = 0.05, label = "slow" } } }
assert(#runs == 4, "want 4 runs")
for _, r in ipairs(runs) do
  assert(r.status == "done", r.status)
  assert(#r.records == 3, "want 3 records")
  assert(r.records[3].round == 10 and r.final.test_objective == r.records[3].test_objective)
  assert(r.records[3].comm_up > 0 and r.records[3].samples > 0)
end
assert(runs[3].label == "slow" and runs[3].seed == 1 and runs[3].params.eta_c == 0.05 and runs[3].params.eta_s == 1)
assert(runs[1].records[3].test_objective ~= runs[2].records[3].test_objective, "seeds should differ")
fedlab.table(runs, { title = "demo", metrics = { "test_objective" } })
print(fedlab.csv(runs, "runs.csv"))
fedlab.save_model(runs[1], "model.txt")
local w = fedlab.model(runs[1])
print(#w, fedlab.info(data).clients, data:samples(), fedlab.info(problem).dim)
local opt = fedlab.optimum(problem)
assert(opt.objective <= runs[1].final.test_objective + 1e-12 and opt.lambda == 0.01)
`, Options{Out: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"demo (mean ± sample std over 2 seeds)\n", "test_gd", "slow", " ± ", filepath.Join(dir, "runs.csv"), "3\t4\t32\t3\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	f, err := os.Open(filepath.Join(dir, "runs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+4*3 {
		t.Errorf("CSV has %d rows, want 13", len(rows))
	}
	if _, err := os.Stat(filepath.Join(dir, "model.txt")); err != nil {
		t.Errorf("model not saved: %v", err)
	}
}

func TestOutputArgumentErrors(t *testing.T) {
	mustFail(t, "\nfedlab.table({ 1 })\n", "script.lua:2: ", "fedlab.table: expected run results")
	mustFail(t, "\nfedlab.csv({}, 'x.csv')\n", "script.lua:2: ", "fedlab.csv: expected run results")
	mustFail(t, problemSrc+`local r = fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 1, local_steps = 1, metrics = { "test_objective" } }
fedlab.table(r, { round = { 1 } })
`, "script.lua:4: ", `fedlab.table: unknown key "round" (did you mean "rounds"?); valid keys: rounds, metrics, title, transpose`)
}

func TestFailedRunsDoNotStopTheScript(t *testing.T) {
	out, err := script(t, problemSrc+`local runs = fedlab.compare{ problem = problem, rounds = 3, local_steps = 1, metrics = { "test_objective" },
  algorithms = { fedlab.algo.test_gd{ fail = true }, fedlab.algo.test_gd{ eta_c = 1e200, label = "wild" } } }
print(runs[1].status, runs[1].error ~= nil, runs[2].status, runs[2].diverged_at)
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "failed\ttrue\tdiverged\t") {
		t.Errorf("output %q", out)
	}
}

// TestInfoNamesTheStorage: fedlab.info says how a dataset holds its
// features: LEAF files of pixel levels stay 8-bit, one value that is not
// a level makes them float64, sparse data are sparse.
func TestInfoNamesTheStorage(t *testing.T) {
	dir := t.TempDir()
	pix, flt := filepath.Join(dir, "pix.json"), filepath.Join(dir, "float.json")
	os.WriteFile(pix, []byte(`{"users":["a","b"],"user_data":{"a":{"x":[[0,1]],"y":[0]},"b":{"x":[[1,0.00392156862745098]],"y":[1]}}}`), 0o644)
	os.WriteFile(flt, []byte(`{"users":["a","b"],"user_data":{"a":{"x":[[0,1]],"y":[0]},"b":{"x":[[1,0.5]],"y":[1]}}}`), 0o644)
	out, err := script(t, fmt.Sprintf(`print(fedlab.info(fedlab.data.leaf{ path = %q, classes = 2 }).storage,
  fedlab.info(fedlab.data.leaf{ path = %q, classes = 2 }).storage,
  fedlab.info(fedlab.data.sparse_federated{ dim = 1000, support = 5, clients = 4, samples = 30, nnz = 7, format = "sparse" }).storage)
`, pix, flt), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "8-bit\tfloat64\tsparse\n"; !strings.HasSuffix(out, want) {
		t.Errorf("output %q, want %q", out, want)
	}
}
