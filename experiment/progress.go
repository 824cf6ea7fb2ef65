package experiment

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Progress reports the runs of one call on standard error: the call (its
// index, function and place in the script, as the title), the rounds
// completed out of the rounds planned for all the runs it executes (runs
// executed together in a cohort included, each counted as it goes), runs
// done out of the total, how many are running, diverged or failed, the
// elapsed time, the rate of rounds and an estimate of the time left. On a
// terminal (Interactive) one line is redrawn in place twice a second once
// the call has taken two seconds; otherwise (a log file, a cluster job)
// the same line is printed every ten seconds. Nothing is printed for calls
// that finish sooner. The rate is that of the last RateWindow (the rounds
// completed since the newest tick at least RateWindow old, or since the
// first round when the call is younger: the set-up before it, data and
// reference optimum, does not count), so the estimate follows the
// current pace instead of jumping with each run that starts or ends: the
// rounds left (a run that ended leaves none, even if it diverged early)
// at that rate. The calls of a script share one line through
// ScriptProgress.
type Progress struct {
	w           io.Writer
	title       string
	interactive bool
	total       int // runs of the call
	stored      int // runs found in the run directory, not executed
	now         func() time.Time
	after       time.Duration // quiet before this
	every       time.Duration // between lines

	mu                      sync.Mutex
	start                   time.Time
	doneRounds, planned     []atomic.Int64 // per executing run: rounds completed and rounds planned
	restored                []atomic.Int64 // per executing run: the rounds its checkpoint (or a rung's state) restored, not computed in this session
	ended, stopped          []bool         // per executing run: finished; interrupted (its rounds left stay to do)
	firstRound              atomic.Int64   // when the first round was reported (Unix ns; 0: not yet)
	roundsAtFirst           atomic.Int64   // rounds computed by the run that reported it (see computed)
	samples                 []sample       // rounds completed at the ticks of the last RateWindow, oldest first (see rate)
	started, done           int            // runs started and finished by this call
	diverged, failed        int
	unmoved                 int // done runs whose model did not move (core.Result.Unmoved)
	interrupted             int // runs stopped by an interruption (not done)
	shown                   bool
	previous                int // length of the last in-place line, to blank leftovers
	stopTicker, tickerEnded chan struct{}
	script                  *ScriptProgress // the script's display, if the call belongs to one
}

// ScriptProgress is the progress display of a whole script, whose calls
// share one line. On a terminal the running call's line is redrawn in
// place and erased when the call ends, so the script's own output (its
// tables) is never mixed with progress, and one summary line for the
// whole script is printed at its end. In a log each call prints its lines
// and its summary, and the script its summary at the end. Nothing is
// printed for a script whose calls all finished too soon to show a line.
type ScriptProgress struct {
	w           io.Writer
	interactive bool
	name        string
	now         func() time.Time
	start       time.Time

	calls, total, stored, done, diverged, failed, interrupted, unmoved int
	rounds                                                             int64
	shown                                                              bool
}

// RateWindow is how far back the rate of rounds of a progress line looks.
const RateWindow = 10 * time.Second

// sample is the rounds completed by a call's runs at a time.
type sample struct {
	at     time.Time
	rounds int64
}

// NewScriptProgress returns the progress display of the script called
// name, started now.
func NewScriptProgress(w io.Writer, interactive bool, name string) *ScriptProgress {
	return &ScriptProgress{w: w, interactive: interactive, name: name, now: time.Now, start: time.Now()}
}

// Call returns the progress reporter of the script's next call, titled
// title, with total runs of which stored were found in the run directory.
// The calls of a script run one after another.
func (s *ScriptProgress) Call(title string, total, stored int) *Progress {
	p := NewProgress(s.w, s.interactive, title, total, stored)
	p.now, p.script = s.now, s
	return p
}

// End prints the script's summary line if any call showed progress, e.g.
// "s.lua: 3 calls, runs 98/98 (3 diverged) in 1m16s, 1.3 runs/s, 640
// rounds/s".
func (s *ScriptProgress) End() {
	if !s.shown {
		return
	}
	notes := countNotes(s.stored, s.diverged, s.failed, s.interrupted, s.unmoved)
	calls := "1 call"
	if s.calls != 1 {
		calls = fmt.Sprintf("%d calls", s.calls)
	}
	el := s.now().Sub(s.start)
	fmt.Fprintf(s.w, "%s: %s, runs %d/%d%s in %s, %s\n", s.name, calls, s.stored+s.done, s.total, notes,
		elapsed(el), Throughput(float64(s.done), float64(s.rounds), el))
}

// add counts the ended call p into the script's totals.
func (s *ScriptProgress) add(p *Progress) {
	done := p.computed()
	s.calls++
	s.total += p.total
	s.stored += p.stored
	s.done += p.done
	s.diverged += p.diverged
	s.failed += p.failed
	s.interrupted += p.interrupted
	s.unmoved += p.unmoved
	s.rounds += done
	s.shown = s.shown || p.shown
}

// NewProgress returns a progress reporter for a call named title with total
// runs, of which stored were found in the run directory.
func NewProgress(w io.Writer, interactive bool, title string, total, stored int) *Progress {
	p := &Progress{w: w, title: title, interactive: interactive, total: total, stored: stored, now: time.Now,
		after: 10 * time.Second, every: 10 * time.Second}
	if interactive {
		p.after, p.every = 2*time.Second, 500*time.Millisecond
	}
	return p
}

// begin starts the clock for the runs to execute, planned[i] rounds for
// run i, and, with tick, the goroutine that prints.
func (p *Progress) begin(planned []int, tick bool) {
	p.start = p.now()
	n := len(planned)
	p.doneRounds, p.planned, p.restored = make([]atomic.Int64, n), make([]atomic.Int64, n), make([]atomic.Int64, n)
	for i, r := range planned {
		p.planned[i].Store(int64(r))
	}
	p.ended, p.stopped = make([]bool, n), make([]bool, n)
	if !tick {
		return
	}
	p.stopTicker, p.tickerEnded = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(p.tickerEnded)
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-p.stopTicker:
				return
			case <-t.C:
				p.tick()
			}
		}
	}()
}

