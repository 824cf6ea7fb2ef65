package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fedlab/fedlab/datasets"
)

// slowCalls are two calls that would compute for minutes (15 runs of
// 100,000 rounds): a dry run must pass them in a moment.
const slowCalls = `local data = fedlab.data.lasso{ variant = "custom", dim = 200, support = 10, clients = 20, samples = 50,
  test_samples = 20, seed = 1 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{ half = false }, reg = fedlab.reg.l1{ lambda = 0.1 } }
local settings = { problem = problem, rounds = 100000, batch = 10, epochs = 1, eval_every = 1000 }
local function with(t) for k, v in pairs(settings) do t[k] = v end return t end
local runs = fedlab.compare(with{ seeds = { 1, 2, 3 }, metrics = { "objective", "f1" },
  algorithms = { fedlab.algo.fedavg{ eta_c = 0.003 }, fedlab.algo.fedmid{ eta_c = 0.003 } } })
local sw = fedlab.sweep(with{ algorithms = { fedlab.algo.fedavg{} }, grid = { eta_c = { 0.001, 0.003, 0.01 } },
  seeds = { 1, 2, 3 }, select = { metric = "objective", mode = "min" } })
`

// TestDryRunStopsAtAMisspelledMetric: a dry run of a script whose last
// call misspells a metric fails in under 5 s naming the metric and its
// line, after printing the earlier calls, which were planned, not
// computed (computing them would take minutes), and leaves no directory.
func TestDryRunStopsAtAMisspelledMetric(t *testing.T) {
	for _, c := range []struct{ last, want string }{
		{`fedlab.table(runs, { metrics = { "f1", "objectve" } })`, `script.lua:10: fedlab.table: no metric "objectve" in these runs`},
		{`fedlab.compare(with{ algorithms = { sw.best[1].algorithm }, metrics = { "objectve" } })`, `script.lua:10: unknown metric "objectve"`},
	} {
		dir := t.TempDir()
		t.Chdir(dir)
		script := filepath.Join(dir, "script.lua")
		writeFixture(t, script, slowCalls+c.last+"\n")
		start := time.Now()
		code, stdout, stderr := runCLI("run", "--dry-run", script)
		took := time.Since(start)
		t.Logf("%s: %.2fs", c.last, took.Seconds())
		if code != 1 || !strings.HasPrefix(stderr, "fedlab: "+c.want) || !strings.Contains(stderr, `"objectve"`) {
			t.Errorf("%s: exit %d, stderr %q; want 1 and %q naming the metric", c.last, code, stderr, c.want)
		}
		for _, line := range []string{
			"dry run: call 1: fedlab.compare at script.lua:6: 6 runs of 100000 rounds (600000 rounds)\n",
			"dry run: call 2: fedlab.sweep at script.lua:8: 9 runs of 100000 rounds (900000 rounds)\n",
		} {
			if !strings.Contains(stdout, line) {
				t.Errorf("%s: stdout lacks %q:\n%s", c.last, line, stdout)
			}
		}
		if took > 5*time.Second {
			t.Errorf("%s: the dry run took %s, want under 5 s", c.last, took)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s: the dry run left files in the working directory: %v", c.last, entries)
		}
	}
}

// shortScripts are the scripts TestDryRunOfEveryShippedScript dry-runs
// under -short, each in a fraction of a second: a comparison, a multistage
// pipeline with a schedule, and two on a paper's data with their fixtures
// (LEAF JSON and Parquet). A sweep's dry run is TestDryRunStopsAtAMisspelledMetric's,
// a missing data file TestDryRunNamesAMissingDataFile's.
var shortScripts = []string{"quickstart.lua", "multistage_example.lua", "homotopy_example.lua",
	"fedpd_femnist.lua", "fedda_femnist_cnn.lua"}

