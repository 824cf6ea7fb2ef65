package experiment

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fedlab/fedlab/core"
)

// handRun makes a run of label with config eta=eta whose metrics "f1" and
// "err" at rounds 0, 10, …, 100 are given by f.
func handRun(label string, eta float64, seed uint64, f func(round int) (f1, err float64)) Run {
	res := &core.Result{Metrics: []string{"f1", "err"}, Status: core.Done}
	for r := 0; r <= 100; r += 10 {
		a, b := f(r)
		res.Records = append(res.Records, core.Record{Round: r, Values: []float64{a, b}})
	}
	return Run{Label: label, Seed: seed, Config: NewConfig(NewSetting("eta", eta)), Result: res}
}

func diverge(r Run, at int) Run {
	res := *r.Result
	res.Status, res.DivergedAt = core.Diverged, at
	res.Records = res.Records[:at/10]
	r.Result = &res
	return r
}

func TestSelectPicksTheRightConfig(t *testing.T) {
	runs := []Run{
		// eta 1: best final F1 (0.95) but a poor mean over the last 30 rounds
		handRun("A", 1, 1, func(r int) (float64, float64) {
			if r == 100 {
				return 0.95, 1
			}
			return 0.5, 1
		}),
		// eta 2: F1 0.9 over the last 30 rounds (mean 0.9)
		handRun("A", 2, 1, func(r int) (float64, float64) { return 0.9, 2 }),
		// eta 3: the same mean F1 as eta 2 (final 0.8) with a smaller error: wins the tie-break
		handRun("A", 3, 1, func(r int) (float64, float64) {
			if r >= 80 {
				return []float64{1, 0.9, 0.8}[(r-80)/10], 0.5
			}
			return 0, 0.5
		}),
		// eta 4: would be best, but diverged
		diverge(handRun("A", 4, 1, func(int) (float64, float64) { return 1, 0 }), 50),
		// label B: two seeds; eta 1 has the higher mean
		handRun("B", 1, 1, func(int) (float64, float64) { return 0.6, 0 }),
		handRun("B", 1, 2, func(int) (float64, float64) { return 0.8, 0 }),
		handRun("B", 2, 1, func(int) (float64, float64) { return 0.65, 0 }),
		handRun("B", 2, 2, func(int) (float64, float64) { return 0.7, 0 }),
		// label C: every configuration diverged or failed
		diverge(handRun("C", 1, 1, func(int) (float64, float64) { return 1, 0 }), 30),
		{Label: "C", Seed: 1, Config: NewConfig(NewSetting("eta", 2.0)), Result: &core.Result{Status: core.Failed}},
	}
	window := []Rule{{Metric: "f1", Mode: "max", Last: 30}, {Metric: "err", Mode: "min", Last: 30}}
	sel := Select(runs, window)
	if len(sel) != 3 || sel[0].Label != "A" || sel[1].Label != "B" || sel[2].Label != "C" {
		t.Fatalf("selections %+v", sel)
	}
	a := sel[0]
	if len(a.Candidates) != 4 || a.Best != 2 {
		t.Errorf("A: best %d, want 2 (eta 3)", a.Best)
	}
	if got := a.Candidates[2].Scores[0]; math.Abs(got-0.9) > 1e-15 {
		t.Errorf("A eta 3 mean F1 %v, want 0.9", got)
	}
	if a.Candidates[3].Status != "diverged@50" {
		t.Errorf("A eta 4 status %q", a.Candidates[3].Status)
	}
	b := sel[1]
	if b.Best != 0 || len(b.Candidates[0].Runs) != 2 || math.Abs(b.Candidates[0].Scores[0]-0.7) > 1e-15 {
		t.Errorf("B: best %d, candidate %+v", b.Best, b.Candidates[0])
	}
	if sd := b.Candidates[0].Spread[0]; math.Abs(sd-math.Sqrt(0.02)) > 1e-12 {
		t.Errorf("B spread %v", sd)
	}
	if sel[2].Best != -1 || sel[2].Candidates[1].Status != "failed" {
		t.Errorf("C: %+v", sel[2])
	}
	// At the last round, eta 1 wins A (0.95); minimizing err at the last round, eta 3 (0.5).
	if s := Select(runs, []Rule{{Metric: "f1", Mode: "max"}}); s[0].Best != 0 {
		t.Errorf("final F1: best %d, want 0", s[0].Best)
	}
	if s := Select(runs, []Rule{{Metric: "err", Mode: "min"}}); s[0].Best != 2 {
		t.Errorf("min err: best %d, want 2", s[0].Best)
	}
	if s := Select(runs, []Rule{{Metric: "nope", Mode: "min"}}); s[0].Best != -1 || s[0].Candidates[0].Status != "no score" {
		t.Errorf("unknown metric: %+v", s[0])
	}
}

func TestRuleCheckAndString(t *testing.T) {
	for _, r := range []Rule{{Mode: "max"}, {Metric: "f1", Mode: "best"}, {Metric: "f1", Mode: "min", Last: -1}} {
		if r.Check() == nil {
			t.Errorf("%+v passed the check", r)
		}
	}
	if s := (Rule{Metric: "f1", Mode: "max", Last: 100}).String(); s != "max f1 (mean over the last 100 rounds)" {
		t.Errorf("%q", s)
	}
}

func TestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true, "call 2: fedlab.sweep at s.lua:3", 10, 4)
	now := time.Unix(100, 0)
	p.now = func() time.Time { return now }
	p.begin(6, false)
	p.runStarted()
	p.runStarted()
	now = now.Add(2 * time.Second) // set-up before the first round: not part of the rate
	p.round(0, 1, 10)
	p.tick() // after 2 s: a line, but no rate yet
	now = now.Add(3 * time.Second)
	p.round(0, 10, 10)
	p.runEnded(0, "done")
	p.runStarted()
	p.round(1, 4, 20)
	p.runEnded(2, "diverged")
	p.tick()
	now = now.Add(time.Second)
	p.end()
	// rounds: 10 + 4 done of 10 + 20 + 3 runs × 15 (the average) = 75;
	// 13 rounds since the first in 3 s: 61 left take 14 s
	want := "\rcall 2: fedlab.sweep at s.lua:3: runs 4/10 (4 stored), 2 running, 2s, ETA ?" +
		"\rcall 2: fedlab.sweep at s.lua:3: runs 6/10 (4 stored, 1 diverged), 1 running, 5s, ETA 14s" +
		"\rcall 2: fedlab.sweep at s.lua:3: runs 6/10 (4 stored, 1 diverged) in 6s, 20 runs/min, 2.33 rounds/s\n"
	if buf.String() != want {
		t.Errorf("progress output\n%q, want\n%q", buf.String(), want)
	}
	buf.Reset()
	r := NewProgress(&buf, false, "call 1: fedlab.run at s.lua:2", 2, 0)
	r.now = p.now
	r.begin(2, false)
	r.runStarted()
	r.runStarted()
	r.runEnded(0, "done")
	r.runEnded(1, "interrupted")
	now = now.Add(20 * time.Second)
	r.tick()
	if want := "call 1: fedlab.run at s.lua:2: runs 1/2 (1 interrupted), 0 running, 20s, ETA ?\n"; buf.String() != want {
		t.Errorf("interrupted run: %q, want %q", buf.String(), want)
	}
	for _, c := range []struct {
		runs, rounds float64
		el           time.Duration
		want         string
	}{
		{98, 12100, 10 * time.Second, "9.8 runs/s, 1.21k rounds/s"},
		{4, 4000, 3 * time.Minute, "1.33 runs/min, 22.2 rounds/s"},
		{2, 10, 90 * time.Minute, "45m0s per run, 0.111 rounds/min"},
	} {
		if got := Throughput(c.runs, c.rounds, c.el); got != c.want {
			t.Errorf("Throughput(%g, %g, %s) = %q, want %q", c.runs, c.rounds, c.el, got, c.want)
		}
	}
	buf.Reset()
	q := NewProgress(&buf, false, "fedlab.compare", 2, 0)
	q.now = p.now
	q.begin(2, false)
	q.tick()
	q.end()
	if buf.Len() != 0 {
		t.Errorf("a short call printed %q", buf.String())
	}
}

// TestScriptProgressKeepsOneLine checks that on a terminal the calls of a
// script share one line, erased when a call ends (the script's tables come
// next), and that one summary for the script is printed at its end; in a
// log every call keeps its summary and the script adds its own.
func TestScriptProgressKeepsOneLine(t *testing.T) {
	for _, interactive := range []bool{true, false} {
		var buf bytes.Buffer
		s := NewScriptProgress(&buf, interactive, "s.lua")
		now := time.Unix(100, 0)
		s.now, s.start = func() time.Time { return now }, now

		p := s.Call("call 1: fedlab.compare at s.lua:3", 2, 0)
		p.begin(2, false)
		p.runStarted()
		p.runStarted()
		p.round(0, 5, 10)
		now = now.Add(15 * time.Second)
		p.round(0, 10, 10)
		p.runEnded(0, "done")
		p.round(1, 10, 10)
		p.runEnded(1, "diverged")
		p.tick()
		p.end()
		buf.WriteString("TABLE\n") // the script prints a table between its calls

		q := s.Call("call 2: fedlab.run at s.lua:9", 3, 2) // too short to show a line
		q.begin(1, false)
		q.runStarted()
		q.round(0, 20, 20)
		q.runEnded(0, "done")
		now = now.Add(time.Second)
		q.end()
		s.End()

		line := "call 1: fedlab.compare at s.lua:3: runs 2/2 (1 diverged), 0 running, 15s, ETA 0s; script 15s"
		var want string
		if interactive {
			want = "\r" + line + "\r" + strings.Repeat(" ", len(line)) + "\r" + "TABLE\n"
		} else {
			want = line + "\n" +
				"call 1: fedlab.compare at s.lua:3: runs 2/2 (1 diverged) in 15s, 8 runs/min, 1.33 rounds/s\n" + "TABLE\n"
		}
		want += "s.lua: 2 calls, runs 5/5 (2 stored, 1 diverged) in 16s, 11.2 runs/min, 2.5 rounds/s\n"
		if buf.String() != want {
			t.Errorf("interactive %v:\n%q, want\n%q", interactive, buf.String(), want)
		}
	}
}
