package pipeline

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/schedules/sched"
)

// checkpointPipeline has stages of four algorithms, a stage λ, a restart
// at the wrapper's running average (fedmid has no Averager of its own),
// one at C-FedDA's own average and a top-s restart with other local
// steps: 6 + 7 + 5 + 4 + 3 rounds.
func checkpointPipeline(t *testing.T) *Pipeline {
	return newPipeline(t, Spec{Problem: testProblem(t, 0.05), Settings: settings, Metrics: testMetrics(t), Restart: Last,
		Stages: []Stage{
			{Algorithm: "feddualavg", Params: map[string]any{"eta_c": 0.005}, Rounds: 6},
			{Algorithm: "fedmid", Params: map[string]any{"eta_c": 0.01}, Rounds: 7, Lambda: sched.Constant(0.02)},
			{Algorithm: "cfedda", Params: map[string]any{"L": 50.0}, Rounds: 5, Restart: Average},
			{Algorithm: "fastfedda", Params: map[string]any{"L": 50.0}, Rounds: 4, Restart: Average},
			{Rounds: 3, Restart: Top, Keep: 5, LocalSteps: 2},
		}})
}

// cutAt runs pl (seed 1), resumed from ck.Resume if set, until the round
// boundary after done == cut rounds over all stages, and returns the
// checkpoint saved there and the result.
func cutAt(t *testing.T, pl *Pipeline, resume []byte, cut int) ([]byte, *core.Result) {
	t.Helper()
	var saved []byte
	ck := &Checkpointing{Key: "run-a", Resume: resume, Checkpoint: func(done int, save func(io.Writer) error) error {
		if done != cut {
			return nil
		}
		var b bytes.Buffer
		if err := save(&b); err != nil {
			return err
		}
		saved = b.Bytes()
		return nil
	}}
	res := pl.RunCheckpointed(1, 0, 0, nil, func() bool { return saved != nil }, ck)
	if saved == nil {
		t.Fatalf("no checkpoint after round %d: %s %s", cut, res.Status, res.Err)
	}
	if n, err := core.CheckpointRounds(saved, "run-a"); err != nil || n != cut {
		t.Fatalf("checkpoint after round %d records %d rounds done (%v)", cut, n, err)
	}
	return saved, res
}

// sameResult fails unless got equals want bit for bit: status, error,
// records and final model.
func sameResult(t *testing.T, what string, got, want *core.Result) {
	t.Helper()
	bits := func(v []float64) []uint64 {
		out := make([]uint64, len(v))
		for i, x := range v {
			out[i] = math.Float64bits(x)
		}
		return out
	}
	if got.Status != want.Status || got.Err != want.Err || got.DivergedAt != want.DivergedAt ||
		!slices.Equal(got.Metrics, want.Metrics) || !sameRecords(got.Records, want.Records) || !slices.Equal(bits(got.Model), bits(want.Model)) {
		t.Errorf("%s: %s %q, %d records, differs from the uninterrupted run (%s %q, %d records)",
			what, got.Status, got.Err, len(got.Records), want.Status, want.Err, len(want.Records))
	}
}

// A pipeline run interrupted after any round — inside a stage, at a
// stage's end, while the wrapper averages for the next stage — and
// resumed from its checkpoint, once or again and again, gives the records
// and model of the uninterrupted run bit for bit.
func TestAPipelineContinuesFromItsCheckpointBitForBit(t *testing.T) {
	pl := checkpointPipeline(t)
	whole := pl.Run(1, 0, 0, nil)
	if whole.Status != core.Done || pl.Rounds() != 25 {
		t.Fatalf("uninterrupted: %s %s, %d rounds", whole.Status, whole.Err, pl.Rounds())
	}
	for _, cut := range []int{1, 3, 6, 9, 13, 15, 18, 20, 22, 24} {
		saved, res := cutAt(t, pl, nil, cut)
		if res.Status != core.Interrupted {
			t.Errorf("cut after round %d: %s %s", cut, res.Status, res.Err)
		}
		got := pl.RunCheckpointed(1, 0, 0, nil, nil, &Checkpointing{Key: "run-a", Resume: saved,
			Checkpoint: func(int, func(io.Writer) error) error { return nil }})
		sameResult(t, fmt.Sprintf("resumed after round %d", cut), got, whole)
	}
	// again and again: each session resumes from the last one's checkpoint
	var saved []byte
	for _, cut := range []int{2, 6, 10, 13, 19, 23, 25} {
		saved, _ = cutAt(t, pl, saved, cut)
	}
	got := pl.RunCheckpointed(1, 0, 0, nil, nil, &Checkpointing{Key: "run-a", Resume: saved})
	sameResult(t, "resumed seven times, the last after the last round", got, whole)
}

