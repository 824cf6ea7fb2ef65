package core

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

// stepper is a stateful test algorithm: w ← mean of the clients' w − g.
type stepper struct{ recorder }

func (a *stepper) ClientUpdate(_ *Round, c *Client, down, up *Message) {
	copy(up.Vecs[0], a.w)
	g := c.Vec(0)
	c.Gradient(up.Vecs[0], g)
	up.Vecs[0][0] -= 0.5 * g[0]
	up.Scalars[0] = float64(c.Steps)
}

func (a *stepper) State(st *State) { st.Floats("model", a.w) }

// checkpointAfter runs alg for s.Rounds rounds and returns its checkpoint
// after round r.
func checkpointAfter(t *testing.T, p *Problem, alg Algorithm, s Settings, r int, metrics ...Metric) []byte {
	t.Helper()
	var ckpt []byte
	s.Checkpoint = func(done int, save func(io.Writer) error) error {
		if done == r {
			var b bytes.Buffer
			if err := save(&b); err != nil {
				return err
			}
			ckpt = b.Bytes()
		}
		return nil
	}
	if res := Run(p, alg, s, metrics); res.Status != Done {
		t.Fatalf("%s: %s", res.Status, res.Err)
	}
	return ckpt
}

// A checkpoint that is altered, truncated, of another run or of another
// format version is refused with its reason, and a run resumed from it
// fails with that reason instead of continuing wrongly.
func TestDamagedCheckpointIsRefused(t *testing.T) {
	p := testProblem(t, sizes(3, 4, 5))
	s := Settings{Rounds: 4, LocalSteps: 2, Batch: 2, Seed: 3, CheckpointKey: "run-a"}
	ckpt := checkpointAfter(t, p, &stepper{}, s, 2)
	if err := VerifyCheckpoint(ckpt, "run-a"); err != nil {
		t.Fatalf("intact checkpoint refused: %v", err)
	}
	flip := bytes.Clone(ckpt)
	flip[len(flip)-3] ^= 1
	version := bytes.Clone(ckpt)
	version[len(checkpointMagic)] = 9
	cases := []struct {
		name string
		data []byte
		key  string
		want string
	}{
		{"altered", flip, "run-a", "checkpoint is damaged: its payload does not match its sha256"},
		{"truncated", ckpt[:len(ckpt)-5], "run-a", fmt.Sprintf("checkpoint is truncated (%d bytes)", len(ckpt)-5)},
		{"header only", ckpt[:10], "run-a", "checkpoint is truncated (10 bytes)"},
		{"another run", ckpt, "run-b", `checkpoint belongs to run "run-a", not to this run "run-b"`},
		{"another version", version, "run-a", "checkpoint format version 9, this build reads version 1"},
		{"not one", []byte("hello, world, this is not a checkpoint"), "run-a", "not a fedlab checkpoint"},
		{"trailing bytes", append(bytes.Clone(ckpt), 0), "run-a", "checkpoint has 1 bytes after its payload"},
	}
	for _, tc := range cases {
		if err := VerifyCheckpoint(tc.data, tc.key); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		rs := s
		rs.CheckpointKey, rs.Resume = tc.key, tc.data
		res := Run(p, &stepper{}, rs, nil)
		if want := "cannot resume from the checkpoint: " + tc.want; res.Status != Failed || res.Err != want {
			t.Errorf("%s: resumed run %s %q, want failed %q", tc.name, res.Status, res.Err, want)
		}
	}
	// the same bytes with a payload of another algorithm: the field names differ
	other := checkpointAfter(t, p, &otherState{}, s, 2)
	res := Run(p, &stepper{}, Settings{Rounds: 4, LocalSteps: 2, Batch: 2, Seed: 3, CheckpointKey: "run-a", Resume: other}, nil)
	if want := `cannot resume from the checkpoint: checkpoint: checkpoint holds float vector "velocity" where float vector "model" is expected (a checkpoint of another algorithm or build)`; res.Err != want {
		t.Errorf("other algorithm's checkpoint: %q, want %q", res.Err, want)
	}
}

type otherState struct{ stepper }

