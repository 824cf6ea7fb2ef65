package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/rundir"
)

// rungSession drives a halving planner of halvingSweep("fedmid") (rungs of
// 3, 9 and 27 rounds) in a session on dir, each rung one call; after the
// rungs given in stop (0: none) it ends the session as interrupted: before
// the next rung, or, if cut > 0, when a run of the next rung reports round
// cut done (its runs stop at a round boundary and keep a checkpoint). It
// returns the session's notices, the rounds its runs computed and the
// evaluations of round 0 they made.
func rungSession(t *testing.T, dir string, stop, cut int, opts rundir.Options) (notes string, rounds, zeros int) {
	t.Helper()
	var buf bytes.Buffer
	var mu sync.Mutex
	var computed atomic.Int64
	opts.Script = rundir.Script{Path: "halving.lua", SHA256: strings.Repeat("b", 64)}
	opts.Notices, opts.Jobs, opts.Workers = &buf, 2, 1
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	if cut > 0 {
		opts.Context = ctx
	}
	d, err := rundir.Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	exec := sessionRungs{RungCalls: experiment.Rungs(d, experiment.Call{Function: "fedlab.sweep", Where: "halving.lua:1", Select: halvingSweep("fedmid").Select}),
		zeros: roundZero{&mu, &zeros}, computed: &computed, stop: stop, cut: cut, cancel: cancel}
	_, err = NewBuilder().Halve(halvingSweep("fedmid"), experiment.Halving{Eta: 3, First: 3}, exec)
	var serr error
	var intr *rundir.Interrupted
	var rerr *RungError
	switch {
	case errors.As(err, &intr) && errors.As(err, &rerr) && stop > 0:
		serr = rerr.Err
	case err != nil:
		t.Fatal(err)
	}
	if _, err := d.Finish(serr); err != nil {
		t.Fatal(err)
	}
	return buf.String(), int(computed.Load()), zeros
}

// sessionRungs executes the rungs of rungSession in its run directory.
type sessionRungs struct {
	experiment.RungCalls
	zeros     roundZero
	computed  *atomic.Int64
	stop, cut int
	cancel    context.CancelCauseFunc
}

func (s sessionRungs) ExecuteRung(rung experiment.Rung, jobs []experiment.Job) ([]experiment.Run, error) {
	if rung.Index == s.stop+1 && s.stop > 0 && s.cut == 0 {
		return nil, &rundir.Interrupted{Where: "halving.lua:1", Cause: errors.New("stopped between rungs (test)")}
	}
	for i := range jobs {
		jobs[i].Metrics = append(slices.Clone(jobs[i].Metrics), s.zeros)
		jobs[i].Settings.Progress = func(done, _ int) {
			s.computed.Add(1)
			if rung.Index == s.stop+1 && done == s.cut {
				s.cancel(errors.New("interrupted in a rung (test)"))
			}
		}
	}
	return s.RungCalls.ExecuteRung(rung, jobs)
}

// rungStates returns the manifest's checkpoint records of dir by rounds.
func rungStates(t *testing.T, dir string) map[int]int {
	t.Helper()
	m, _, err := rundir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]int{}
	for _, c := range m.Checkpoints {
		out[c.Rounds]++
	}
	return out
}

