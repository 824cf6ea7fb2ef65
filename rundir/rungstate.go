package rundir

import (
	"fmt"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// A rung state is the final state of a completed run that a longer run
// may continue (experiment.Job.KeepState: the runs of a successive-halving
// rung, whose survivors the next rung continues). The directory keeps it
// as the run's checkpoint after its last round (checkpoints/KEY.ROUNDS.ckpt
// of a run that is done, recorded in the manifest like the checkpoints of
// unfinished runs), so that a session interrupted between two rungs and
// run again continues the next rung's survivors from it instead of
// round 0. A session that finds such a run stored hands the job's
// KeepState the stored state, verified like a checkpoint; one that is
// missing, altered, truncated, unrecorded or of another build is refused
// with a notice, and a survivor of it is recomputed from round 0. Rung
// states are removed when the script completes (kept with
// DirOptions.KeepCheckpoints).

// keepRungStates makes the jobs that keep their final state (KeepState)
// also store it in the directory.
func (d *Dir) keepRungStates(jobs []experiment.Job) {
	if d.path == "" || d.opts.DryRun {
		return
	}
	for i := range jobs {
		j := &jobs[i]
		if keep := j.KeepState; keep != nil {
			j.KeepState = func(st *experiment.State) {
				keep(st)
				d.storeRungState(j, st)
			}
		}
	}
}

// storeRungState writes st, the final state of job j's run, as the run's
// checkpoint, recorded with the next manifest (the run's completion writes
// it); an existing record of the same state (DirOptions.KeepCheckpoints has
// stored it already) is kept. A state that cannot be written is said.
func (d *Dir) storeRungState(j *experiment.Job, st *experiment.State) {
	d.mu.Lock()
	rec := d.m.Checkpoints[j.Key]
	d.mu.Unlock()
	if rec != nil && rec.Rounds == st.Rounds && rec.SHA256 == sumOf(st.Data).SHA256 {
		return
	}
	if err := d.store(j.Key, st.Rounds, 0, st.Data, false); err != nil {
		d.notice("%s (seed %d): its state after round %d could not be stored: %v; if the session ends before the next rung, that rung recomputes it from round 0",
			j.Label, j.Seed, st.Rounds, err)
	}
}

// keptRungState reports whether the directory records the state of job
// j's run after its last round, which the run keeps (KeepState).
func (d *Dir) keptRungState(j *experiment.Job) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	rec := d.m.Checkpoints[j.Key]
	return j.KeepState != nil && rec != nil && rec.Rounds == j.Settings.Rounds
}

// restoreRungState hands job j's KeepState the state its run, found
// stored, left in the directory: verified like a checkpoint, and after
// the run's last round. A state that does not verify is dropped with a
// notice; none (neither a file nor a record) is said nothing of.
func (d *Dir) restoreRungState(j *experiment.Job) {
	if j.KeepState == nil || d.path == "" {
		return
	}
	b, rec, path, problem := d.verified(j.Key)
	if b == nil && problem == "" {
		return
	}
	if problem == "" && rec.Rounds != j.Settings.Rounds {
		problem = fmt.Sprintf("%s: holds the state after round %d, not after the run's last round %d", path, rec.Rounds, j.Settings.Rounds)
	}
	if problem == "" {
		j.KeepState(&experiment.State{Key: j.Key, Rounds: rec.Rounds, Data: b})
		return
	}
	d.notice("%s; %s (seed %d) is not continued from it: if it survives its rung, the next rung recomputes it from round 0", problem, j.Label, j.Seed)
	if err := d.dropCheckpoints(j.Key); err != nil {
		d.notice("%s", err)
	}
}

// dropRungStates removes the checkpoints of the runs that are done (rung
// states), with their records, unless the session keeps checkpoints; a
// failed run's checkpoint stays for the session that retries it.
func (d *Dir) dropRungStates() error {
	if d.opts.KeepCheckpoints {
		return nil
	}
	var keys []string
	d.mu.Lock()
	for key := range d.m.Checkpoints {
		if e := d.m.Runs[key]; e != nil && e.Status != Pending && e.Status != string(core.Failed) {
			keys = append(keys, key)
		}
	}
	d.mu.Unlock()
	for _, key := range keys {
		if err := d.dropCheckpoints(key); err != nil {
			return err
		}
	}
	return nil
}
