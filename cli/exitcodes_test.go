package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// documentedCodes are the exit statuses README.md and docs/reliability.md
// document: success, an error, a command-line mistake, failed runs, a claim
// that fails or is not evaluated (claims --strict), --timeout, Ctrl-C and
// SIGTERM.
var documentedCodes = []int{0, 1, 2, 3, 4, 124, 130, 143}

// TestDocumentedExitCodes walks the documented exit statuses: for each
// command the command-line mistakes (each exits 2 with its message and a
// line pointing to the command's help; a --set key or value the script
// refuses exits 2 with the script's message, it exited 1), errors that
// exit 1, successes, failed runs (3), a false claim under claims --strict
// (4), --timeout (124), and SIGINT (130) and
// SIGTERM (143) in a child process.
func TestDocumentedExitCodes(t *testing.T) {
	for _, doc := range []string{"../README.md", "../docs/reliability.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, code := range documentedCodes[1:] {
			if !regexp.MustCompile(`\b` + itoa(code) + `\b`).Match(b) {
				t.Errorf("%s does not document the exit status %d", doc, code)
			}
		}
	}
	dir := t.TempDir()
	write := func(name, src string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ok := write("ok.lua", tinyProblem+"fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 2, local_steps = 1, metrics = { \"objective\" } }\n")
	bad := write("bad.lua", "fedlab.reg.l1{ lamda = 1 }\n")
	reads := write("reads.lua", "local r = fedlab.args.rounds or 2\n")
	params := write("params.lua", "local a = fedlab.params{ rounds = 2 }\n")
	failing := write("failing.lua", strings.Replace(tinyProblem, "fedlab.reg.l1{", "fedlab.reg.l2sq{", 1)+ // cfedda's radius needs l1 or nuclear
		"fedlab.compare{ problem = p, algorithms = { fedlab.algo.cfedda{ L = 1, radius = 1 } }, rounds = 2, local_steps = 1 }\n")
	loop := write("loop.lua", "while true do\nend\n")
	claimed := write("claimed.lua", tinyProblem+"local rs = fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{ label = \"FedAvg\" } }, rounds = 2, local_steps = 1, metrics = { \"objective\" } }\n"+
		"fedlab.claim{ text = \"the objective is negative\", runs = rs, label = \"FedAvg\", metric = \"objective\", at_most = -1, at = 2 }\n")
	claimedOut := filepath.Join(dir, "claimed")
	out := filepath.Join(dir, "out")
	notRun := t.TempDir()
	if code, _, stderr := runCLI("run", ok, "--out", out, "--quiet"); code != 0 {
		t.Fatalf("run: exit %d, %s", code, stderr)
	}
	type exitCase struct {
		args []string
		code int
		want string // the first line of stderr starts with "fedlab: "+want ("" for a success)
	}
	cases := []exitCase{
		// 0
		{[]string{"run", ok, "--out", out, "--quiet"}, 0, ""},
		{[]string{"table", out}, 0, ""},
		{[]string{"plot", out, "--format", "svg", "--out", filepath.Join(dir, "plots")}, 0, ""},
		{[]string{"report", out, "--out", filepath.Join(dir, "r.html")}, 0, ""},
		{[]string{"merge", out, "--out", filepath.Join(dir, "merged")}, 0, ""},
		{[]string{"list", "reg"}, 0, ""},
		{[]string{"describe", "l1"}, 0, ""},
		{[]string{"docs"}, 0, ""},
		{[]string{"version"}, 0, ""},
		{[]string{"help", "run"}, 0, ""},
		{[]string{"run", reads, "--out", filepath.Join(dir, "o2"), "--set", "rounds=5"}, 0, ""},
		{[]string{"run", claimed, "--out", claimedOut, "--quiet"}, 0, ""}, // a claim that fails is a finding
		{[]string{"claims", claimedOut}, 0, ""},
		// 1: errors in a script or a directory
		{[]string{"run", bad, "--out", filepath.Join(dir, "o3")}, 1, `bad.lua:1: regularizer "l1": unknown parameter "lamda"`},
		{[]string{"run", filepath.Join(dir, "missing.lua")}, 1, "script " + filepath.Join(dir, "missing.lua") + ": no such file"},
		{[]string{"table", notRun}, 1, notRun + " is not a run directory"},
		{[]string{"plot", notRun}, 1, notRun + " is not a run directory"},
		{[]string{"report", notRun}, 1, notRun + " is not a run directory"},
		{[]string{"merge", notRun, "--out", filepath.Join(dir, "m2")}, 1, notRun + " is not a run directory"},
		// 2: command-line mistakes, for every command
		{nil, 2, ""},
		{[]string{"rnu"}, 2, `unknown command "rnu" (did you mean "run"?)`},
		{[]string{"run"}, 2, "run takes one script"},
		{[]string{"run", ok, bad}, 2, "run takes one script"},
		{[]string{"run", ok, "--bogus"}, 2, "run has no flag --bogus"},
		{[]string{"run", ok, "--jobs", "-1"}, 2, "--jobs -1: want 0"},
		{[]string{"run", ok, "--workers", "x"}, 2, `invalid value "x" for flag -workers`},
		{[]string{"run", ok, "--timeout", "-1s"}, 2, "--timeout -1s: want a positive duration"},
		{[]string{"run", ok, "--fresh", "--update"}, 2, "--fresh and --update exclude each other"},
		{[]string{"run", ok, "--shard", "3/2"}, 2, ""},
		{[]string{"run", ok, "--max-memory", "lots"}, 2, `--max-memory: bad size "lots"`},
		{[]string{"run", ok, "--out", ""}, 2, `--out "": give a directory name`},
		{[]string{"run", ok, "--set", "rounds=1_0"}, 2, `--set rounds=1_0: "1_0" is not a plain decimal number`},
		{[]string{"run", reads, "--out", filepath.Join(dir, "o4"), "--set", "lamda=1"}, 2, "reads.lua: --set lamda=1: the script does not read fedlab.args.lamda"},
		{[]string{"run", params, "--out", filepath.Join(dir, "o5"), "--set", "round=5"}, 2, `params.lua:1: fedlab.params: --set round=5: the script has no parameter "round" (did you mean "rounds"?)`},
		{[]string{"run", params, "--out", filepath.Join(dir, "o6"), "--set", "rounds=many"}, 2, `params.lua:1: fedlab.params: --set rounds=many: parameter "rounds" is a number (default 2), got "many"`},
		{[]string{"table"}, 2, "table takes one run directory"},
		{[]string{"table", out, "--bogus"}, 2, "table has no flag --bogus"},
		{[]string{"table", out, "--width", "1"}, 2, "--width 1: want 0"},
		{[]string{"table", out, "--format", "x"}, 2, "--format x: want one of text, md, latex, csv"},
		{[]string{"table", out, "--round", "x"}, 2, `--round "x": want a round number`},
		{[]string{"table", out, "--metric", "nope"}, 2, "--metric nope: no run of " + out + " records it"},
		{[]string{"table", out, "--call", "9"}, 2, "--call 9: " + out + " has 1 calls"},
		{[]string{"plot"}, 2, "plot takes one run directory"},
		{[]string{"plot", out, "--bogus"}, 2, "plot has no flag --bogus"},
		{[]string{"plot", out, "--log", "--linear"}, 2, "--log and --linear exclude each other"},
		{[]string{"plot", out, "--xlim", "1"}, 2, `--xlim "1": want MIN,MAX`},
		{[]string{"plot", out, "--width", "100"}, 2, ""},
		{[]string{"plot", out, "--metric", "nope"}, 2, "--metric nope: no run of " + out + " records it"},
		{[]string{"plot", out, "--format", "gif"}, 2, "--format gif: want one of png, svg, pdf"},
		{[]string{"plot", out, "--x", "nope"}, 2, `--x: "nope" is neither an axis`},
		{[]string{"plot", out, "--call", "9"}, 2, "--call 9: " + out + " has 1 calls"},
		{[]string{"report"}, 2, "report takes one run directory"},
		{[]string{"report", out, "--bogus"}, 2, "report has no flag --bogus"},
		{[]string{"report", out, "--x", "nope"}, 2, `--x: "nope" is neither an axis`},
		{[]string{"merge", out}, 2, "merge takes run directories and --out DIR"},
		{[]string{"merge", "--out", "m"}, 2, "merge takes run directories and --out DIR"},
		{[]string{"merge", out, "--bogus"}, 2, "merge has no flag --bogus"},
		{[]string{"list", "reg", "algo"}, 2, "list takes at most one kind"},
		{[]string{"list", "nokind"}, 2, `unknown kind "nokind"`},
		{[]string{"list", "--all"}, 2, "list has no flags, got --all"},
		{[]string{"describe"}, 2, "describe takes one component name"},
		{[]string{"describe", "l1", "l2"}, 2, "describe takes one component name"},
		{[]string{"describe", "nonesuch"}, 2, `unknown component "nonesuch"`},
		{[]string{"describe", "reg.nonesuch"}, 2, `unknown regularizer "nonesuch"`},
		{[]string{"docs", "x"}, 2, "docs takes no arguments"},
		{[]string{"docs", "--out", "x"}, 2, "docs has no flags, got --out"},
		{[]string{"version", "x"}, 2, "version takes no arguments"},
		{[]string{"help", "run", "plot"}, 2, "help takes at most one command"},
		{[]string{"help", "nope"}, 2, `unknown command "nope"`},
		// 3, 4 and 124
		{[]string{"run", failing, "--out", filepath.Join(dir, "o7"), "--quiet"}, 3, "1 runs (1 ran, 1 failed) in "},
		{[]string{"claims", "--strict", claimedOut}, 4, "of 1 claims, 1 fail and 0 not evaluated (--strict: exit status 4)"},
		{[]string{"run", loop, "--out", filepath.Join(dir, "o8"), "--timeout", "50ms"}, 124, "loop.lua:"},
	}
	walked := map[int]bool{130: true, 143: true} // below, in child processes
	for _, c := range cases {
		walked[c.code] = true
		code, stdout, stderr := runCLI(c.args...)
		first, rest, _ := strings.Cut(stderr, "\n")
		switch {
		case code != c.code:
			t.Errorf("fedlab %v: exit %d, want %d; stderr:\n%s", c.args, code, c.code, stderr)
		case c.code != 0 && c.want != "" && !strings.HasPrefix(first, "fedlab: "+c.want):
			t.Errorf("fedlab %v: exit %d, first line\n  %s\nwant\n  fedlab: %s", c.args, code, first, c.want)
		case c.code == 2 && len(c.args) > 0 && !strings.Contains(c.want, "--set ") && !strings.HasSuffix(rest, " --help' for usage.\n"):
			t.Errorf("fedlab %v: the usage error does not point to the help: %q", c.args, stderr)
		case c.code == 2 && len(c.args) == 0 && (stdout != "" || !strings.HasPrefix(stderr, "usage: fedlab COMMAND")):
			t.Errorf("fedlab alone: stdout %q, stderr %q; want the list of commands on stderr", stdout, stderr)
		}
	}
	for _, sig := range []struct {
		signal syscall.Signal
		code   int
		name   string
	}{{syscall.SIGINT, 130, "interrupted (SIGINT)"}, {syscall.SIGTERM, 143, "terminated (SIGTERM)"}} {
		sdir := t.TempDir()
		script := writeScript(t, sdir, interruptedRounds())
		sout := filepath.Join(sdir, "out")
		cmd, stderr := child(t, "run", script, "--out", sout, "--jobs", "1", "--workers", "1", "--quiet")
		waitResults(t, sout, 1)
		cmd.Process.Signal(sig.signal)
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != sig.code || !strings.Contains(stderr.String(), "sweep.lua:3: "+sig.name) {
			t.Errorf("%s: exit %v, want %d; stderr:\n%s", sig.name, err, sig.code, stderr)
		}
	}
	for _, code := range documentedCodes {
		if !walked[code] {
			t.Errorf("no case exits with the documented status %d", code)
		}
	}
	if !slices.Equal(documentedCodes, []int{0, 1, 2, exitRunsFailed, exitClaims, 124, 130, 143}) {
		t.Errorf("the documented codes %v are not those of the command", documentedCodes)
	}
}