// TestDryRunOfEveryShippedScript dry-runs every script under scripts/: it
// succeeds, ends with the total line and writes nothing (its time is
// logged, not asserted: the machine is shared; quiet, the longest takes a
// few seconds); a
// script whose data file is absent on this machine (Fashion-MNIST, the
// LIBSVM example's default file) fails naming the file instead. A script
// that runs a paper's experiment on the paper's data (paperScripts:
// FEMNIST, CIFAR-10, EMNIST, never on this machine) is dry-run twice:
// without data it fails with its guidance, and on the tiny files its
// fixture writes (given with --set) it succeeds like the others.
//
// Under -short it dry-runs shortScripts only, one or two of each kind.
func TestDryRunOfEveryShippedScript(t *testing.T) {
	if raceEnabled {
		t.Skip("loads every script's data (minutes under the race detector); the dry run's code is raced by the other dry-run tests")
	}
	scripts, err := filepath.Glob(filepath.Join("..", "scripts", "*.lua"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	if testing.Short() {
		var some []string
		for _, name := range shortScripts {
			path := filepath.Join("..", "scripts", name)
			if !slices.Contains(scripts, path) {
				t.Fatalf("shortScripts names %s, which is not in scripts/", name)
			}
			some = append(some, path)
		}
		scripts = some
	}
	for _, script := range scripts {
		abs, err := filepath.Abs(script)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(script)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(abs)
			if err != nil {
				t.Fatal(err)
			}
			missing := ""
			for _, need := range []struct{ uses, file string }{
				{"fedlab.data.fashion_mnist", filepath.Join(datasets.FashionMNISTDir, "train-images-idx3-ubyte.gz")},
				{"/usr/share/doc/liblinear-tools/examples/heart_scale", "/usr/share/doc/liblinear-tools/examples/heart_scale"},
			} {
				if _, err := os.Stat(need.file); err != nil && strings.Contains(string(src), need.uses) {
					missing = need.file
				}
			}
			dir := t.TempDir()
			t.Chdir(dir)
			var sets []string
			if paper, ok := paperScripts[name]; ok {
				code, stdout, stderr := runCLI("run", "--dry-run", abs)
				header := "dry run: " + name + ": every run is planned, not computed"
				if want := "fedlab: " + name + ": " + paper.guidance; code != 1 || stderr != want || !strings.HasPrefix(stdout, header) || strings.Count(stdout, "\n") != 1 {
					t.Errorf("without data: exit %d, stdout %q, stderr %q; want 1, the dry run's header line only, and the guidance %q", code, stdout, stderr, want)
				}
				sets = paper.fixture(t, t.TempDir())
			}
			start := time.Now()
			code, stdout, stderr := runCLI(withSets([]string{"run", "--dry-run", abs}, sets...)...)
			took := time.Since(start)
			if missing != "" {
				if code != 1 || !strings.Contains(stderr, missing) {
					t.Errorf("exit %d, stderr %q; want 1 and the missing file %s named", code, stderr, missing)
				}
				t.Logf("%s is absent: the dry run fails naming it (%.2fs)", missing, took.Seconds())
				return
			}
			t.Logf("%.2fs", took.Seconds())
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			last := lines[len(lines)-1]
			if code != 0 || !strings.HasPrefix(last, "dry run: "+name+": ") || !strings.HasSuffix(last, "; nothing was computed or written") {
				t.Errorf("exit %d, last line %q, stderr %q; want 0 and the total line", code, last, stderr)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the dry run wrote into the working directory: %v", entries)
			}
		})
	}
}

// TestDryRunNamesAMissingDataFile: the dry run reads the data, so a
// Fashion-MNIST directory without its files fails at the dataset's line,
// naming the file.
func TestDryRunNamesAMissingDataFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	script := filepath.Join(dir, "script.lua")
	writeFixture(t, script, `local data = fedlab.data.fashion_mnist{ dir = fedlab.args.dir, clients = 10 }
print("not reached")
`)
	missing := filepath.Join(dir, "no-data")
	code, stdout, stderr := runCLI("run", "--dry-run", script, "--set", "dir="+missing)
	want := "fedlab: script.lua:1: "
	if code != 1 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, filepath.Join(missing, "train-images-idx3-ubyte.gz")) || strings.Contains(stdout, "not reached") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q naming %s", code, stdout, stderr, want, filepath.Join(missing, "train-images-idx3-ubyte.gz"))
	}
}

