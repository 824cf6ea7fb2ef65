package cli

import (
	"bytes"
	"compress/gzip"

	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// badInput is one mistake a user can make: a script (s.lua) and data files
// in a fresh directory, extra command-line arguments, and what fedlab must
// answer: the exit status and a pattern for the first line of stderr.
type badInput struct {
	name   string
	script string
	files  map[string]string
	args   []string
	code   int
	first  string // regexp for the first line of stderr, without "^fedlab: "
}

// Prelude lines shared by the cases (a small problem).
const (
	dataLine = `local data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 }` + "\n"
	probLine = `local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }` + "\n"
	prelude  = dataLine + probLine
	algo     = `fedlab.algo.fedavg{ eta_c = 0.01 }`
	runOK    = `local r = fedlab.run{ problem = p, algorithm = ` + algo + `, rounds = 2, local_steps = 1 }` + "\n"
)

// run returns a fedlab.run line with extra keys.
func run(keys string) string {
	return `fedlab.run{ problem = p, algorithm = ` + algo + `, rounds = 2, local_steps = 1` + keys + ` }` + "\n"
}

func compare(keys string) string {
	return `fedlab.compare{ problem = p, algorithms = { ` + algo + ` }, rounds = 2, local_steps = 1` + keys + ` }` + "\n"
}

// csvData is a small valid CSV file.
const csvData = "x1,x2,label\n1,2,0\n2,1,1\n3,3,0\n4,1,1\n"

func csvScript(extra string) string {
	return `local d = fedlab.data.csv{ path = "d.csv", clients = 2` + extra + ` }` + "\n"
}

func svmScript(extra string) string {
	return `local d = fedlab.data.svmlight{ path = "d.svm", clients = 1` + extra + ` }` + "\n"
}

var badInputs = []badInput{
	// Lua syntax and runtime errors
	{name: "syntax", script: "local x = = 1\n", code: 1, first: `s\.lua:1: syntax error near '='`},
	{name: "binary script", script: "local x = \x1b[2J\n", code: 1, first: `s\.lua:1: Invalid token near '"\\x1b"'$`},
	{name: "unclosed if", script: "if true then\n", code: 1, first: `s\.lua:1: .* at the end of the file`},
	{name: "nil arithmetic", script: "local x\nlocal y = x + 1\n", code: 1, first: `s\.lua:2: cannot perform add operation between nil and number$`},
	{name: "call nil", script: "\nnosuch()\n", code: 1, first: `s\.lua:2: attempt to call a non-function object`},
	{name: "error string", script: "error('boom')\n", code: 1, first: `s\.lua:1: boom$`},
	{name: "error table", script: "\nerror({ code = 1, why = 'x' })\n", code: 1, first: `s\.lua:2: error value \{ code = 1, why = "x" \}$`},
	{name: "error nil", script: "error()\n", code: 1, first: `s\.lua:1: error value nil$`},
	{name: "error level 0", script: "error('bare', 0)\n", code: 1, first: `s\.lua: bare$`},
	{name: "fedlab unknown field", script: "fedlab.bogus()\n", code: 1, first: `s\.lua:1: fedlab has no field "bogus"`},
	{name: "unknown algorithm", script: "fedlab.algo.fedavgg{}\n", code: 1, first: `s\.lua:1: .*fedavgg.*fedavg`},
	{name: "dofile sandboxed", script: "dofile('/etc/passwd')\n", code: 1, first: `s\.lua:1: dofile is not available in the sandbox .*; run fedlab with --unsafe to allow it$`},
	{name: "io sandboxed", script: "io.open('/etc/passwd')\n", code: 1, first: `s\.lua:1: io\.open is not available in the sandbox .*--unsafe`},
	{name: "os sandboxed", script: "os.execute('true')\n", code: 1, first: `s\.lua:1: os\.execute is not available in the sandbox .*--unsafe`},
	{name: "require sandboxed", script: "require('x')\n", code: 1, first: `s\.lua:1: require is not available in the sandbox .*--unsafe`},

	// component parameters
	{name: "misspelled parameter", script: "fedlab.reg.l1{ lamda = 1 }\n", code: 1, first: `s\.lua:1: regularizer "l1": unknown parameter "lamda" \(did you mean "lambda"\?\); valid keys: lambda$`},
	{name: "string for number", script: "fedlab.reg.l1{ lambda = 'big' }\n", code: 1, first: `s\.lua:1: regularizer "l1": parameter "lambda": expected a number`},
	{name: "non-integer", script: dataLine + "fedlab.data.lasso{ variant = 'custom', dim = 2.5, support = 1, clients = 2, samples = 3 }\n", code: 1, first: `s\.lua:2: dataset "lasso": parameter "dim": expected an integer, got 2\.5`},
	{name: "below minimum", script: "fedlab.reg.l1{ lambda = -1 }\n", code: 1, first: `s\.lua:1: regularizer "l1": parameter "lambda" = -1 is below its minimum 0`},
	{name: "NaN parameter", script: "fedlab.reg.l1{ lambda = 0/0 }\n", code: 1, first: `s\.lua:1: regularizer "l1": parameter "lambda".*NaN`},
	{name: "huge integer", script: "fedlab.data.lasso{ variant = 'custom', dim = 8, support = 2, clients = 2, samples = 2^62 }\n", code: 1, first: `s\.lua:1: dataset "lasso": parameter "samples": expected an integer, got 4\.611686018427388e\+18, which is too large`},
	{name: "dim 2^62", script: "fedlab.data.lasso{ variant = 'custom', dim = 2^62, support = 2, clients = 2, samples = 2 }\n", code: 1, first: `s\.lua:1: dataset "lasso": parameter "dim": expected an integer, got 4\.611686018427388e\+18, which is too large`},
	{name: "dim above maximum", script: "fedlab.data.lasso{ variant = 'custom', dim = 1e9, support = 2, clients = 2, samples = 2 }\n", code: 1, first: `s\.lua:1: dataset "lasso": parameter "dim" = 1e\+09 is above its maximum`},
	{name: "list for number", script: "fedlab.reg.l1{ lambda = { 1, 2 } }\n", code: 1, first: `s\.lua:1: regularizer "l1": parameter "lambda"`},
	{name: "function for integer", script: "fedlab.data.lasso{ variant = 'custom', dim = function() return 1 end }\n", code: 1, first: `s\.lua:1: dataset "lasso": parameter "dim": .*function`},
	{name: "label not a string", script: "fedlab.algo.fedavg{ label = 3 }\n", code: 1, first: `s\.lua:1: .*label`},
	{name: "two arguments", script: "fedlab.reg.l1({}, {})\n", code: 1, first: `s\.lua:1: fedlab\.reg\.l1 takes one table of parameters, got 2 arguments`},
	{name: "non-table argument", script: "fedlab.reg.l1(5)\n", code: 1, first: `s\.lua:1: fedlab\.reg\.l1: expected a table of parameters, got the number 5$`},
	{name: "bad choice", script: "fedlab.data.lasso{ variant = 'V' }\n", code: 1, first: `s\.lua:1: dataset "lasso": parameter "variant"`},
	{name: "pnorm with nuclear", script: dataLine + "fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.nuclear{ lambda = 1 }, mirror = fedlab.mirror.pnorm{} }\n",
		code: 1, first: `s\.lua:2: fedlab\.problem: mirror map "pnorm": the composite map .* not "nuclear"`},
	{name: "schedule NaN", script: prelude + "local eta = function(r)\n  if r == 5 then return 0/0 end\n  return 0.01\nend\nfedlab.run{ problem = p, algorithm = fedlab.algo.fedavg{ eta_c = eta }, rounds = 9, local_steps = 1 }\n",
		code: 1, first: `s\.lua:3: algorithm "fedavg": parameter "eta_c": the function returned NaN at round 5, expected a finite number`},
	{name: "schedule +Inf", script: prelude + "local eta = function(r) return 1/0 end\nfedlab.run{ problem = p, algorithm = fedlab.algo.fedavg{ eta_c = eta }, rounds = 9, local_steps = 1 }\n",
		code: 1, first: `s\.lua:3: algorithm "fedavg": parameter "eta_c": the function returned \+Inf at round 0`},
	{name: "schedule string", script: prelude + "local eta = function(r) return 'x' end\nfedlab.run{ problem = p, algorithm = fedlab.algo.fedavg{ eta_c = eta }, rounds = 9, local_steps = 1 }\n",
		code: 1, first: `s\.lua:3: algorithm "fedavg": parameter "eta_c": the function returned the string "x" at round 0`},
	{name: "schedule error", script: prelude + "local eta = function(r)\n  error('no ' .. r)\nend\nfedlab.run{ problem = p, algorithm = fedlab.algo.fedavg{ eta_c = eta }, rounds = 9, local_steps = 1 }\n",
		code: 1, first: `s\.lua:4: no 0 \(in the function given for algorithm "fedavg" parameter "eta_c", at round 0\)`},
	{name: "schedule unknown", script: "fedlab.schedule.nope{}\n", code: 1, first: `s\.lua:1: .*nope`},

	// call tables
	{name: "run without problem", script: prelude + "fedlab.run{ algorithm = " + algo + ", rounds = 2, local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.run: .*"problem"`},
	{name: "run without algorithm", script: prelude + "fedlab.run{ problem = p, rounds = 2, local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.run: .*"algorithm"`},
	{name: "run without rounds", script: prelude + "fedlab.run{ problem = p, algorithm = " + algo + ", local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.run: .*"rounds"`},
	{name: "run unknown key", script: prelude + run(", roundz = 3"), code: 1, first: `s\.lua:3: fedlab\.run: .*"roundz"`},
	{name: "negative rounds", script: prelude + "fedlab.run{ problem = p, algorithm = " + algo + ", rounds = -1, local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.run: .*"rounds"`},
	{name: "rounds 1e12", script: prelude + "fedlab.run{ problem = p, algorithm = " + algo + ", rounds = 1e12, local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.run: rounds = 1000000000000 is too large`},
	{name: "local_steps 1e12", script: prelude + "fedlab.run{ problem = p, algorithm = " + algo + ", rounds = 2, local_steps = 1e12 }\n", code: 1, first: `s\.lua:3: fedlab\.run: local_steps = 1000000000000 is too large`},
	{name: "rounds non-integer", script: prelude + "fedlab.run{ problem = p, algorithm = " + algo + ", rounds = 2.5, local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.run: key "rounds": expected an integer, got 2\.5`},
	{name: "no local work", script: prelude + "fedlab.run{ problem = p, algorithm = " + algo + ", rounds = 2 }\n", code: 1, first: `s\.lua:3: fedlab\.run: .*local_steps`},
	{name: "seeds repeated", script: prelude + compare(", seeds = { 1, 1 }"), code: 1, first: `s\.lua:3: fedlab\.compare: key "seeds": seed 1 appears twice`},
	{name: "seeds empty", script: prelude + compare(", seeds = {}"), code: 1, first: `s\.lua:3: fedlab\.compare: key "seeds": the list is empty`},
	{name: "seeds negative", script: prelude + compare(", seeds = { -1 }"), code: 1, first: `s\.lua:3: fedlab\.compare: key "seeds" element 1`},
	{name: "algorithms not a list", script: prelude + "fedlab.compare{ problem = p, algorithms = " + algo + ", rounds = 2, local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.compare: key "algorithms"`},
	{name: "loss as algorithm", script: prelude + "fedlab.run{ problem = p, algorithm = fedlab.loss.squared{}, rounds = 2, local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.run: key "algorithm": expected an algorithm`},
	{name: "problem of wrong type", script: prelude + "fedlab.run{ problem = 'p', algorithm = " + algo + ", rounds = 2, local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.run: key "problem": expected a problem`},
	{name: "unknown metric", script: prelude + run(`, metrics = { "nope" }`), code: 1, first: `s\.lua:3: .*metric.*"nope"`},
	{name: "clients_per_round string", script: prelude + run(`, clients_per_round = "all"`), code: 1, first: `s\.lua:3: fedlab\.run: key "clients_per_round": expected an integer`},
	{name: "init choice", script: prelude + run(`, init = "random"`), code: 1, first: `s\.lua:3: fedlab\.run: key "init"`},
	{name: "batch 2^40", script: prelude + run(`, batch = 2^40`), code: 1, first: `s\.lua:3: fedlab\.run: batch = 1099511627776 is too large`},
	{name: "eval_every negative", script: prelude + run(`, eval_every = -3`), code: 1, first: `s\.lua:3: fedlab\.run: key "eval_every"`},
	{name: "duplicate labels", script: prelude + "fedlab.compare{ problem = p, algorithms = { " + algo + ", " + algo + " }, rounds = 2, local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.compare: .*label`},
	{name: "sweep without grid", script: prelude + "fedlab.sweep{ problem = p, algorithms = { " + algo + " }, rounds = 2, local_steps = 1 }\n", code: 1, first: `s\.lua:3: fedlab\.sweep: `},
	{name: "top_k above d", script: prelude + compare(", compress_up = fedlab.compressor.top_k{ k = 10^6 }"), code: 1,
		first: `s\.lua:3: fedlab\.compare: compress_up: compressor "top_k": parameter "k" = 1000000 is above the dimension d = 9 of the vectors it compresses \(valid: 1 ≤ k ≤ 9, or a fraction in \(0, 1\]\)$`},
	{name: "rand_k above d", script: prelude + compare(", compress_down = fedlab.compressor.rand_k{ k = 10 }"), code: 1,
		first: `s\.lua:3: fedlab\.compare: compress_down: compressor "rand_k": parameter "k" = 10 is above the dimension d = 9`},
	{name: "table of non-runs", script: "fedlab.table({ 1, 2 })\n", code: 1, first: `s\.lua:1: fedlab\.table: `},

	// outputs and the sandbox
	{name: "csv absolute path", script: prelude + runOK + "fedlab.csv(r, '/tmp/fedlab-badinput.csv')\n", code: 1, first: `s\.lua:4: fedlab\.csv: absolute path "/tmp/fedlab-badinput\.csv" refused: .*--unsafe`},
	{name: "csv parent path", script: prelude + runOK + "fedlab.csv(r, '../x.csv')\n", code: 1, first: `s\.lua:4: fedlab\.csv: path "\.\./x\.csv" leaves the run directory: .*--unsafe`},
	{name: "csv manifest", script: prelude + runOK + "fedlab.csv(r, 'manifest.json')\n", code: 1, first: `s\.lua:4: fedlab\.csv: "manifest\.json" is reserved in the run directory`},
	{name: "model into results", script: prelude + runOK + "fedlab.save_model(r, 'results/k.json')\n", code: 1, first: `s\.lua:4: fedlab\.save_model: "results/k\.json" is reserved`},
	{name: "model into lock", script: prelude + runOK + "fedlab.save_model(r, 'fedlab.lock')\n", code: 1, first: `s\.lua:4: fedlab\.save_model: "fedlab\.lock" is reserved`},
	{name: "plot absolute", script: prelude + runOK + "fedlab.plot(r, { metric = 'objective', file = '/tmp/p' })\n", code: 1, first: `s\.lua:4: fedlab\.plot: absolute path`},
	{name: "plot missing metric", script: prelude + runOK + "fedlab.plot(r, {})\n", code: 1, first: `s\.lua:4: fedlab\.plot: .*"metric"`},
	{name: "plot bad axis", script: prelude + runOK + "fedlab.plot(r, { metric = 'objective', x = 'clock' })\n", code: 1, first: `s\.lua:4: fedlab\.plot: .*"x"`},
	{name: "csv path not a string", script: prelude + runOK + "fedlab.csv(r, 5)\n", code: 1, first: `s\.lua:4: fedlab\.csv: argument 2: expected a file name`},
	{name: "save_model of a list", script: prelude + runOK + "fedlab.save_model({ r, r }, 'm.txt')\n", code: 1, first: `s\.lua:4: fedlab\.save_model: `},
	{name: "table bad option", script: prelude + runOK + "fedlab.table(r, { colour = 1 })\n", code: 1, first: `s\.lua:4: fedlab\.table: .*"colour"`},

	// resources
	{name: "clients 1e9", script: "fedlab.data.lasso{ variant = 'custom', dim = 20, support = 2, clients = 1e9, samples = 10 }\n", code: 1,
		first: `s\.lua:1: dataset "lasso" \(clients = 1000000000, samples = 10, test_samples = 32, dim = 20\) needs about 6\.4 TiB of memory, more than .*; lower these parameters`},
	{name: "samples 1e9", script: "fedlab.data.lasso{ variant = 'custom', dim = 20, support = 2, clients = 4, samples = 1e9 }\n", code: 1, first: `s\.lua:1: dataset "lasso" .* needs about .* of memory`},
	{name: "max-memory", script: "fedlab.data.lasso{ variant = 'custom', dim = 2000, support = 2, clients = 100, samples = 100 }\n", args: []string{"--max-memory", "10MB"}, code: 1,
		first: `s\.lua:1: dataset "lasso" .* needs about 201\.5 MiB of memory, more than 10\.0 MiB \(--max-memory\)`},
	{name: "state over budget", script: "local data = fedlab.data.lasso{ variant = 'custom', dim = 4000, support = 2, clients = 200, samples = 1, test_samples = 0 }\n" +
		"local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{} }\n" +
		"local r = fedlab.run{ problem = p, algorithm = fedlab.algo.scaffold{}, rounds = 2, local_steps = 1 }\n",
		args: []string{"--max-memory", "16MB"}, code: 1, first: `s\.lua:3: fedlab\.run: the state of 1 runs at once \(200 clients, 4001 parameters\) needs about 1\d\.\d MiB`},
	{name: "schedule table rounds", script: prelude + "fedlab.run{ problem = p, algorithm = fedlab.algo.fedavg{ eta_c = function(r) return 0.1 end }, rounds = 1e8, local_steps = 1, eval_every = 1e8 }\n",
		args: []string{"--max-memory", "64MB"}, code: 1, first: `s\.lua:3: algorithm "fedavg": parameter "eta_c": the function's table of values for 100000000 rounds needs about 762\.9 MiB`},
	{name: "string.rep bomb", script: "local s = string.rep('x', 2^40)\n", code: 1, first: `s\.lua:1: string\.rep: the result would take 1\.0 TiB, more than the memory ceiling`},
	{name: "concat bomb", script: "local s = 'x'\nwhile true do\n  s = s .. s\nend\n", args: []string{"--max-memory", "64MB"}, code: 1, first: `s\.lua:\d: memory ceiling reached: (the process holds|the concatenation \(\.\.\) would make a string of) .* more than the ceiling of 64\.0 MiB \(--max-memory\)`},
	{name: "table bomb", script: "local t = {}\nlocal i = 0\nwhile true do\n  i = i + 1\n  t[i] = { i }\nend\n", args: []string{"--max-memory", "64MB"}, code: 1, first: `s\.lua:\d: memory ceiling reached`},
	{name: "infinite loop", script: "while true do\nend\n", args: []string{"--timeout", "200ms"}, code: 124, first: `s\.lua:\d: time limit reached \(--timeout 200ms\)`},

	// data files: CSV
	{name: "csv missing file", script: `fedlab.data.csv{ path = "none.csv" }` + "\n", code: 1, first: `s\.lua:1: .*none\.csv: no such file or directory`},
	{name: "csv empty", script: csvScript(""), files: map[string]string{"d.csv": ""}, code: 1, first: `s\.lua:1: dataset "csv": .*d\.csv:1: empty file, want a header row`},
	{name: "csv no label", script: csvScript(""), files: map[string]string{"d.csv": "a,b\n1,2\n"}, code: 1, first: `s\.lua:1: .*d\.csv:1: no label column "label" \(columns: a, b\)`},
	{name: "csv duplicate column", script: csvScript(""), files: map[string]string{"d.csv": "a,a,label\n1,2,3\n"}, code: 1, first: `s\.lua:1: .*d\.csv:1: column "a" appears twice`},
	{name: "csv bad value", script: csvScript(""), files: map[string]string{"d.csv": "x1,x2,label\n1,abc,0\n"}, code: 1, first: `s\.lua:1: .*d\.csv:2: column "x2": bad value "abc"`},
	{name: "csv binary value", script: csvScript(""), files: map[string]string{"d.csv": "x1,x2,label\n1,\x1b[2J\xff\x00,0\n"}, code: 1, first: `s\.lua:1: .*d\.csv:2: column "x2": bad value "\\x1b\[2J\\xff\\x00"`},
	{name: "csv binary header", script: csvScript(""), files: map[string]string{"d.csv": "\x1b]0;x\x07,y\n1,2\n"}, code: 1, first: `s\.lua:1: .*no label column "label" \(columns: "\\x1b\]0;x\\a", y\)`},
	{name: "csv field count", script: csvScript(""), files: map[string]string{"d.csv": "x1,x2,label\n1,2,0\n1,2\n"}, code: 1, first: `s\.lua:1: .*d\.csv:3: 2 fields, want 3`},
	{name: "csv bare quote", script: csvScript(""), files: map[string]string{"d.csv": "x1,x2,label\n1,2\"x,0\n"}, code: 1, first: `s\.lua:1: .*d\.csv:2: .*quote`},
	{name: "csv NaN", script: csvScript(""), files: map[string]string{"d.csv": "x1,x2,label\n1,NaN,0\n"}, code: 1, first: `s\.lua:1: .*d\.csv:2: column "x2": bad value "NaN"`},
	{name: "csv label not integer", script: csvScript(", classes = 2"), files: map[string]string{"d.csv": "x1,label\n1,0.5\n2,1\n"}, code: 1, first: `s\.lua:1: .*d\.csv:2: label 0\.5 is not an integer`},
	{name: "csv label out of range", script: csvScript(", classes = 2"), files: map[string]string{"d.csv": "x1,label\n1,0\n2,7\n"}, code: 1, first: `s\.lua:1: .*d\.csv:3: label 7 outside 0\.\.1`},
	{name: "csv header only", script: csvScript(""), files: map[string]string{"d.csv": "x1,label\n"}, code: 1, first: `s\.lua:1: .*d\.csv: no samples after the header`},
	{name: "csv too many clients", script: csvScript(", clients = 50"), files: map[string]string{"d.csv": csvData}, code: 1, first: `s\.lua:1: .*d\.csv: .*`},

	// data files: svmlight
	{name: "svm bad feature", script: svmScript(""), files: map[string]string{"d.svm": "1 1:abc\n"}, code: 1, first: `s\.lua:1: .*d\.svm:1: bad feature "1:abc"`},
	{name: "svm index 0", script: svmScript(""), files: map[string]string{"d.svm": "1 0:1\n"}, code: 1, first: `s\.lua:1: .*d\.svm:1: bad feature "0:1": index below 1`},
	{name: "svm index 2^62", script: svmScript(""), files: map[string]string{"d.svm": "1 4611686018427387904:1\n"}, code: 1, first: `s\.lua:1: .*d\.svm:1: bad feature "4611686018427387904:1": index beyond fedlab's limit`},
	{name: "svm index MaxInt64", script: svmScript(""), files: map[string]string{"d.svm": "1 9223372036854775807:1\n"}, code: 1, first: `s\.lua:1: .*d\.svm:1: bad feature .*index beyond`},
	{name: "svm index overflow", script: svmScript(""), files: map[string]string{"d.svm": "1 99999999999999999999:1\n"}, code: 1, first: `s\.lua:1: .*d\.svm:1: bad feature .*out of range`},
	{name: "svm label", script: svmScript(""), files: map[string]string{"d.svm": "yes 1:1\n"}, code: 1, first: `s\.lua:1: .*d\.svm:1: .*label`},
	{name: "svm binary junk", script: svmScript(""), files: map[string]string{"d.svm": "\x1b[2J\xff 1:1\n"}, code: 1, first: `s\.lua:1: .*d\.svm:1: .*\\x1b`},
	{name: "svm wide model", script: svmScript("") + "local p = fedlab.problem{ data = d, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }\nfedlab.run{ problem = p, algorithm = " + algo + ", rounds = 2, local_steps = 1 }\n",
		files: map[string]string{"d.svm": "1 1:0.5 300000000:1\n-1 2:1\n"}, args: []string{"--max-memory", "1GB"}, code: 1, first: `s\.lua:3: fedlab\.run: the state of .* \(1 clients, 300000001 parameters\) needs about`},

	// data files: IDX (Fashion-MNIST layout)
	{name: "idx missing", script: `fedlab.data.fashion_mnist{ dir = "nodir" }` + "\n", code: 1, first: `s\.lua:1: .*fashion_mnist: .*train-images-idx3-ubyte\.gz is missing`},
	{name: "idx 9-byte header", script: `fedlab.data.fashion_mnist{ dir = "idx" }` + "\n", files: map[string]string{"idx/train-images-idx3-ubyte.gz": "gz:\x00\x00\x08\x01\x7f\xff\xff\xff\x01"},
		code: 1, first: `s\.lua:1: .*train-images-idx3-ubyte\.gz: expected 2147483647 values for dimensions \[2147483647\]: the file ends after 1`},
	{name: "idx not gzip", script: `fedlab.data.fashion_mnist{ dir = "idx" }` + "\n", files: map[string]string{"idx/train-images-idx3-ubyte.gz": "\x00\x00\x08\x01"},
		code: 1, first: `s\.lua:1: .*train-images-idx3-ubyte\.gz: not a gzip file: unexpected EOF`},
	{name: "idx bad magic", script: `fedlab.data.fashion_mnist{ dir = "idx" }` + "\n", files: map[string]string{"idx/train-images-idx3-ubyte.gz": "gz:\x1b\x5b\x08\x01"},
		code: 1, first: `s\.lua:1: .*not an IDX file \(magic 1b5b0801\)`},

	// command line
	{name: "timeout negative", script: "print(1)\n", args: []string{"--timeout", "-1s"}, code: 2, first: `--timeout -1s: want a positive duration \(e\.g\. 30m\), or 0 for no limit$`},
	{name: "timeout overflow", script: "print(1)\n", args: []string{"--timeout", "99999999999h"}, code: 2, first: `invalid value "99999999999h" for flag -timeout: want a duration from 0 \(no limit\) to 2562047h \(about 292 years\), with a unit`},
	{name: "jobs negative", script: "print(1)\n", args: []string{"--jobs", "-1"}, code: 2, first: `--jobs -1: want 0 \(the number of CPUs\) or more$`},
	{name: "workers negative", script: "print(1)\n", args: []string{"--workers", "-1"}, code: 2, first: `--workers -1: want 0 \(the CPUs divided among the runs at once\) or more$`},
	{name: "out empty", script: "print(1)\n", args: []string{"--out", ""}, code: 2, first: `--out "": give a directory name`},
	{name: "set underscore number", script: "print(fedlab.args.rounds)\n", args: []string{"--set", "rounds=1_0"}, code: 2, first: `--set rounds=1_0: "1_0" is not a plain decimal number \(write e\.g\. 1000, 2\.5 or 1e-3\); to pass the text, quote it`},
	{name: "set hex number", script: "print(fedlab.args.rounds)\n", args: []string{"--set", "rounds=0x10"}, code: 2, first: `--set rounds=0x10: "0x10" is not a plain decimal number`},
	{name: "set number overflow", script: "print(fedlab.args.rounds)\n", args: []string{"--set", "rounds=1e999"}, code: 2, first: `--set rounds=1e999: "1e999" is beyond the range of numbers`},
	{name: "set key not read", script: "local r = fedlab.args.rounds or 2\n" + prelude + runOK, args: []string{"--set", "round=5"}, code: 2,
		first: `s\.lua:4: --set round=5: the script does not read fedlab\.args\.round \(did you mean "rounds"\?\) \(it reads rounds before its first run; a script can declare its parameters with fedlab\.params\)$`},
	{name: "set key never read", script: "print(1)\n", args: []string{"--set", "rounds=5"}, code: 2, first: `s\.lua: --set rounds=5: the script does not read fedlab\.args\.rounds \(it reads no fedlab\.args key; `},
	{name: "params undeclared", script: "local a = fedlab.params{ rounds = 2, path = 'x' }\n", args: []string{"--set", "round=5"}, code: 2,
		first: `s\.lua:1: fedlab\.params: --set round=5: the script has no parameter "round" \(did you mean "rounds"\?\); its parameters: path, rounds$`},
	{name: "params wrong type", script: "local a = fedlab.params{ rounds = 2 }\n", args: []string{"--set", "rounds=many"}, code: 2,
		first: `s\.lua:1: fedlab\.params: --set rounds=many: parameter "rounds" is a number \(default 2\), got "many"$`},
	{name: "params bad default", script: "local a = fedlab.params{ rounds = {} }\n", code: 1, first: `s\.lua:1: fedlab\.params: parameter "rounds": the default must be a number, a string or a boolean`},
	{name: "max-memory bad", script: "print(1)\n", args: []string{"--max-memory", "lots"}, code: 2, first: `--max-memory: bad size "lots"`},
	{name: "fresh and update", script: "print(1)\n", args: []string{"--fresh", "--update"}, code: 2, first: `--fresh and --update exclude each other`},
	{name: "bad shard", script: "print(1)\n", args: []string{"--shard", "3/2"}, code: 2, first: `.*shard`},
	{name: "timeout not a duration", script: "print(1)\n", args: []string{"--timeout", "soon"}, code: 2, first: `invalid value "soon" for flag -timeout`},
}

// shortSkips are the bad inputs left to the full suite: the memory bombs,
// which fill the 64 MB ceiling before they stop, and the infinite loop,
// which spins until its timeout (TestTimeoutStopsAnInfiniteLuaLoop stops
// one under -short too).
var shortSkips = map[string]bool{"concat bomb": true, "table bomb": true, "infinite loop": true}

// goDump matches what a Go runtime dump or a recovered panic prints.
var goDump = regexp.MustCompile(`goroutine \d+|panic[:(]|runtime error|internal error|stack traceback|\.go:\d+`)

func TestBadInputsGetClearErrors(t *testing.T) {
	if len(badInputs) < 80 {
		t.Fatalf("%d cases, the suite promises at least 80", len(badInputs))
	}
	names := map[string]bool{}
	for _, c := range badInputs {
		if names[c.name] {
			t.Fatalf("case %q twice", c.name)
		}
		names[c.name] = true
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			if testing.Short() && shortSkips[c.name] {
				t.Skip("fills 64 MB or spins to its timeout (-short: luaapi's TestMemoryCeilingStopsStringAndTableBombs stops the same bombs, TestTimeoutStopsAnInfiniteLuaLoop an infinite loop)")
			}
			dir := t.TempDir()
			for name, content := range c.files {
				writeFixture(t, filepath.Join(dir, name), content)
			}
			script := filepath.Join(dir, "s.lua")
			if err := os.WriteFile(script, []byte(c.script), 0o644); err != nil {
				t.Fatal(err)
			}
			args := append([]string{"run", script, "--out", filepath.Join(dir, "out"), "--quiet"}, c.args...)
			var code int
			var stdout, stderr string
			if slices.Contains(c.args, "--max-memory") && c.code != 2 {
				code, stderr = isolated(t, args...) // the ceiling measures the whole process (a command-line mistake is refused before it is measured)
			} else {
				code, stdout, stderr = runCLI(args...)
			}
			first, _, _ := strings.Cut(stderr, "\n")
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			if !regexp.MustCompile(`^fedlab: ` + c.first).MatchString(first) {
				t.Errorf("first line\n  %s\nwant\n  fedlab: %s", first, c.first)
			}
			if dump := goDump.FindString(stderr + stdout); dump != "" {
				t.Errorf("output holds %q:\n%s%s", dump, stdout, stderr)
			}
		})
	}
}

// writeFixture writes content to path; content starting with "gz:" is
// gzipped first.
func writeFixture(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	b := []byte(content)
	if rest, ok := strings.CutPrefix(content, "gz:"); ok {
		b = gzipped(t, []byte(rest))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