func (a *otherState) State(st *State) { st.Floats("velocity", a.w) }

// An algorithm that does not declare its state cannot be checkpointed: the
// save reports it (the caller restarts such runs from round 0), and a
// run resumed with a checkpoint fails rather than continue from a state
// it cannot restore.
func TestUndeclaredStateIsReported(t *testing.T) {
	p := testProblem(t, sizes(3, 4, 5))
	s := Settings{Rounds: 3, LocalSteps: 1, AlgorithmName: "rec", CheckpointKey: "k"}
	var errs []error
	s.Checkpoint = func(done int, save func(io.Writer) error) error {
		errs = append(errs, save(io.Discard))
		return nil
	}
	if res := Run(p, &recorder{}, s, nil); res.Status != Done {
		t.Fatalf("%s: %s", res.Status, res.Err)
	}
	want := `algorithm "rec" does not declare its state (core.Stateful): it restarts from round 0`
	if len(errs) != 3 || errs[0] == nil || errs[0].Error() != want {
		t.Fatalf("save errors %v, want 3 × %q", errs, want)
	}
	// a checkpoint hook's error fails the run, after the round it follows
	s.Checkpoint = func(done int, save func(io.Writer) error) error { return save(io.Discard) }
	if res := Run(p, &recorder{}, s, nil); res.Status != Failed || res.Err != "checkpoint after round 1: "+want || res.Model != nil {
		t.Fatalf("%s %q (model %v)", res.Status, res.Err, res.Model)
	}
	// a client state the algorithm does not declare
	s.Checkpoint = func(done int, save func(io.Writer) error) error { return save(io.Discard) }
	res := Run(p, &clientKeeper{}, s, nil)
	if want := `checkpoint after round 1: algorithm "rec" keeps state per client but does not declare it (core.ClientStateDeclarer): it restarts from round 0`; res.Err != want {
		t.Fatalf("%q, want %q", res.Err, want)
	}
}

type clientKeeper struct{ stepper }

func (a *clientKeeper) ClientUpdate(rd *Round, c *Client, down, up *Message) {
	c.State = 1
	a.stepper.ClientUpdate(rd, c, down, up)
}

// A resumed run continues bit for bit, in Run and in a cohort, a
// checkpoint after the last round resumes to the same end, and a cohort
// member writes the very checkpoint the run writes alone.
func TestResumedRunContinues(t *testing.T) {
	p := testProblem(t, sizes(3, 4, 5, 6))
	s := Settings{Rounds: 6, LocalSteps: 3, Batch: 2, ClientsPerRound: 2, EvalEvery: 2, Seed: 5, CheckpointKey: "k"}
	m := []Metric{objectiveMetric{}, trainLoss{}}
	want := Run(p, &stepper{}, s, m)
	for _, r := range []int{1, 3, 6} {
		rs := s
		rs.Resume = checkpointAfter(t, p, &stepper{}, s, r, m...)
		got := Run(p, &stepper{}, rs, m)
		if fmt.Sprint(got.Records) != fmt.Sprint(want.Records) || fmt.Sprint(got.Model) != fmt.Sprint(want.Model) || got.Status != Done {
			t.Fatalf("resumed after %d: %s %v %v, want %v %v", r, got.Status, got.Records, got.Model, want.Records, want.Model)
		}
		if got := Run(p, &stepper{}, rs, m[:1]); got.Err != "cannot resume from the checkpoint: checkpoint: a record has 2 values, the run measures 1 columns" {
			t.Fatalf("resumed with fewer metrics: %s %q", got.Status, got.Err)
		}
		// a member of a cohort writes the same checkpoint as the run alone
		var inCohort []byte
		cs := s
		cs.Checkpoint = func(done int, save func(io.Writer) error) error {
			if done == r {
				var b bytes.Buffer
				if err := save(&b); err != nil {
					return err
				}
				inCohort = b.Bytes()
			}
			return nil
		}
		for k, c := range RunCohort(p, []Member{{&stepper{}, rs}, {&stepper{}, cs}}, m) {
			if fmt.Sprint(c.Records) != fmt.Sprint(want.Records) || fmt.Sprint(c.Model) != fmt.Sprint(want.Model) {
				t.Fatalf("cohort member %d resumed after %d: %v %v, want %v %v", k, r, c.Records, c.Model, want.Records, want.Model)
			}
		}
		if !bytes.Equal(inCohort, rs.Resume) {
			t.Fatalf("checkpoint after %d in a cohort: %d bytes, differs from the run's alone (%d bytes)", r, len(inCohort), len(rs.Resume))
		}
	}
}