// A checkpoint of another run, another pipeline or a damaged one fails
// the run with a "cannot resume from the checkpoint" error naming why.
func TestAPipelineRefusesACheckpointThatIsNotItsOwn(t *testing.T) {
	pl := checkpointPipeline(t)
	saved, _ := cutAt(t, pl, nil, 9)
	resume := func(p *Pipeline, key string, b []byte) string {
		return p.RunCheckpointed(1, 0, 0, nil, nil, &Checkpointing{Key: key, Resume: b}).Err
	}
	if got, want := resume(pl, "run-b", saved), `cannot resume from the checkpoint: checkpoint belongs to run "run-a", not to this run "run-b"`; got != want {
		t.Errorf("another run's: %q, want %q", got, want)
	}
	damaged := slices.Clone(saved)
	damaged[len(damaged)-1] ^= 1
	if got, want := resume(pl, "run-a", damaged), "cannot resume from the checkpoint: checkpoint is damaged: its payload does not match its sha256"; got != want {
		t.Errorf("damaged: %q, want %q", got, want)
	}
	two := newPipeline(t, Spec{Problem: testProblem(t, 0.05), Settings: settings, Metrics: testMetrics(t),
		Stages: []Stage{{Algorithm: "feddualavg", Params: map[string]any{"eta_c": 0.005}, Rounds: 6}, {Rounds: 7}}})
	if got, want := resume(two, "run-a", saved), `cannot resume from the checkpoint: stage 2: checkpoint: checkpoint holds float vector "server model" where float vector "server dual state" is expected (a checkpoint of another algorithm or build)`; got != want {
		t.Errorf("a checkpoint of fedmid's stage 2 in a pipeline whose stage 2 is feddualavg: %q, want %q", got, want)
	}
	var forged bytes.Buffer // consistent sums, a record count that would exhaust memory
	if err := core.WriteCheckpoint(&forged, "run-a", func(st *core.State) {
		done, stage, n := 9, 1, 1<<40
		var c core.Counts
		var f float64
		var v []float64
		st.Int("rounds done", &done)
		st.Int("stage", &stage)
		st.Int64("carried up", &c.Up)
		st.Int64("carried down", &c.Down)
		st.Int("carried communication rounds", &c.CommRounds)
		st.Int64("carried samples", &c.Samples)
		st.Float("divergence base", &f)
		st.FloatSlice("initial model", &v)
		st.FloatSlice("previous model", &v)
		st.FloatSlice("previous average", &v)
		st.Int("records", &n)
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := resume(pl, "run-a", forged.Bytes()), "cannot resume from the checkpoint: checkpoint holds 1099511627776 records"; got != want {
		t.Errorf("a forged record count: %q, want %q", got, want)
	}
	// a previous model of the wrong length, a negative carried count
	for _, c := range []struct {
		carried int64
		model   []float64
		want    string
	}{
		{0, []float64{1, 2, 3}, `cannot resume from the checkpoint: checkpoint field "previous model" has 3 entries, the problem's dimension is `},
		{-5, nil, `cannot resume from the checkpoint: checkpoint field "carried up" is -5, a count below 0`},
	} {
		forged.Reset()
		if err := core.WriteCheckpoint(&forged, "run-a", func(st *core.State) {
			done, stage, n := 9, 1, 0
			var f float64
			var inner []byte
			var v []float64
			st.Int("rounds done", &done)
			st.Int("stage", &stage)
			st.Int64("carried up", &c.carried)
			st.Int64("carried down", new(int64))
			st.Int("carried communication rounds", new(int))
			st.Int64("carried samples", new(int64))
			st.Float("divergence base", &f)
			st.FloatSlice("initial model", &v)
			st.FloatSlice("previous model", &c.model)
			st.FloatSlice("previous average", &v)
			st.Int("records", &n)
			st.Bytes("stage checkpoint", &inner)
		}); err != nil {
			t.Fatal(err)
		}
		if got := resume(pl, "run-a", forged.Bytes()); !strings.HasPrefix(got, c.want) {
			t.Errorf("forged: %q, want %q…", got, c.want)
		}
	}
	late, _ := cutAt(t, pl, nil, 20)
	if got, want := resume(two, "run-a", late), "cannot resume from the checkpoint: checkpoint of stage 4 of a pipeline of 2 stages"; got != want {
		t.Errorf("a checkpoint of stage 4 in a 2-stage pipeline: %q, want %q", got, want)
	}
}

// A stage whose algorithm does not declare its state cannot be saved: the
// checkpoint offered says why, naming the stage and the algorithm.
func TestAStageThatDeclaresNoStateSaysSo(t *testing.T) {
	pl := newPipeline(t, Spec{Problem: testProblem(t, 0.05), Settings: settings, Metrics: testMetrics(t),
		Stages: []Stage{{Algorithm: "fedmid", Params: map[string]any{"eta_c": 0.01}, Rounds: 2}, {Algorithm: "pipeline_probe", Rounds: 2}}})
	var errs []string
	pl.RunCheckpointed(1, 0, 0, nil, nil, &Checkpointing{Key: "k", Checkpoint: func(done int, save func(io.Writer) error) error {
		if err := save(io.Discard); err != nil {
			errs = append(errs, err.Error())
		}
		return nil
	}})
	want := `stage 2: algorithm "pipeline_probe" does not declare its state (core.Stateful): it restarts from round 0`
	if len(errs) != 2 || errs[0] != want || errs[1] != want {
		t.Errorf("errors %q, want the two rounds of stage 2 to say %q", errs, want)
	}
}
