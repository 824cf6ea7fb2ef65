package experiment

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressCountsRoundsAndSmoothsTheRate follows a call of two runs of
// 100 rounds executed together (a cohort) on a fake clock: the line counts
// the rounds of both from their first round on (a run that ends early has
// none left), and the rate is that of the last RateWindow, so the estimate
// follows the current pace and does not jump when a run ends.
func TestProgressCountsRoundsAndSmoothsTheRate(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false, "call 1: fedlab.compare at s.lua:3", 2, 0)
	now := time.Unix(100, 0)
	p.now = func() time.Time { return now }
	p.begin([]int{100, 100}, false)
	p.runStarted()
	p.runStarted()
	step := func(at int, r0, r1 int) {
		now = time.Unix(int64(at), 0)
		p.round(0, r0, 100)
		p.round(1, r1, 100)
	}
	step(103, 1, 1) // the first round after 3 s of set-up, which the rate leaves out
	step(110, 8, 8)
	p.tick() // 15 rounds since the first in 7 s: 2.14 rounds/s, 184 left
	step(120, 28, 28)
	p.tick() // the last 10 s: 40 rounds, 4 rounds/s, 144 left
	step(130, 48, 40)
	p.runEnded(1, "diverged", false) // its 60 rounds left are no longer to do
	p.tick()                         // the last 10 s: 32 rounds, 3.2 rounds/s, 52 left
	now = time.Unix(131, 0)
	p.round(0, 100, 100)
	p.runEnded(0, "done", false)
	p.end()
	want := "call 1: fedlab.compare at s.lua:3: rounds 16/200, runs 0/2, 2 running, 10s, 2.14 rounds/s, ETA 1m26s\n" +
		"call 1: fedlab.compare at s.lua:3: rounds 56/200, runs 0/2, 2 running, 20s, 4 rounds/s, ETA 36s\n" +
		"call 1: fedlab.compare at s.lua:3: rounds 148/200, runs 1/2 (1 diverged), 1 running, 30s, 3.2 rounds/s, ETA 16s\n" +
		"call 1: fedlab.compare at s.lua:3: runs 2/2 (1 diverged) in 31s, 3.87 runs/min, 4.52 rounds/s\n"
	if buf.String() != want {
		t.Errorf("progress lines\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestProgressWindow: the rate looks back to the newest tick at least
// RateWindow old, so a burst a minute ago no longer counts, and a call
// whose rounds stopped for a while shows its slower pace.
func TestProgressWindow(t *testing.T) {
	p := NewProgress(&bytes.Buffer{}, true, "c", 1, 0)
	now := time.Unix(0, 0)
	p.now = func() time.Time { return now }
	p.begin([]int{10000}, false)
	at := func(sec float64, done int) {
		now = time.Unix(0, 0).Add(time.Duration(sec * float64(time.Second)))
		p.round(0, done, 10000)
		p.tick()
	}
	at(1, 1)
	at(1.5, 1001) // 1000 rounds in 0.5 s
	for s := 2.0; s <= 60; s += 0.5 {
		at(s, 1001+int((s-1.5)*100)) // then 100 rounds/s for a minute
	}
	if r, ok := p.rate(now); !ok || r != 100 {
		t.Errorf("rate after a minute at 100 rounds/s: %g (%v), want 100", r, ok)
	}
	if len(p.samples) != 21 || !p.samples[0].at.Equal(now.Add(-RateWindow)) {
		t.Errorf("%d samples from %v; want 21 from %v", len(p.samples), p.samples[0].at, now.Add(-RateWindow))
	}
	last := p.doneRounds[0].Load()
	for s := 60.5; s <= 65; s += 0.5 { // stalled for 5 s: half the window without rounds
		at(s, int(last))
	}
	if r, ok := p.rate(now); !ok || r != 50 {
		t.Errorf("rate after 5 s of the last 10 without rounds: %g (%v), want 50", r, ok)
	}
}

func TestProgressLines(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, true, "call 2: fedlab.sweep at s.lua:3", 10, 4)
	now := time.Unix(100, 0)
	p.now = func() time.Time { return now }
	p.begin([]int{10, 20, 15, 15, 15, 15}, false)
	p.runStarted()
	p.runStarted()
	now = now.Add(2 * time.Second) // set-up before the first round: not part of the rate
	p.round(0, 1, 10)
	p.tick() // after 2 s: a line, but no rate yet
	now = now.Add(3 * time.Second)
	p.round(0, 10, 10)
	p.runEnded(0, "done", false)
	p.runStarted()
	p.round(1, 4, 20)
	p.runEnded(2, "diverged", false) // before its first round: its 15 rounds are accounted for
	p.tick()
	now = now.Add(time.Second)
	p.end()
	// rounds accounted: 10 + 4 + 15 of 90; 13 rounds since the first in
	// 3 s: 61 left take 14 s
	first := "call 2: fedlab.sweep at s.lua:3: rounds 1/90, runs 4/10 (4 stored), 2 running, 2s, ETA ?"
	second := "call 2: fedlab.sweep at s.lua:3: rounds 29/90, runs 6/10 (4 stored, 1 diverged), 1 running, 5s, 4.33 rounds/s, ETA 14s"
	summary := "call 2: fedlab.sweep at s.lua:3: runs 6/10 (4 stored, 1 diverged) in 6s, 20 runs/min, 2.33 rounds/s"
	want := "\r" + first + "\r" + second + "\r" + summary + strings.Repeat(" ", len(second)-len(summary)) + "\n"
	if buf.String() != want {
		t.Errorf("progress output\n%q, want\n%q", buf.String(), want)
	}
	buf.Reset()
	r := NewProgress(&buf, false, "call 1: fedlab.run at s.lua:2", 2, 0)
	r.now = p.now
	r.begin([]int{5, 5}, false)
	r.runStarted()
	r.runStarted()
	r.runEnded(0, "done", false)
	r.runEnded(1, "interrupted", false) // its rounds stay to do
	now = now.Add(20 * time.Second)
	r.tick()
	if want := "call 1: fedlab.run at s.lua:2: rounds 5/10, runs 1/2 (1 interrupted), 0 running, 20s, ETA ?\n"; buf.String() != want {
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
	q.begin([]int{3, 3}, false)
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
		p.begin([]int{10, 10}, false)
		p.runStarted()
		p.runStarted()
		p.round(0, 5, 10)
		now = now.Add(15 * time.Second)
		p.round(0, 10, 10)
		p.runEnded(0, "done", false)
		p.round(1, 10, 10)
		p.runEnded(1, "diverged", false)
		p.tick()
		p.end()
		buf.WriteString("TABLE\n") // the script prints a table between its calls

		q := s.Call("call 2: fedlab.run at s.lua:9", 3, 2) // too short to show a line
		q.begin([]int{20}, false)
		q.runStarted()
		q.round(0, 20, 20)
		q.runEnded(0, "done", true) // its model did not move
		now = now.Add(time.Second)
		q.end()
		s.End()

		line := "call 1: fedlab.compare at s.lua:3: rounds 20/20, runs 2/2 (1 diverged), 0 running, 15s, 1 rounds/s, ETA 0s; script 15s"
		var want string
		if interactive {
			want = "\r" + line + "\r" + strings.Repeat(" ", len(line)) + "\r" + "TABLE\n"
		} else {
			want = line + "\n" +
				"call 1: fedlab.compare at s.lua:3: runs 2/2 (1 diverged) in 15s, 8 runs/min, 1.33 rounds/s\n" + "TABLE\n"
		}
		want += "s.lua: 2 calls, runs 5/5 (2 stored, 1 diverged, 1 did not move) in 16s, 11.2 runs/min, 2.5 rounds/s\n"
		if buf.String() != want {
			t.Errorf("interactive %v:\n%q, want\n%q", interactive, buf.String(), want)
		}
	}
}

// TestProgressRateCountsOnlyThisSessionsRounds: a run resumed from a
// checkpoint after round 2000 reports 2001 after its first round; its
// 2000 restored rounds count in "rounds done/planned" but not in the rate,
// the ETA or the summary's throughput, which are this session's work.
func TestProgressRateCountsOnlyThisSessionsRounds(t *testing.T) {
	var buf bytes.Buffer
	p := NewProgress(&buf, false, "call 1", 2, 0)
	now := time.Unix(103, 0)
	p.now = func() time.Time { return now }
	p.begin([]int{6000, 6000}, false)
	p.runStarted()
	p.runStarted()
	p.resumed(0, 2000)
	p.resumed(1, 0)
	p.round(1, 1, 6000) // a fresh run's first round, at 103 s
	now = time.Unix(105, 0)
	p.round(0, 2001, 6000) // the resumed run's first round
	now = time.Unix(113, 0)
	p.round(0, 2251, 6000)
	p.round(1, 251, 6000)
	p.tick() // computed this session: 251 + 251 = 502 rounds, 501 since the first in 10 s: 50.1 rounds/s; 9498 left
	now = time.Unix(123, 0)
	p.round(0, 6000, 6000)
	p.runEnded(0, "done", false)
	p.round(1, 4000, 6000)
	p.runEnded(1, "interrupted", false)
	p.end() // 4000 + 4000 rounds computed in 20 s: 400 rounds/s
	want := "call 1: rounds 2502/12000, runs 0/2, 2 running, 10s, 50.1 rounds/s, ETA 3m10s\n" +
		"call 1: runs 1/2 (1 interrupted) in 20s, 3 runs/min, 400 rounds/s\n"
	if buf.String() != want {
		t.Errorf("progress lines\n%s\nwant\n%s", buf.String(), want)
	}
}