// Every kind of field comes back bit for bit (NaN, −0 and ±Inf included;
// nil and empty vectors kept apart), a vector of another length is
// refused, and every truncation of the payload is refused with the field
// it ends in, never a panic.
func TestStateFieldsRoundTrip(t *testing.T) {
	nan := math.Float64frombits(0x7ff8000000000abc)
	declare := func(st *State, f *fields) {
		st.Floats("fixed", f.fixed)
		st.FloatSlice("nil vector", &f.none)
		st.FloatSlice("empty vector", &f.empty)
		st.FloatSlice("vector", &f.vec)
		st.Float("scalar", &f.x)
		st.Int("int", &f.i)
		st.Int64("int64", &f.j)
		st.Bool("flag", &f.b)
		st.Ints("ints", &f.ints)
	}
	in := fields{fixed: []float64{nan, math.Copysign(0, -1)}, empty: []float64{}, vec: []float64{math.Inf(1), math.Inf(-1), 1e-310},
		x: math.Pi, i: -7, j: math.MinInt64, b: true, ints: []int{0, -1, 1 << 40}}
	save := newSaveState()
	declare(save, &in)
	payload := save.out.Bytes()
	out := fields{fixed: make([]float64, 2), none: []float64{1}}
	load := newLoadState(payload)
	declare(load, &out)
	if load.err != nil || len(load.in) != 0 {
		t.Fatalf("load: %v, %d bytes left", load.err, len(load.in))
	}
	if got, want := fmt.Sprintf("%#v", out), fmt.Sprintf("%#v", in); got != want ||
		math.Float64bits(out.fixed[0]) != math.Float64bits(nan) || math.Float64bits(out.fixed[1]) != 1<<63 {
		t.Fatalf("loaded %s, saved %s", got, want)
	}
	short := fields{fixed: make([]float64, 3)}
	load = newLoadState(payload)
	declare(load, &short)
	if want := `checkpoint field "fixed" has 2 entries, the run has 3`; load.err == nil || load.err.Error() != want {
		t.Fatalf("other length: %v, want %q", load.err, want)
	}
	for n := range len(payload) {
		load := newLoadState(payload[:n])
		declare(load, &fields{fixed: make([]float64, 2)})
		if load.err == nil || !strings.HasPrefix(load.err.Error(), "checkpoint ends inside field ") {
			t.Fatalf("payload cut at %d of %d: %v", n, len(payload), load.err)
		}
	}
}

type fields struct {
	fixed, none, empty, vec []float64
	x                       float64
	i                       int
	j                       int64
	b                       bool
	ints                    []int
}

// CheckpointRounds tells how far a run got from its checkpoint alone.
func TestCheckpointRounds(t *testing.T) {
	p := testProblem(t, sizes(3, 4))
	s := Settings{Rounds: 5, LocalSteps: 1, CheckpointKey: "k"}
	ckpt := checkpointAfter(t, p, &stepper{}, s, 4)
	if r, err := CheckpointRounds(ckpt, "k"); r != 4 || err != nil {
		t.Fatalf("%d, %v; want 4", r, err)
	}
	if _, err := CheckpointRounds(ckpt, "other"); err == nil || err.Error() != `checkpoint belongs to run "k", not to this run "other"` {
		t.Fatalf("another run's: %v", err)
	}
}

