package cli

import (
	"flag"
	"strings"
	"testing"
)

// TestCommandHelp: `fedlab CMD --help`, `fedlab CMD -h` and `fedlab help
// CMD` print the same page on standard output and exit 0: the synopsis,
// every flag of the command's flag set and of its source (so that a new
// flag appears without editing the help), what 0 or empty means for the
// flags whose 0 is a default, and two examples of the command.
func TestCommandHelp(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	defined := definedFlags(t)
	for _, c := range commands {
		_, page, _ := runCLI("help", c.name)
		for _, args := range [][]string{{c.name, "--help"}, {c.name, "-h"}, {c.name, "-help"}, {"help", c.name}} {
			code, stdout, stderr := runCLI(args...)
			if code != 0 || stderr != "" || stdout != page {
				t.Errorf("fedlab %v: exit %d, stderr %q, page differs from fedlab help %s: %v", args, code, stderr, c.name, stdout != page)
			}
		}
		fs := flagSet(c)
		want := "usage: fedlab " + synopsis(c)
		if hasFlags(fs) {
			want += " [flags]"
		}
		if first, _, _ := strings.Cut(page, "\n"); first != want {
			t.Errorf("fedlab help %s: first line %q, want %q", c.name, first, want)
		}
		var flags []string
		if fs != nil {
			fs.VisitAll(func(f *flag.Flag) { flags = append(flags, f.Name) })
		}
		if len(flags) != len(defined[c.name]) {
			t.Errorf("fedlab %s: its flag set has %v, its source defines %v", c.name, flags, defined[c.name])
		}
		for _, f := range append(flags, defined[c.name]...) {
			if !strings.Contains(page, "\n  --"+f+" ") && !strings.Contains(page, "\n  --"+f+"\n") {
				t.Errorf("fedlab help %s does not list --%s:\n%s", c.name, f, page)
			}
		}
		_, examples, ok := strings.Cut(page, "\nexamples:\n")
		if n := strings.Count(examples, "\n  fedlab "); !ok || n < 1 || len(c.examples) != 2 || !strings.HasPrefix(examples, "  fedlab ") {
			t.Errorf("fedlab help %s: examples %q, want two", c.name, examples)
		}
		for _, e := range c.examples {
			if !strings.HasPrefix(e, "fedlab "+c.name) && !(c.name == "version" && e == "fedlab --version") {
				t.Errorf("fedlab help %s: the example %q is not of the command", c.name, e)
			}
		}
	}
	// what 0 or empty means, for flags whose zero value is a default
	for cmd, phrases := range map[string][]string{
		"run": {"--jobs N         execute N runs at once (0: the number of CPUs", "--workers N      update the clients of a run on N worker goroutines (0: the CPUs divided",
			"--timeout D      stop after D (e.g. 90s, 2h; 0: no limit)", "(empty: runs/SCRIPT-YYYYMMDD-HHMMSS)", "--max-memory M   keep data and state under the memory ceiling M, e.g. 4GB (empty: the tightest"},
		"table":  {"--width W      text tables wider than W columns wrap (0: 100; else at least 20)", "--call N       only call N of the script, counted from 1 (0: every call)", "(default text)"},
		"plot":   {"--height CM     figure height CM, 2 to 60 (0: 10 per row of panels)", "--width CM      figure width CM, 2 to 60 (0: 16)", "--font-size PT  font size PT in points, 4 to 36 (0: 10)", "(default round)"},
		"report": {"(empty: DIR/report.html)"},
	} {
		_, page, _ := runCLI("help", cmd)
		words := strings.Join(strings.Fields(page), " ") // columns and wrapping aside
		for _, p := range phrases {
			if !strings.Contains(words, strings.Join(strings.Fields(p), " ")) {
				t.Errorf("fedlab help %s lacks %q:\n%s", cmd, p, page)
			}
		}
	}
}

// TestGlobalHelp: fedlab --help, -h and help list the commands with one
// line each (it printed a 90-line page of every flag) and exit 0; fedlab
// alone prints the same on standard error and exits 2.
func TestGlobalHelp(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	_, page, _ := runCLI("help")
	for _, args := range [][]string{{"--help"}, {"-h"}, {"-help"}} {
		if code, stdout, stderr := runCLI(args...); code != 0 || stdout != page || stderr != "" {
			t.Errorf("fedlab %v: exit %d, stderr %q; want 0 and the page of fedlab help", args, code, stderr)
		}
	}
	if code, stdout, stderr := runCLI(); code != 2 || stdout != "" || stderr != page {
		t.Errorf("fedlab alone: exit %d, stdout %q, stderr %q; want 2 and the list of commands", code, stdout, stderr)
	}
	if !strings.HasPrefix(page, "usage: fedlab COMMAND [ARGUMENTS] [FLAGS]\n") {
		t.Errorf("fedlab help starts %q", page[:min(len(page), 60)])
	}
	for _, c := range commands {
		if !strings.Contains(page, "\n  "+synopsis(c)+" ") || !strings.Contains(page, "  "+c.summary+"\n") {
			t.Errorf("fedlab help does not list %q with %q:\n%s", synopsis(c), c.summary, page)
		}
	}
	if n := strings.Count(page, "\n"); n > 25 {
		t.Errorf("fedlab help has %d lines, want at most 25:\n%s", n, page)
	}
	for _, code := range []string{" 1 ", " 2 ", " 3 ", " 124 ", " 130 ", " 143 "} {
		if !strings.Contains(strings.ReplaceAll(page, "\n", " "), code) {
			t.Errorf("fedlab help does not name the exit status%s", code)
		}
	}
	if code, _, stderr := runCLI("help", "rnu"); code != 2 || !strings.HasPrefix(stderr, `fedlab: unknown command "rnu" (did you mean "run"?)`) {
		t.Errorf("fedlab help rnu: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI("help", "run", "plot"); code != 2 || !strings.HasPrefix(stderr, "fedlab: help takes at most one command\n") {
		t.Errorf("fedlab help run plot: exit %d, %q", code, stderr)
	}
}
