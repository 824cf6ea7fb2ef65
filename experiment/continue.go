package experiment

import (
	"bytes"
	"io"
	"slices"

	"github.com/fedlab/fedlab/core"
)

// continuation applies job j's Continue and KeepState to its engine
// settings s (after the run directory's checkpoint, if any, was put in
// s.Resume: a checkpoint of this very run is further along than the state
// of a shorter one).
func continuation(j *Job, s *core.Settings) {
	if j.Continue == nil && j.KeepState == nil {
		return
	}
	s.AlgorithmName, s.CheckpointKey = j.Algorithm, j.Key
	if s.Resume == nil && j.Continue != nil {
		// a state that does not verify is left out: the engine would
		// refuse it the same way, and the run starts from round 0
		if data, err := core.RekeyCheckpoint(j.Continue.Data, j.Continue.Key, j.Key); err == nil {
			s.Resume = data
		}
	}
	s.Checkpoint = keepState(j, s.Checkpoint)
}

// keepState returns the engine's checkpoint hook of job j: inner (nil:
// none), and after the last round the run's state handed to j.KeepState.
func keepState(j *Job, inner func(int, func(io.Writer) error) error) func(int, func(io.Writer) error) error {
	if j.KeepState == nil {
		return inner
	}
	return func(done int, save func(io.Writer) error) error {
		if inner != nil {
			if err := inner(done, save); err != nil {
				return err
			}
		}
		if done == j.Settings.Rounds {
			var b bytes.Buffer
			if save(&b) == nil { // an algorithm that does not declare its state keeps none
				j.KeepState(&State{Key: j.Key, Rounds: done, Data: b.Bytes()})
			}
		}
		return nil
	}
}

// continued drops from the records of job j's run (settings s), resumed
// from a state (s.Resume: j.Continue, or the run's own checkpoint), those
// up to the state's round that are off this run's grid: the last
// evaluation of each shorter run it continued (a halving rung's), which
// the state's history holds (so does a checkpoint of the run once it had
// continued one, even in a session that refused the state to continue),
// so that its records are the run's from round 0. A run from round 0 is
// off its grid only where it diverges, which ends it.
func continued(j *Job, s core.Settings, res *core.Result) {
	if s.Resume == nil {
		return
	}
	done, err := core.CheckpointRounds(s.Resume, j.Key)
	if err != nil {
		return // not resumed: the engine refused it
	}
	last := s.RoundOffset + done
	res.Records = slices.DeleteFunc(res.Records, func(r core.Record) bool { return r.Round <= last && !s.Evaluates(r.Round) })
}