// TestAHalvingSweepResumedBetweenRungsContinuesItsStoredStates: a halving
// sweep in a run directory interrupted after its second rung and run
// again continues the third rung's survivors from the states the second
// rung stored: the resumed session computes only the 2 × (27 − 9)
// continuation rounds and never measures round 0, and records.csv is
// byte for byte the uninterrupted sweep's; the states are recorded in the
// manifest while the sweep is unfinished and removed when it completes
// (kept with KeepCheckpoints). A rung state that was altered is refused
// with a notice and its survivor recomputed from round 0, with the same
// records.
func TestAHalvingSweepResumedBetweenRungsContinuesItsStoredStates(t *testing.T) {
	whole := t.TempDir()
	if _, rounds, zeros := rungSession(t, whole, 0, 0, rundir.Options{}); rounds != 12*3+4*6+2*18 || zeros != 12 {
		t.Fatalf("uninterrupted: %d rounds computed, round 0 measured %d times; want %d and 12", rounds, zeros, 12*3+4*6+2*18)
	}
	want, err := os.ReadFile(filepath.Join(whole, rundir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	if states, _ := filepath.Glob(filepath.Join(whole, rundir.CheckpointsDir, "*")); len(states) != 0 || len(rungStates(t, whole)) != 0 {
		t.Errorf("a completed sweep keeps rung states: %v, records %v", states, rungStates(t, whole))
	}

	dir := t.TempDir()
	if notes, rounds, _ := rungSession(t, dir, 2, 0, rundir.Options{}); rounds != 12*3+4*6 || notes != "" {
		t.Fatalf("first session: %d rounds computed, want %d; notices %q", rounds, 12*3+4*6, notes)
	}
	if got := rungStates(t, dir); fmt.Sprint(got) != "map[3:12 9:4]" {
		t.Errorf("rung states recorded after rounds: %v, want 12 after 3 and 4 after 9", got)
	}
	notes, rounds, zeros := rungSession(t, dir, 0, 0, rundir.Options{})
	if rounds != 2*18 || zeros != 0 || notes != "" {
		t.Errorf("resumed: %d rounds computed, round 0 measured %d times, notices %q; want 36 (2 survivors × 18), 0, none", rounds, zeros, notes)
	}
	got, err := os.ReadFile(filepath.Join(dir, rundir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("resumed records.csv differs from the uninterrupted sweep's:\n%s\n---\n%s", got, want)
	}
	if states, _ := filepath.Glob(filepath.Join(dir, rundir.CheckpointsDir, "*")); len(states) != 0 || len(rungStates(t, dir)) != 0 {
		t.Errorf("the completed sweep keeps rung states: %v", states)
	}

	// kept with KeepCheckpoints: the rung states and the last rung's final checkpoints
	kept := t.TempDir()
	rungSession(t, kept, 0, 0, rundir.Options{KeepCheckpoints: true})
	if got := rungStates(t, kept); fmt.Sprint(got) != "map[3:12 9:4 27:2]" {
		t.Errorf("kept checkpoints after rounds: %v, want 12 after 3, 4 after 9, 2 after 27", got)
	}

	// an altered state of a survivor of rung 2 is refused; that survivor is recomputed
	bad := t.TempDir()
	rungSession(t, bad, 2, 0, rundir.Options{})
	m, _, err := rundir.ReadManifest(bad)
	if err != nil {
		t.Fatal(err)
	}
	final, err := rundir.Load(whole)
	if err != nil {
		t.Fatal(err)
	}
	survivor := final.Calls[2][0]
	if survivor.Result == nil || survivor.Result.Status != "done" {
		t.Fatalf("the uninterrupted sweep's first survivor: %+v", survivor.Result)
	}
	key := ""
	for _, r := range m.Calls[1].Runs {
		if r.Seed == survivor.Seed && r.Config.String() == survivor.Config.String() {
			key = r.Key
		}
	}
	file := filepath.Join(bad, rundir.CheckpointsDir, key+".9.ckpt")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	notes, rounds, zeros = rungSession(t, bad, 0, 0, rundir.Options{})
	prefix := "fedlab: " + file + ": altered: its SHA-256 is "
	suffix := fmt.Sprintf("; %s (seed %d) is not continued from it: if it survives its rung, the next rung recomputes it from round 0\n", survivor.Label, survivor.Seed)
	if !strings.HasPrefix(notes, prefix) || !strings.HasSuffix(notes, suffix) || strings.Count(notes, "\n") != 1 {
		t.Errorf("notices:\n%s\nwant one line starting\n%s\nand ending %q", notes, prefix, suffix)
	}
	if rounds != 27+18 || zeros != 1 {
		t.Errorf("resumed with an altered state: %d rounds computed, round 0 measured %d times; want 45 (one survivor from round 0) and 1", rounds, zeros)
	}
	if got, _ := os.ReadFile(filepath.Join(bad, rundir.RecordsFile)); !bytes.Equal(got, want) {
		t.Errorf("records.csv with a recomputed survivor differs from the uninterrupted sweep's:\n%s\n---\n%s", got, want)
	}
}

// TestAHalvingSweepInterruptedInARungResumesItsRunsCheckpoints: a halving
// sweep interrupted while its second rung runs (after round 6 of 9 of a
// survivor continued from round 3) and run again resumes the unfinished
// runs from their checkpoints, the first rung's states still stored for
// the rest: records.csv is byte for byte the uninterrupted sweep's, round
// 0 is measured by no run of the resumed session, and no state or
// checkpoint is left once the sweep completes.
func TestAHalvingSweepInterruptedInARungResumesItsRunsCheckpoints(t *testing.T) {
	whole := t.TempDir()
	rungSession(t, whole, 0, 0, rundir.Options{})
	want, err := os.ReadFile(filepath.Join(whole, rundir.RecordsFile))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rungSession(t, dir, 1, 6, rundir.Options{})
	if got := rungStates(t, dir); got[3] < 12 || len(got) < 2 {
		t.Errorf("after the interruption, checkpoints after rounds %v: want the 12 states after 3 and the second rung's checkpoints", got)
	}
	// the rounds left: of each second-rung run, from its checkpoint (none: from the state after 3); then the last rung's continuation
	m, _, err := rundir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	left, resumed := 2*18, 0
	for _, r := range m.Calls[1].Runs {
		switch c := m.Checkpoints[r.Key]; {
		case m.Runs[r.Key].Status != rundir.Pending:
		case c != nil:
			left, resumed = left+9-c.Rounds, resumed+1
		default:
			left += 9 - 3
		}
	}
	notes, rounds, zeros := rungSession(t, dir, 0, 0, rundir.Options{})
	if zeros != 0 || rounds != left || resumed == 0 || strings.Count(notes, ": resuming fedmid (seed ") != resumed {
		t.Errorf("resumed: %d rounds computed (want %d), round 0 measured %d times (want 0), notices (want %d resumptions):\n%s", rounds, left, zeros, resumed, notes)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, rundir.RecordsFile)); !bytes.Equal(got, want) {
		t.Errorf("resumed records.csv differs from the uninterrupted sweep's:\n%s\n---\n%s", got, want)
	}
	if got := rungStates(t, dir); len(got) != 0 {
		t.Errorf("the completed sweep keeps checkpoints after rounds %v", got)
	}

	// the first rung's state of a run that has its own checkpoint in the
	// second rung altered: refused, and the run resumes from its own
	// checkpoint, whose records hold the first rung's last one (off the
	// grid) as the state it continued did: dropped the same way
	dir = t.TempDir()
	rungSession(t, dir, 1, 6, rundir.Options{})
	if m, _, err = rundir.ReadManifest(dir); err != nil {
		t.Fatal(err)
	}
	var file string
	var run rundir.CallRun
	for _, r := range m.Calls[1].Runs {
		if m.Runs[r.Key].Status == rundir.Pending && m.Checkpoints[r.Key] != nil && m.Checkpoints[r.Key].Rounds > 3 {
			run = r
		}
	}
	for _, r := range m.Calls[0].Runs {
		if run.Key != "" && r.Seed == run.Seed && r.Config.String() == run.Config.String() {
			file = filepath.Join(dir, rundir.CheckpointsDir, r.Key+".3.ckpt")
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 1
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	notes, _, zeros = rungSession(t, dir, 0, 0, rundir.Options{})
	refused := fmt.Sprintf("fedlab: %s: altered: its SHA-256 is ", file)
	if !strings.HasPrefix(notes, refused) || zeros != 0 || !strings.Contains(notes, fmt.Sprintf(": resuming fedmid (seed %d) after round %d of 9\n", run.Seed, m.Checkpoints[run.Key].Rounds)) {
		t.Errorf("resumed with an altered state: round 0 measured %d times (want 0), notices:\n%s\nwant first %s…", zeros, notes, refused)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, rundir.RecordsFile)); !bytes.Equal(got, want) {
		t.Errorf("resumed records.csv differs from the uninterrupted sweep's:\n%s\n---\n%s", got, want)
	}
}
