//go:build !race

// The race detector makes the examples' runs ten times slower and adds
// nothing here (the runs' concurrency is covered by the other tests), so
// this file is left out of `go test -race`.

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docExample is a fenced block of README.md or docs/*.md that the doc test
// runs: a Lua script, or the fedlab commands of a shell block.
type docExample struct {
	file   string
	line   int    // of the opening fence
	lang   string // "lua" or "sh"
	text   string
	marker string // the <!-- doctest: … --> comment before the block, if any
}

// exampleTimeout bounds each documented example's run: the longest (the
// README's 7 × 7 sweep) takes 11–13 s on a quiet 2-core machine and over
// 60 s when the machine is shared with other tests and jobs.
const exampleTimeout = "180s"

// docExamples reads every fenced block of README.md and docs/*.md whose
// language is lua, sh, bash, console or shell, or that has none. It does
// not read docs/decisions/: the history there quotes commands and scripts
// as they were, which need not run today.
func docExamples(t *testing.T) []docExample {
	t.Helper()
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"../README.md"}, files...)
	markerRe := regexp.MustCompile(`^<!-- doctest: (.*) -->$`)
	var out []docExample
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i++ {
			lang, ok := strings.CutPrefix(lines[i], "```")
			if !ok {
				continue
			}
			end := i + 1
			for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
				end++
			}
			ex := docExample{file: strings.TrimPrefix(f, "../"), line: i + 1, lang: lang, text: strings.Join(lines[i+1:end], "\n")}
			for j := i - 1; j >= 0 && j >= i-2; j-- {
				if m := markerRe.FindStringSubmatch(strings.TrimSpace(lines[j])); m != nil {
					ex.marker = m[1]
				}
			}
			i = end
			switch lang {
			case "lua":
				out = append(out, ex)
			case "", "sh", "bash", "console", "shell":
				ex.lang = "sh"
				out = append(out, ex)
			}
		}
	}
	return out
}

// docPrelude is what an example marked "with a small lasso problem"
// starts from.
const docPrelude = `local data = fedlab.data.lasso{ variant = "custom", dim = 64, support = 8, clients = 10, samples = 20 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
local p = problem
`

// docDirScript writes the run directory that DIR stands for in the
// documented commands: two calls recording opt_gap and f1 at rounds 0, 50,
// …, 500.
const docDirScript = `local data = fedlab.data.lasso{ variant = "custom", dim = 32, support = 4, clients = 6, samples = 10 }
local p = fedlab.problem{ data = data, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
local s = { problem = p, rounds = 500, local_steps = 2, eval_every = 50, seeds = { 1, 2 }, metrics = { "opt_gap", "f1" } }
s.algorithms = { fedlab.algo.fedavg{ eta_c = 0.01 }, fedlab.algo.fedmid{ eta_c = 0.01 } }
fedlab.compare(s)
s.algorithms = { fedlab.algo.feddualavg{ eta_c = 0.01 } }
fedlab.compare(s)
`

// TestDocExamples runs every Lua example and every fedlab command of the
// fenced blocks of README.md and docs/*.md: Lua blocks as scripts (a
// marker "with a small lasso problem" prepends data, problem and p), shell
// lines starting with "fedlab " or "go run ./cmd/fedlab " as commands, with
// DIR a run directory of two calls, SCRIPT.lua scripts/quickstart.lua,
// NAME fedavg and FILE a file in a temporary directory. Synopsis lines ("[--flag]") are
// usage, not commands. A block is skipped only with a marker
// <!-- doctest: skip (reason) --> before it. Other shell lines (go test,
// sbatch, kubectl) are counted, not run. It prints the counts.
//
// It is the full suite's: -short skips it (2 s of CPU even as dry runs).
func TestDocExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: running the docs' examples is the full suite's")
	}
	work := t.TempDir()
	dirScript := filepath.Join(work, "doc.lua")
	if err := os.WriteFile(dirScript, []byte(docDirScript), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(work, "DIR")
	if code, _, stderr := runCLI("run", dirScript, "--out", dir, "--quiet"); code != 0 {
		t.Fatalf("the DIR fixture: %s", stderr)
	}
	scripts, _ := filepath.Abs("../scripts")
	var ranLua, ranCmd, skipped, other, synopses int
	var reasons []string
	for _, ex := range docExamples(t) {
		where := fmt.Sprintf("%s:%d", ex.file, ex.line)
		if reason, ok := strings.CutPrefix(ex.marker, "skip "); ok {
			skipped++
			reasons = append(reasons, where+" "+reason)
			continue
		}
		if ex.lang == "lua" {
			src := ex.text + "\n"
			if ex.marker == "with a small lasso problem" {
				src = docPrelude + src
			}
			script := filepath.Join(work, fmt.Sprintf("ex%d.lua", ranLua))
			if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, stdout, stderr := runCLI("run", script, "--out", script+".out", "--quiet", "--timeout", exampleTimeout); code != 0 {
				t.Errorf("%s: the Lua example fails (exit %d):\n%s\n%s", where, code, tail(stdout), stderr)
			}
			ranLua++
			continue
		}
		for _, line := range strings.Split(ex.text, "\n") {
			cmd := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "$ "))
			if i := strings.Index(cmd, " #"); i >= 0 {
				cmd = strings.TrimSpace(cmd[:i])
			}
			args, isFedlab := strings.CutPrefix(cmd, "go run ./cmd/fedlab ")
			if !isFedlab {
				args, isFedlab = strings.CutPrefix(cmd, "fedlab ")
			}
			switch {
			case cmd == "":
				continue
			case !isFedlab:
				if looksLikeCommand(cmd) {
					other++
				}
				continue
			case strings.Contains(args, "[") || strings.Contains(args, "..."):
				synopses++
				continue
			}
			fields := strings.Fields(args)
			for i, f := range fields {
				switch {
				case f == "DIR":
					fields[i] = dir
				case f == "NAME":
					fields[i] = "fedavg"
				case f == "SCRIPT.lua":
					fields[i] = filepath.Join(scripts, "quickstart.lua")
				case f == "FILE" || f == "table.tex":
					fields[i] = filepath.Join(work, "out-"+f)
				case strings.HasPrefix(f, "scripts/"):
					fields[i] = filepath.Join(scripts, strings.TrimPrefix(f, "scripts/"))
				}
			}
			if fields[0] == "run" && !slices.Contains(fields, "--out") {
				fields = append(fields, "--out", filepath.Join(work, fmt.Sprintf("run%d", ranCmd)))
			}
			if fields[0] == "run" {
				fields = append(fields, "--timeout", exampleTimeout, "--quiet") // a documented command of minutes needs a skip marker
			}
			if code, stdout, stderr := runCLI(fields...); code != 0 {
				t.Errorf("%s: `%s` fails (exit %d):\n%s\n%s", where, cmd, code, tail(stdout), stderr)
			}
			ranCmd++
		}
	}
	summary := fmt.Sprintf("doc examples: ran %d Lua examples and %d fedlab commands; %d blocks skipped by marker; %d synopsis lines and %d other commands (go, sbatch, kubectl) not run",
		ranLua, ranCmd, skipped, synopses, other)
	fmt.Println(summary)
	for _, r := range reasons {
		fmt.Println("  skipped: " + r)
	}
	if ranLua < 5 || ranCmd < 10 {
		t.Errorf("%s: fewer than expected; did the parser break?", summary)
	}
}

// looksLikeCommand tells a shell command from output shown in a plain block.
func looksLikeCommand(s string) bool {
	for _, p := range []string{"go ", "sbatch", "kubectl", "./", "bash ", "apt-get", "sudo ", "/usr/bin/"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// tail is the last lines of a command's output.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-15):], "\n")
}