// runStarted counts a run as running.
func (p *Progress) runStarted() {
	p.mu.Lock()
	p.started++
	p.mu.Unlock()
}

// round records that executing run i completed done of total rounds (its
// engine's count, which replaces the planned one). It is called by the
// run's engine after every round and does not allocate.
func (p *Progress) round(i, done, total int) {
	p.doneRounds[i].Store(int64(done))
	p.planned[i].Store(int64(total))
	if p.firstRound.Load() == 0 && p.firstRound.CompareAndSwap(0, p.now().UnixNano()) {
		p.roundsAtFirst.Store(max(int64(done)-p.restored[i].Load(), 0))
	}
}

// resumed records that executing run i starts after rounds restored from
// a checkpoint (or a rung's state; 0: from round 0, as after a refused
// checkpoint): they count in the rounds done, not in the rate.
func (p *Progress) resumed(i, rounds int) {
	p.restored[i].Store(int64(rounds))
}

// runEnded records how executing run i ended: its status, and whether its
// model did not move.
func (p *Progress) runEnded(i int, status string, unmoved bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended[i] = true
	if status == "interrupted" {
		p.stopped[i] = true
		p.interrupted++
		return
	}
	p.done++
	if unmoved {
		p.unmoved++
	}
	switch status {
	case "diverged":
		p.diverged++
	case "failed":
		p.failed++
	}
}

// tick prints the progress line if it is time to.
func (p *Progress) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	p.sample(t)
	if t.Sub(p.start) < p.after {
		return
	}
	line := p.line(t)
	if !p.interactive {
		fmt.Fprintln(p.w, line)
		p.shown = true
		return
	}
	pad := strings.Repeat(" ", max(p.previous-len(line), 0))
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
	p.previous = len(line)
	p.shown = true
}

// end stops the printing goroutine and, if a line was shown, prints the
// summary.
func (p *Progress) end() {
	if p.stopTicker != nil {
		close(p.stopTicker)
		<-p.tickerEnded
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.script != nil {
		p.script.add(p)
	}
	if !p.shown {
		return
	}
	if p.interactive && p.script != nil { // erase: the script's summary comes at its end
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.previous))
		return
	}
	line := p.summary(p.now())
	pad := ""
	if p.interactive {
		pad = strings.Repeat(" ", max(p.previous-len(line), 0))
		line = "\r" + line
	}
	fmt.Fprintln(p.w, line+pad)
}

// line renders the progress at time t, e.g. "call 2: fedlab.sweep at
// s.lua:12: rounds 4000/7800, runs 40/98 (20 stored, 3 diverged), 2
// running, 12.3s, 250 rounds/s, ETA 15s" (before a rate is known: no
// rate, "ETA ?").
func (p *Progress) line(t time.Time) string {
	_, accounted, planned := p.counts()
	rate := ""
	eta := "?"
	if r, ok := p.rate(t); ok {
		rate = ", " + roundRate(r)
		eta = time.Duration(float64(planned-accounted) / r * float64(time.Second)).Round(time.Second).String()
	}
	l := fmt.Sprintf("%s: rounds %d/%d, runs %d/%d%s, %d running, %s%s, ETA %s", p.title, accounted, planned,
		p.stored+p.done, p.total, p.notes(), p.started-p.done-p.interrupted, elapsed(t.Sub(p.start)), rate, eta)
	if p.script != nil {
		l += "; script " + elapsed(t.Sub(p.script.start))
	}
	return l
}

