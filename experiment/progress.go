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
// index, function and place in the script, as the title), runs done out of
// the total, how many are running, diverged or failed, the elapsed time
// and an estimate of the time left. On a terminal (Interactive) one line is
// redrawn in place twice a second once the call has taken two seconds;
// otherwise (a log file, a cluster job) a full line is printed every ten
// seconds. Nothing is printed for calls that finish sooner. The estimate
// comes from rounds, not runs: the rounds left (runs not started yet are
// assumed as long as the average run started) at the rate of rounds done
// since the first round was reported, so the set-up before it (data,
// reference optimum) does not inflate the first estimate. The calls of a
// script share one line through ScriptProgress.
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
	executing               int            // runs to execute
	doneRounds, totalRounds []atomic.Int64 // per executing run: rounds done and its round count (0: not reported)
	ended                   []bool         // per executing run: finished
	firstRound              atomic.Int64   // when the first round was reported (Unix ns; 0: not yet)
	roundsAtFirst           atomic.Int64   // rounds done at that time
	started, done           int            // runs started and finished by this call
	diverged, failed        int
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

	calls, total, stored, done, diverged, failed, interrupted int
	rounds                                                    float64
	shown                                                     bool
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
	notes := countNotes(s.stored, s.diverged, s.failed, s.interrupted)
	calls := "1 call"
	if s.calls != 1 {
		calls = fmt.Sprintf("%d calls", s.calls)
	}
	el := s.now().Sub(s.start)
	fmt.Fprintf(s.w, "%s: %s, runs %d/%d%s in %s, %s\n", s.name, calls, s.stored+s.done, s.total, notes,
		elapsed(el), Throughput(float64(s.done), s.rounds, el))
}

// add counts the ended call p into the script's totals.
func (s *ScriptProgress) add(p *Progress) {
	done, _ := p.rounds()
	s.calls++
	s.total += p.total
	s.stored += p.stored
	s.done += p.done
	s.diverged += p.diverged
	s.failed += p.failed
	s.interrupted += p.interrupted
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

// begin starts the clock for n runs to execute and, with tick, the
// goroutine that prints.
func (p *Progress) begin(n int, tick bool) {
	p.start = p.now()
	p.executing = n
	p.doneRounds, p.totalRounds = make([]atomic.Int64, n), make([]atomic.Int64, n)
	p.ended = make([]bool, n)
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

// round records that executing run i completed done of total rounds. It is
// called by the run's engine after every round and does not allocate.
func (p *Progress) round(i, done, total int) {
	p.doneRounds[i].Store(int64(done))
	p.totalRounds[i].Store(int64(total))
	if p.firstRound.Load() == 0 && p.firstRound.CompareAndSwap(0, p.now().UnixNano()) {
		p.roundsAtFirst.Store(int64(done))
	}
}

// runEnded records how executing run i ended.
func (p *Progress) runEnded(i int, status string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.doneRounds[i].Store(p.totalRounds[i].Load())
	p.ended[i] = true
	if status == "interrupted" {
		p.interrupted++
		return
	}
	p.done++
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
// s.lua:12: runs 40/98 (20 stored, 3 diverged), 2 running, 12.3s, ETA 30s".
func (p *Progress) line(t time.Time) string {
	l := fmt.Sprintf("%s: runs %d/%d%s, %d running, %s, ETA %s", p.title, p.stored+p.done, p.total, p.notes(),
		p.started-p.done-p.interrupted, elapsed(t.Sub(p.start)), p.eta(t))
	if p.script != nil {
		l += "; script " + elapsed(t.Sub(p.script.start))
	}
	return l
}

// rounds returns the rounds done by the executing runs and the rounds
// they have in all (runs that have not reported yet counted as the average
// of those that have).
func (p *Progress) rounds() (done, total float64) {
	known, unknown := 0.0, 0
	reported := 0
	for i := range p.doneRounds {
		n := p.totalRounds[i].Load()
		done += float64(p.doneRounds[i].Load())
		switch {
		case n > 0:
			known += float64(n)
			reported++
		case !p.ended[i]:
			unknown++
		}
	}
	total = known
	if reported > 0 {
		total += float64(unknown) * known / float64(reported)
	}
	return done, total
}

// eta estimates the time left at t from the rate of rounds since the
// first one, or "?" before there is a rate.
func (p *Progress) eta(t time.Time) string {
	first := p.firstRound.Load()
	done, total := p.rounds()
	since := done - float64(p.roundsAtFirst.Load())
	el := t.Sub(time.Unix(0, first))
	if first == 0 || since <= 0 || el <= 0 {
		return "?"
	}
	left := time.Duration(float64(el) * max(total-done, 0) / since)
	return left.Round(time.Second).String()
}

// summary renders the final line, e.g. "call 2: fedlab.sweep at
// s.lua:12: runs 98/98 (3 diverged) in 16.2s, 4.8 runs/s, 12.1k rounds/s".
func (p *Progress) summary(t time.Time) string {
	el := t.Sub(p.start)
	done, _ := p.rounds()
	return fmt.Sprintf("%s: runs %d/%d%s in %s, %s", p.title, p.stored+p.done, p.total, p.notes(),
		elapsed(el), Throughput(float64(p.done), done, el))
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
	rate := rounds / sec
	switch {
	case rate >= 1e6:
		return fmt.Sprintf("%s, %.3gM rounds/s", r, rate/1e6)
	case rate >= 1e3:
		return fmt.Sprintf("%s, %.3gk rounds/s", r, rate/1e3)
	case rate >= 1:
		return fmt.Sprintf("%s, %.3g rounds/s", r, rate)
	}
	return fmt.Sprintf("%s, %.3g rounds/min", r, rate*60)
}

// notes lists the stored, diverged and failed counts, e.g. " (20 stored, 3 diverged)".
func (p *Progress) notes() string {
	return countNotes(p.stored, p.diverged, p.failed, p.interrupted)
}

// countNotes renders the nonzero counts, e.g. " (20 stored, 3 diverged)".
func countNotes(stored, diverged, failed, interrupted int) string {
	var n []string
	for _, c := range []struct {
		count int
		what  string
	}{{stored, "stored"}, {diverged, "diverged"}, {failed, "failed"}, {interrupted, "interrupted"}} {
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
