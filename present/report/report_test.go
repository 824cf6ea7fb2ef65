package report

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/experiment/experimenttest"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

func TestTableMeanStd(t *testing.T) {
	var buf bytes.Buffer
	if err := Table(&buf, testRuns(), TableOptions{Metrics: []string{"acc"}, Title: "demo"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"demo (mean ± sample std over 1–2 seeds)\n",
		"0.60 ± 0.14",          // a at round 0: mean of 0.5 and 0.7, std 0.1414
		"0.80 ± 0.14",          // a at round 20
		"  0.7 (1 diverged)\n", // b at round 20: one seed left
		"  0.6\n",              // b at round 10: both seeds agree, no ±
		"failed",               // c
		"label", "round", "acc",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "loss") {
		t.Errorf("table shows an unrequested metric:\n%s", out)
	}
}

func TestTableRequestedRoundsAndTranspose(t *testing.T) {
	var buf bytes.Buffer
	runs := []experiment.Run{run("b", 2, 0.5, core.Diverged, 15)}
	if err := Table(&buf, runs, TableOptions{Rounds: []int{0, 10, 20}, Metrics: []string{"acc"}, Transpose: true}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	// round 0 is 0.5, round 10 is 0.6, 20 is past the divergence
	for _, want := range []string{"acc \\ round", "0.5", "0.6", "diverged@15"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if err := Table(&buf, runs, TableOptions{Metrics: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown metric: got %v", err)
	}
}

func TestDefaultRounds(t *testing.T) {
	var res core.Result
	for r := 0; r <= 100; r += 10 {
		res.Records = append(res.Records, core.Record{Round: r})
	}
	got := defaultRounds([]experiment.Run{{Result: &res}})
	want := []int{0, 20, 40, 60, 80, 100}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// A label is free text: in Markdown and LaTeX it must not break the table
// (in a records file, see runfile's test of the same name).
func TestFreeTextCannotEscapeItsCell(t *testing.T) {
	label := "=HYPERLINK(\"http://x\")|a\nb & c"
	runs := []experiment.Run{run(label, 1, 0.5, core.Done, 0)}
	for _, format := range []string{"md", "latex"} {
		var b bytes.Buffer
		if err := Table(&b, runs, TableOptions{Metrics: []string{"acc"}, Format: format}); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(line, "b & c") || strings.HasPrefix(line, "b \\& c") {
				t.Errorf("%s: the label's newline started a new line:\n%s", format, b.String())
			}
		}
		if format == "md" && !strings.Contains(b.String(), `\|a\\nb`) {
			t.Errorf("markdown: pipe or newline not escaped:\n%s", b.String())
		}
	}
}

// TestTableNeverShowsAnotherRound: a requested round that no run evaluated
// is refused with the evaluated rounds (it showed the last evaluated
// round's values under the requested number), a round beyond the runs is
// refused, a round one run evaluated and another did not reads "–" for
// the other with a caption saying so, and runs that all failed still get
// a row that says "failed" (it printed a header with no rows).
func TestTableNeverShowsAnotherRound(t *testing.T) {
	runs := []experiment.Run{run("a", 1, 0.5, core.Done, 0)} // rounds 0, 10, 20
	var buf bytes.Buffer
	err := Table(&buf, runs, TableOptions{Rounds: []int{0, 15}})
	if err == nil || err.Error() != "round 15 was not evaluated; the evaluated rounds are 0, 10, 20 (set eval_every, or choose among them)" {
		t.Errorf("round 15: got %v", err)
	}
	err = Table(&buf, runs, TableOptions{Rounds: []int{1 << 53}})
	if err == nil || err.Error() != "round 9007199254740992 is beyond the runs: their last evaluated round is 20" {
		t.Errorf("round 2^53: got %v", err)
	}
	sparse := run("b", 1, 0.5, core.Done, 0)
	sparse.Result.Records = []core.Record{sparse.Result.Records[0], sparse.Result.Records[2]} // rounds 0 and 20
	buf.Reset()
	if err := Table(&buf, append(runs, sparse), TableOptions{Rounds: []int{10}, Metrics: []string{"acc"}}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "not evaluated at that round") || !regexp.MustCompile(`(?m)^b +10 +–$`).MatchString(out) {
		t.Errorf("round 10 of a run evaluated at 0 and 20:\n%s", out)
	}
	buf.Reset()
	if err := Table(&buf, []experiment.Run{run("c", 1, 0, core.Failed, 0)}, TableOptions{}); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !regexp.MustCompile(`(?m)^c +0 +failed`).MatchString(out) {
		t.Errorf("all runs failed: want a row reading failed:\n%s", out)
	}
}

// The runs of the tests (experimenttest).
var (
	run      = experimenttest.Run
	testRuns = experimenttest.Runs
	sweepRun = experimenttest.SweepRun
)

// TestATableOfRunsThatAllFailedSaysWhy: runs that failed before measuring
// anything give no table; the error says how many failed and the first's
// error, escaped for the terminal.
func TestATableOfRunsThatAllFailedSaysWhy(t *testing.T) {
	failed := experiment.Run{Label: "fedmid", Seed: 1, Result: &core.Result{Status: core.Failed, Err: "its checkpoint\x1b[2J is kept"}}
	done := experiment.Run{Label: "fedavg", Seed: 1, Result: &core.Result{Status: core.Done}}
	err := Table(io.Discard, []experiment.Run{failed, done}, TableOptions{})
	want := `the runs measured no metrics: 1 of 2 failed (fedmid seed 1: "its checkpoint\x1b[2J is kept")`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
