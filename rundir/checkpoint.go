package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// A run in progress keeps its state at a round boundary in
// checkpoints/KEY.ckpt (core's checkpoint format, which carries the run's
// key and the sha256 of its payload), written atomically every
// Options.CheckpointEvery and when the session is interrupted; the
// manifest records its size, sha256, rounds done and the build that wrote
// it. The next session resumes the run from it, bit for bit; the file is
// removed when the run completes (kept with Options.KeepCheckpoints).

// DefaultCheckpointEvery is the period of checkpoints fedlab run uses
// unless told otherwise.
const DefaultCheckpointEvery = 5 * time.Minute

// CheckpointSum is what the manifest records of a run's checkpoint.
type CheckpointSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	Rounds int    `json:"rounds"`         // the rounds the run had done
	Fedlab string `json:"fedlab_version"` // the build that wrote it
}

// checkpointPath is the checkpoint file of the run with the given key,
// relative to the directory, slash-separated.
func checkpointPath(key string) string { return CheckpointsDir + "/" + key + ".ckpt" }

// checkpoints is the experiment.Checkpoints of a run directory. Its
// methods are called from run goroutines.
type checkpoints struct{ d *Dir }

// Resume returns the checkpoint of job j if the directory holds one that
// the manifest records as this build wrote it and that is intact and of
// j's key; otherwise nil, with a notice naming the file and what is wrong
// with it (no notice when there is neither a file nor a record).
func (c checkpoints) Resume(j *experiment.Job) []byte {
	d := c.d
	d.mu.Lock()
	rec := d.m.Checkpoints[j.Key]
	d.mu.Unlock()
	var size int64
	if rec != nil {
		size = rec.Size
	}
	path := filepath.Join(d.path, filepath.FromSlash(checkpointPath(j.Key)))
	b, err := ReadFile(d.path, checkpointPath(j.Key), size)
	var refused *RefusedError
	problem := ""
	switch {
	case errors.Is(err, fs.ErrNotExist) && rec == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		problem = fmt.Sprintf("%s: missing (the manifest records a checkpoint after round %d)", path, rec.Rounds)
	case errors.As(err, &refused):
		problem = refused.Error()
	case err != nil:
		problem = fmt.Sprintf("%s: %v", path, err)
	case rec == nil:
		problem = path + ": the manifest records no checksum of it (written by a session that ended before recording it)"
	case sumOf(b).SHA256 != rec.SHA256:
		problem = fmt.Sprintf("%s: altered: its SHA-256 is %.12s…, the manifest recorded %.12s…", path, sumOf(b).SHA256, rec.SHA256)
	case rec.Fedlab != Version():
		problem = fmt.Sprintf("%s: written by another fedlab build (%s, this is %s)", path, rec.Fedlab, Version())
	}
	var done int
	if problem == "" {
		if done, err = core.CheckpointRounds(b, j.Key); err != nil {
			problem = fmt.Sprintf("%s: %v", path, err)
		}
	}
	if problem != "" {
		d.forgetCheckpoint(j.Key)
		d.notice("%s; %s", problem, fromZero(j))
		return nil
	}
	d.notice("%s: resuming %s (seed %d) after round %d of %d", path, j.Label, j.Seed, done, j.Settings.Rounds)
	return b
}

// fromZero says that job j starts again from round 0.
func fromZero(j *experiment.Job) string {
	return fmt.Sprintf("%s (seed %d) starts again from round 0", j.Label, j.Seed)
}

// Save writes the checkpoint of job j after done rounds, atomically, then
// records it in the manifest, which is written at once: a session killed
// after that resumes from it.
func (c checkpoints) Save(j *experiment.Job, done int, data []byte) error {
	d := c.d
	if err := writeFile(filepath.Join(d.path, filepath.FromSlash(checkpointPath(j.Key))), data); err != nil {
		return err
	}
	sum := sumOf(data)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m.Checkpoints == nil {
		d.m.Checkpoints = map[string]*CheckpointSum{}
	}
	d.m.Checkpoints[j.Key] = &CheckpointSum{Size: sum.Size, SHA256: sum.SHA256, Rounds: done, Fedlab: Version()}
	return d.m.write(d.path)
}

// Refused reports a checkpoint the engine could not resume job j from.
func (c checkpoints) Refused(j *experiment.Job, why string) {
	c.d.forgetCheckpoint(j.Key)
	c.d.notice("%s: %s; %s", filepath.Join(c.d.path, filepath.FromSlash(checkpointPath(j.Key))), why, fromZero(j))
}

// Unsupported reports, once per reason in a session, that a run cannot be
// checkpointed.
func (c checkpoints) Unsupported(j *experiment.Job, why string) {
	d := c.d
	d.mu.Lock()
	seen := d.unsupported[why]
	if d.unsupported == nil {
		d.unsupported = map[string]bool{}
	}
	d.unsupported[why] = true
	d.mu.Unlock()
	if !seen {
		d.notice("%s (seed %d) cannot be checkpointed: %s; if interrupted, it (and any run like it) starts again from round 0", j.Label, j.Seed, why)
	}
}

// forgetCheckpoint drops the manifest's record of the checkpoint of run
// key (the file is replaced by the run's next checkpoint, or removed when
// it completes).
func (d *Dir) forgetCheckpoint(key string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.m.Checkpoints, key)
}

// removeCheckpoint deletes the checkpoint of a run that completed, with
// its record, unless the session keeps checkpoints.
func (d *Dir) removeCheckpoint(key string) error {
	if d.path == "" || d.opts.KeepCheckpoints {
		return nil
	}
	d.forgetCheckpoint(key)
	if err := os.Remove(filepath.Join(d.path, filepath.FromSlash(checkpointPath(key)))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
