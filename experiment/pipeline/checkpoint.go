package pipeline

import (
	"bytes"
	"fmt"
	"io"

	"github.com/fedlab/fedlab/core"
)

// A pipeline run checkpoints at the round boundaries of its stages: its
// checkpoint (core's format, core.WriteCheckpoint) holds the rounds done
// over all stages (first, so core.CheckpointRounds reads it), the stage
// in progress, what the stages before it left (the counts carried, the
// divergence base, the pipeline's initial model, the previous stage's
// model and average, their records) and the stage's own engine
// checkpoint, whose algorithm state includes the stage wrapper's running
// average. A resumed run restores them and continues the stage from its
// engine checkpoint, bit for bit.

// Checkpointing makes a pipeline run checkpoint and resume (see
// RunCheckpointed); its fields mean what core.Settings' fields of the same
// names mean, for the pipeline as a whole.
type Checkpointing struct {
	// Key is the run's identity, written into its checkpoints.
	Key string
	// Checkpoint is offered a checkpoint after every round of every stage,
	// done counting the rounds of all stages.
	Checkpoint func(done int, save func(io.Writer) error) error
	// Resume, if not nil, is a checkpoint of this run to continue from.
	Resume []byte
}

// runState is where a pipeline run stands between two rounds.
type runState struct {
	// done is the rounds of the stages before the stage in progress
	// (0-based); a checkpoint records the rounds done over all stages.
	done, stage int
	carry       core.Counts
	divBase     float64
	w0, prev    []float64 // the pipeline's initial model; the previous stage's final model
	prevAvg     []float64 // the previous stage's average (nil unless this stage restarts from it)
	records     []core.Record
	inner       []byte // the stage's engine checkpoint
	maxRecords  int    // on loading, the most records the pipeline can have
}

// declare declares the state to st (saving or restoring it).
func (r *runState) declare(st *core.State) {
	st.Int("rounds done", &r.done)
	st.Int("stage", &r.stage)
	st.Count64("carried up", &r.carry.Up)
	st.Count64("carried down", &r.carry.Down)
	st.Count("carried communication rounds", &r.carry.CommRounds)
	st.Count64("carried samples", &r.carry.Samples)
	st.Float("divergence base", &r.divBase)
	st.FloatSlice("initial model", &r.w0)
	st.FloatSlice("previous model", &r.prev)
	st.FloatSlice("previous average", &r.prevAvg)
	st.Records(&r.records, r.maxRecords, -1)
	st.Bytes("stage checkpoint", &r.inner)
}

// stageKey is the checkpoint key of stage i's engine within run key.
func stageKey(key string, i int) string { return fmt.Sprintf("%s stage %d", key, i+1) }

// resume restores the state of a run from its checkpoint, checked against
// the pipeline (its stages and the records' columns).
func (p *Pipeline) resume(ck *Checkpointing, columns int) (*runState, error) {
	r := &runState{maxRecords: p.Rounds() + len(p.stages)} // at most every round and each stage's start
	if err := core.ReadCheckpoint(ck.Resume, ck.Key, r.declare); err != nil {
		return nil, err
	}
	if r.stage < 0 || r.stage >= len(p.stages) {
		return nil, fmt.Errorf("checkpoint of stage %d of a pipeline of %d stages", r.stage+1, len(p.stages))
	}
	before := 0 // the rounds of the stages before r.stage
	for _, st := range p.stages[:r.stage] {
		before += st.Rounds
	}
	if r.done < before || r.done > before+p.stages[r.stage].Rounds {
		return nil, fmt.Errorf("checkpoint after round %d in stage %d, which runs rounds %d to %d", r.done, r.stage+1, before+1, before+p.stages[r.stage].Rounds)
	}
	dim := p.spec.Problem.Dim()
	for _, v := range []struct {
		name string
		x    []float64
	}{{"initial model", r.w0}, {"previous model", r.prev}, {"previous average", r.prevAvg}} {
		if v.x != nil && len(v.x) != dim {
			return nil, fmt.Errorf("checkpoint field %q has %d entries, the problem's dimension is %d", v.name, len(v.x), dim)
		}
	}
	r.done = before // the stage's engine checkpoint holds the rest
	for _, rec := range r.records {
		if len(rec.Values) != columns {
			return nil, fmt.Errorf("a record has %d values, the pipeline measures %d columns", len(rec.Values), columns)
		}
	}
	return r, nil
}

// stageHook is stage i's core.Settings.Checkpoint: it offers ck a
// checkpoint of the whole run, r with the stage's engine checkpoint, the
// rounds counted over all stages.
func stageHook(ck *Checkpointing, r *runState) func(done int, save func(io.Writer) error) error {
	before := r.done
	return func(done int, save func(io.Writer) error) error {
		return ck.Checkpoint(before+done, func(w io.Writer) error {
			var inner bytes.Buffer
			if err := save(&inner); err != nil {
				return err
			}
			at := *r
			at.done, at.inner = before+done, inner.Bytes()
			return core.WriteCheckpoint(w, ck.Key, at.declare)
		})
	}
}

// State declares the stage's algorithm's state (which must declare it:
// core.Stateful) and the running average the wrapper keeps for the next
// stage.
func (w *wrapped) State(st *core.State) {
	sf, ok := w.Algorithm.(core.Stateful)
	if !ok {
		st.Fail(fmt.Errorf("stage %d: algorithm %q does not declare its state (core.Stateful): it restarts from round 0", w.stage+1, w.name))
		return
	}
	sf.State(st)
	on := w.average
	st.Bool("stage averages", &on)
	if st.Err() == nil && on != w.average {
		st.Fail(fmt.Errorf("checkpoint of a stage that averages %v, this one %v", on, w.average))
	}
	if !w.average {
		return
	}
	st.Floats("stage average sum", w.sum)
	st.Float("stage average weight", &w.weight)
	st.Count("stage rounds averaged", &w.rounds)
}

// ClientState declares client c's state through the stage's algorithm
// (core.ClientStateDeclarer); a client state it does not declare fails.
func (w *wrapped) ClientState(c *core.Client, st *core.State) {
	if cs, ok := w.Algorithm.(core.ClientStateDeclarer); ok {
		cs.ClientState(c, st)
		return
	}
	if c.State != nil {
		st.Fail(fmt.Errorf("stage %d: algorithm %q keeps state per client but does not declare it (core.ClientStateDeclarer): it restarts from round 0", w.stage+1, w.name))
	}
}
