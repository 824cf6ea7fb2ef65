package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/experiment"
)

func TestSweepTable(t *testing.T) {
	runs := []experiment.Run{
		sweepRun("X", 1, 10, 0.5, false), sweepRun("X", 1, 20, 0.7, false),
		sweepRun("X", 2, 10, 0, true), sweepRun("X", 2, 20, 0.6, false),
		sweepRun("Y", 1, 10, 0, true),
	}
	rules := []experiment.Rule{{Metric: "acc", Mode: "max"}}
	var buf bytes.Buffer
	if err := SweepTable(&buf, experiment.Select(runs, rules), rules, SweepOptions{Title: "grid"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"grid\n", "X: max acc (at the last round)\n", `a \ b`, "10", "20",
		"*0.7", "diverged@5", "0.6", "best X: a=1 b=20 (acc 0.7)", "best Y: none"} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep table lacks %q:\n%s", want, out)
		}
	}
	buf.Reset()
	if err := SweepTable(&buf, experiment.Select(runs, rules), rules, SweepOptions{Cols: "a"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `b \ a`) {
		t.Errorf("cols = a:\n%s", buf.String())
	}
	if err := SweepTable(&buf, experiment.Select(runs, rules), rules, SweepOptions{Cols: "c"}); err == nil {
		t.Errorf("an unknown cols key passed")
	}
}

// A grid value computed in the script (c = 0.1/(lr/w^(1/3))²) is shown
// with six significant digits in the grid's margin, not all seventeen.
func TestSweepTableRoundsComputedKeys(t *testing.T) {
	runs := []experiment.Run{sweepRun("X", 239381.6322257649, 0.03, 0.5, false), sweepRun("X", 2393.8163222576486, 0.3, 0.7, false)}
	rules := []experiment.Rule{{Metric: "acc", Mode: "max"}}
	var buf bytes.Buffer
	if err := SweepTable(&buf, experiment.Select(runs, rules), rules, SweepOptions{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "239382 ") || !strings.Contains(out, "2393.82 ") || strings.Contains(out, "239381.63") {
		t.Errorf("grid margin not rounded to six digits:\n%s", out)
	}
}

// A halving sweep reads as one sweep: one grid per algorithm in which a
// configuration that stopped before the last rung carries its rung as a
// superscript and a footnote says what the marks mean, one selection
// (among the last rung's) and the edges of the whole grid. Rung 1 ran the
// four configurations for 3 rounds, rung 2 the best two (a = 1) for 10.
func TestSweepTableOfAHalvingSweep(t *testing.T) {
	at := func(r experiment.Run, round int) experiment.Run {
		r.Result.Records[1].Round = round
		return r
	}
	rung1 := []experiment.Run{
		at(sweepRun("X", 1, 10, 0.5, false), 3), at(sweepRun("X", 1, 20, 0.4, false), 3),
		sweepRun("X", 2, 10, 0, true), at(sweepRun("X", 2, 20, 0.3, false), 3),
	}
	rung2 := []experiment.Run{sweepRun("X", 1, 10, 0.55, false), sweepRun("X", 1, 20, 0.7, false)}
	rules := []experiment.Rule{{Metric: "acc", Mode: "max"}}
	sels := experiment.SelectRungs([][]experiment.Run{rung1, rung2}, []int{3, 10}, rules)
	var buf bytes.Buffer
	if err := SweepTable(&buf, sels, rules, SweepOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `X: max acc (at the last round)
a \ b           10    20
─────  ───────────  ────
    1         0.55  *0.7
    2  diverged@5¹  0.3¹
¹ stopped at rung 1 of 2 (3 rounds); unmarked: ran the last rung (10 rounds)
best X: a=1 b=20 (acc 0.7)
edge of the grid: a = 1 is the smallest value of its grid {1, 2}: the best value may lie beyond the grid; extend it to be sure
edge of the grid: b = 20 is the largest value of its grid {10, 20}: the best value may lie beyond the grid; extend it to be sure
`
	if buf.String() != want {
		t.Errorf("halving sweep table:\n%s\nwant:\n%s", buf.String(), want)
	}
	if note := RungNote(experiment.Select(rung2, rules)[0]); note != "" {
		t.Errorf("a full grid's rung note %q", note)
	}
	if got := superscript(12); got != "¹²" {
		t.Errorf("superscript(12) = %q", got)
	}
}