// TestDryRunChecksMemory: the memory pre-checks (plan.Limits) hold in a
// dry run: SCAFFOLD's control variates for 200 clients at d = 4001 pass no
// 16 MB ceiling, and FedAvg's state does.
func TestDryRunChecksMemory(t *testing.T) {
	const src = `local data = fedlab.data.lasso{ variant = 'custom', dim = 4000, support = 2, clients = 200, samples = 1, test_samples = 0 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{} }
local r = fedlab.run{ problem = p, algorithm = fedlab.algo.ALGO{}, rounds = 2, local_steps = 1 }
`
	for algo, want := range map[string]int{"scaffold": 1, "fedavg": 0} {
		dir := t.TempDir()
		script := filepath.Join(dir, "s.lua")
		writeFixture(t, script, strings.ReplaceAll(src, "ALGO", algo))
		code, stderr := isolated(t, "run", "--dry-run", script, "--max-memory", "16MB")
		if code != want || want == 1 && !strings.HasPrefix(stderr, "fedlab: s.lua:3: ") {
			t.Errorf("%s: exit %d, stderr %q; want %d (and the call's line)", algo, code, stderr, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("%s: the dry run left files: %v", algo, entries)
		}
	}
}

// TestDryRunTakesNoShard: a dry run plans every run, so --shard is a
// command-line mistake.
func TestDryRunTakesNoShard(t *testing.T) {
	code, _, stderr := runCLI("run", "--dry-run", "--shard", "0/2", "s.lua")
	if want := "fedlab: --dry-run and --shard exclude each other: a dry run plans every run of every shard\n"; code != 2 || !strings.HasPrefix(stderr, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// TestDryRunWithUnsafeWritesNothing: fedlab run --dry-run --unsafe of a
// script that writes a file through io.open fails there saying that a
// dry run writes nothing, and leaves nothing in the working directory;
// reading a file works; os.remove, os.rename and os.execute fail the
// same way. The same script without --dry-run writes its file.
func TestDryRunWithUnsafeWritesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	writeFixture(t, filepath.Join(dir, "in.txt"), "kept\n")
	reads := `local f = assert(io.open("in.txt")); print("read " .. f:read("*l")); f:close()` + "\n"
	for _, c := range []struct{ line, want string }{
		{`local f = io.open("out.txt", "w"); f:write("x"); f:close()`, `w.lua:2: io.open("out.txt", "w"): a dry run writes nothing and runs no command; run the script without --dry-run to do it`},
		{`io.output("out.txt")`, `w.lua:2: io.output("out.txt"): a dry run writes nothing`},
		{`os.remove("in.txt")`, `w.lua:2: os.remove: a dry run writes nothing`},
		{`os.rename("in.txt", "out.txt")`, `w.lua:2: os.rename: a dry run writes nothing`},
		{`os.execute("touch out.txt")`, `w.lua:2: os.execute: a dry run writes nothing and runs no command`},
	} {
		writeFixture(t, filepath.Join(dir, "w.lua"), reads+c.line+"\n")
		code, stdout, stderr := runCLI("run", "w.lua", "--dry-run", "--unsafe")
		if code != 1 || !strings.Contains(stderr, c.want) || !strings.Contains(stdout, "read kept") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and %q", c.line, code, stdout, stderr, c.want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 2 || read(t, dir, "in.txt") != "kept\n" {
			t.Errorf("%s: the dry run changed the working directory: %v", c.line, entries)
		}
	}
	writeFixture(t, filepath.Join(dir, "w.lua"), `local f = io.open("out.txt", "w"); f:write("x"); f:close()`+"\n")
	if code, _, stderr := runCLI("run", "w.lua", "--unsafe", "--quiet", "--out", "d"); code != 0 || read(t, dir, "out.txt") != "x" {
		t.Errorf("without --dry-run: exit %d, %s", code, stderr)
	}
}