// A run resumed with more rounds than the checkpointed run had (a halving
// rung continued to the next budget) continues bit for bit: its records
// are the longer run's, plus the shorter run's last evaluation where that
// is not on the longer run's grid.
func TestResumeWithLongerHorizon(t *testing.T) {
	p := testProblem(t, sizes(3, 4, 5, 6))
	m := []Metric{objectiveMetric{}}
	long := Settings{Rounds: 6, LocalSteps: 3, Batch: 2, ClientsPerRound: 2, EvalEvery: 2, Seed: 5, CheckpointKey: "k"}
	short := long
	short.Rounds = 3
	want := Run(p, &stepper{}, long, m)
	rs := long
	rs.Resume = checkpointAfter(t, p, &stepper{}, short, 3, m...)
	got := Run(p, &stepper{}, rs, m)
	var rounds []int
	for _, r := range got.Records {
		rounds = append(rounds, r.Round)
	}
	if fmt.Sprint(rounds) != "[0 2 3 4 6]" {
		t.Fatalf("rounds evaluated %v, want [0 2 3 4 6]", rounds)
	}
	kept := append(got.Records[:2:2], got.Records[3:]...)
	if fmt.Sprint(kept) != fmt.Sprint(want.Records) || fmt.Sprint(got.Model) != fmt.Sprint(want.Model) {
		t.Fatalf("continued: %v %v, want %v %v", kept, got.Model, want.Records, want.Model)
	}
}

// tripwire is a metric that asks for an interruption (sets *flag) when it
// evaluates round at, as a signal arriving during that evaluation would.
type tripwire struct {
	at   int
	flag *bool
}

func (tripwire) Name() string { return "tripwire" }
func (m tripwire) Eval(e *Eval) float64 {
	if e.Round == m.at {
		*m.flag = true
	}
	return 0
}

// An interruption that arrives while a round is evaluated: a run without
// checkpoints abandons that evaluation (no record of the round); a run
// with checkpoints completes it, saves the round in a checkpoint, and
// stops before the next round, and resuming from that checkpoint gives the
// uninterrupted run (the stop is at a round boundary whose state is kept).
func TestInterruptDuringAnEvaluationIsCheckpointed(t *testing.T) {
	p := testProblem(t, sizes(3, 4, 5, 6))
	base := Settings{Rounds: 6, LocalSteps: 3, Batch: 2, ClientsPerRound: 2, EvalEvery: 2, Seed: 5, CheckpointKey: "k"}
	m := func(flag *bool) []Metric {
		return []Metric{objectiveMetric{}, trainLoss{}, tripwire{at: 4, flag: flag}}
	}
	var never bool
	want := Run(p, &stepper{}, base, m(&never))

	var tripped bool
	s := base
	s.Interrupt = func() bool { return tripped }
	plain := Run(p, &stepper{}, s, m(&tripped))
	if plain.Status != Interrupted || plain.Err != "interrupted while evaluating round 4" || len(plain.Records) != 2 {
		t.Fatalf("without checkpoints: %s %q, %d records; want interrupted while evaluating round 4 with rounds 0 and 2", plain.Status, plain.Err, len(plain.Records))
	}

	tripped = false
	var saved []byte
	var at int
	s.Checkpoint = func(done int, save func(io.Writer) error) error {
		if !tripped {
			return nil
		}
		var b bytes.Buffer
		if err := save(&b); err != nil {
			return err
		}
		saved, at = b.Bytes(), done
		return nil
	}
	stopped := Run(p, &stepper{}, s, m(&tripped))
	if stopped.Status != Interrupted || stopped.Err != "interrupted after 4 of 6 rounds" || len(stopped.Records) != 3 || at != 4 {
		t.Fatalf("with checkpoints: %s %q, %d records, checkpoint after round %d; want interrupted after 4 rounds with rounds 0, 2, 4 and a checkpoint after 4",
			stopped.Status, stopped.Err, len(stopped.Records), at)
	}
	rs := base
	rs.Resume = saved
	got := Run(p, &stepper{}, rs, m(&never))
	if got.Status != Done || fmt.Sprint(got.Records) != fmt.Sprint(want.Records) || fmt.Sprint(got.Model) != fmt.Sprint(want.Model) {
		t.Fatalf("resumed: %s %v %v, want %v %v", got.Status, got.Records, got.Model, want.Records, want.Model)
	}
}