// counts returns the rounds the executing runs completed, the rounds
// accounted for (a run that ended, but for an interruption, has no rounds
// left: its planned rounds) and the rounds planned for them all.
func (p *Progress) counts() (completed, accounted, planned int64) {
	for i := range p.doneRounds {
		done, n := p.doneRounds[i].Load(), p.planned[i].Load()
		completed += done
		planned += n
		if p.ended[i] && !p.stopped[i] {
			accounted += n
		} else {
			accounted += done
		}
	}
	return completed, accounted, planned
}

// computed returns the rounds the executing runs computed in this
// session: the rounds a run resumed from a checkpoint restored are not
// counted (see resumed), so that the rate, the time left and the
// throughput are those of this session's work.
func (p *Progress) computed() int64 {
	var n int64
	for i := range p.doneRounds {
		n += max(p.doneRounds[i].Load()-p.restored[i].Load(), 0)
	}
	return n
}

// sample records the rounds completed at t for the rate, once the first
// round was reported (whose time and count are the first sample), and
// forgets the samples older than the newest one at least RateWindow old.
func (p *Progress) sample(t time.Time) {
	first := p.firstRound.Load()
	if first == 0 {
		return
	}
	if len(p.samples) == 0 {
		p.samples = append(p.samples, sample{time.Unix(0, first), p.roundsAtFirst.Load()})
	}
	p.samples = append(p.samples, sample{t, p.computed()})
	k := 0
	for k+1 < len(p.samples) && !p.samples[k+1].at.After(t.Add(-RateWindow)) {
		k++
	}
	p.samples = p.samples[k:]
}

// rate returns the rounds completed per second over the samples, newest
// at t; ok is false before any round was completed after the first.
func (p *Progress) rate(t time.Time) (perSecond float64, ok bool) {
	if len(p.samples) < 2 {
		return 0, false
	}
	oldest, newest := p.samples[0], p.samples[len(p.samples)-1]
	dt := t.Sub(oldest.at).Seconds()
	if newest.rounds <= oldest.rounds || dt <= 0 {
		return 0, false
	}
	return float64(newest.rounds-oldest.rounds) / dt, true
}

// summary renders the final line, e.g. "call 2: fedlab.sweep at
// s.lua:12: runs 98/98 (3 diverged) in 16.2s, 4.8 runs/s, 12.1k rounds/s".
func (p *Progress) summary(t time.Time) string {
	el := t.Sub(p.start)
	done := p.computed()
	return fmt.Sprintf("%s: runs %d/%d%s in %s, %s", p.title, p.stored+p.done, p.total, p.notes(),
		elapsed(el), Throughput(float64(p.done), float64(done), el))
}

// Throughput renders how fast runs and rounds went in the units that read
// best: "4.8 runs/s", "2.7 runs/min" or "45s per run" for the runs, then
// "12.1k rounds/s" (k, M for thousands, millions).
func Throughput(runs, rounds float64, el time.Duration) string {
	sec := max(el.Seconds(), 1e-9)
	var r string
	switch perSec := runs / sec; {
	case runs == 0:
		r = "no runs"
	case perSec >= 1:
		r = fmt.Sprintf("%.3g runs/s", perSec)
	case perSec*60 >= 1:
		r = fmt.Sprintf("%.3g runs/min", perSec*60)
	default:
		r = (time.Duration(sec / runs * float64(time.Second))).Round(time.Second).String() + " per run"
	}
	if rounds <= 0 {
		return r
	}
	return r + ", " + roundRate(rounds/sec)
}

// roundRate renders a rate of rounds per second in the unit that reads
// best: "12.1k rounds/s" (k, M for thousands, millions), "2.5 rounds/s",
// "6 rounds/min".
func roundRate(rate float64) string {
	switch {
	case rate >= 1e6:
		return fmt.Sprintf("%.3gM rounds/s", rate/1e6)
	case rate >= 1e3:
		return fmt.Sprintf("%.3gk rounds/s", rate/1e3)
	case rate >= 1:
		return fmt.Sprintf("%.3g rounds/s", rate)
	}
	return fmt.Sprintf("%.3g rounds/min", rate*60)
}

// notes lists the stored, diverged, failed, interrupted and unmoved counts, e.g. " (20 stored, 3 diverged)".
func (p *Progress) notes() string {
	return countNotes(p.stored, p.diverged, p.failed, p.interrupted, p.unmoved)
}

// countNotes renders the nonzero counts, e.g. " (20 stored, 3 diverged, 1 did not move)".
func countNotes(stored, diverged, failed, interrupted, unmoved int) string {
	var n []string
	for _, c := range []struct {
		count int
		what  string
	}{{stored, "stored"}, {diverged, "diverged"}, {failed, "failed"}, {interrupted, "interrupted"}, {unmoved, "did not move"}} {
		if c.count > 0 {
			n = append(n, fmt.Sprintf("%d %s", c.count, c.what))
		}
	}
	if len(n) == 0 {
		return ""
	}
	return " (" + strings.Join(n, ", ") + ")"
}

// elapsed formats a duration for progress lines.
func elapsed(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }
