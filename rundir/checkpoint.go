package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// A run in progress keeps its state at a round boundary in
// checkpoints/KEY.ROUNDS.ckpt (core's checkpoint format, which carries the
// run's key and the sha256 of its payload), written atomically every
// experiment.SessionOptions.CheckpointEvery and when the session is interrupted; the
// manifest records its size, sha256, rounds done and the build that wrote
// it, and only then is the run's previous checkpoint removed, so a session
// killed at any moment leaves a recorded checkpoint in place. The next
// session resumes the run from it, bit for bit; the file is removed when
// the run completes (kept with DirOptions.KeepCheckpoints).

// DefaultCheckpointEvery is the period of checkpoints fedlab run uses
// unless told otherwise.
const DefaultCheckpointEvery = 5 * time.Minute

// CheckpointSum is what the manifest records of a run's checkpoint.
type CheckpointSum struct {
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	Rounds int    `json:"rounds"`         // the rounds the run had done
	Fedlab string `json:"fedlab_version"` // the version that wrote it
	// Build is the CheckpointBuild that wrote it; a resume needs this
	// one.
	Build string `json:"build"`
	// Elapsed is the run's time up to the checkpoint, over the sessions
	// that ran it; a resumed run adds it to its own.
	Elapsed float64 `json:"elapsed_seconds"`
}

// checkpointPath is the checkpoint file of the run with the given key
// after the given rounds, relative to the directory, slash-separated.
func checkpointPath(key string, rounds int) string {
	return fmt.Sprintf("%s/%s.%d.ckpt", CheckpointsDir, key, rounds)
}

// checkpointFiles are the checkpoint files of run key in the directory
// (paths relative to it), recorded or not.
func (d *Dir) checkpointFiles(key string) []string { return checkpointFilesIn(d.path, key) }

// checkpointFilesIn are the checkpoint files of run key in the directory
// at dir (paths relative to it), recorded or not.
func checkpointFilesIn(dir, key string) []string {
	entries, _ := os.ReadDir(filepath.Join(dir, CheckpointsDir))
	var out []string
	for _, e := range entries {
		if k, _, _ := strings.Cut(e.Name(), "."); k == key && strings.HasSuffix(e.Name(), ".ckpt") {
			out = append(out, CheckpointsDir+"/"+e.Name())
		}
	}
	return out
}

// checkpoints is the experiment.Checkpoints of a run directory. Its
// methods are called from run goroutines.
type checkpoints struct{ d *Dir }

// Resume returns the checkpoint of job j, with the run's time up to it
// that the manifest records, if the directory holds one that the
// manifest records as this build wrote it and that is intact and of j's
// key; otherwise nil, with a notice naming the file and what is wrong
// with it (no notice when there is neither a file nor a record), and the
// file is removed. A checkpoint whose recorded size passes the memory
// ceiling is neither read nor removed: the run fails with an error that
// says so, and a session with a larger ceiling resumes from it.
func (c checkpoints) Resume(j *experiment.Job) ([]byte, time.Duration, error) {
	d := c.d
	if err := d.beyondCeiling(j); err != nil {
		return nil, 0, err
	}
	b, rec, path, problem := d.verified(j.Key)
	switch {
	case b == nil && problem == "":
		return nil, 0, nil
	case problem == "":
		d.notice("%s: resuming %s (seed %d) after round %d of %d", path, j.Label, j.Seed, rec.Rounds, j.Settings.Rounds)
		return b, time.Duration(rec.Elapsed * float64(time.Second)), nil
	}
	d.notice("%s; %s", problem, fromZero(j))
	if err := d.dropCheckpoints(j.Key); err != nil {
		d.notice("%s", err)
	}
	return nil, 0, nil
}

// beyondCeiling is the error of job j's recorded checkpoint when its
// size passes the memory ceiling; nil when it fits, when there is none,
// and when its file is gone.
func (d *Dir) beyondCeiling(j *experiment.Job) error {
	d.mu.Lock()
	rec := d.m.Checkpoints[j.Key]
	d.mu.Unlock()
	if rec == nil {
		return nil
	}
	name := checkpointPath(j.Key, rec.Rounds)
	if _, err := os.Lstat(filepath.Join(d.path, filepath.FromSlash(name))); errors.Is(err, fs.ErrNotExist) {
		return nil // deleted: verified says so, and the run starts again from round 0
	}
	if problem := d.tooLarge(name, rec.Size); problem != "" {
		return fmt.Errorf("%s; kept: a session with a larger --max-memory resumes %s (seed %d) from it, after round %d of %d (delete %s to run it again from round 0)",
			problem, j.Label, j.Seed, rec.Rounds, j.Settings.Rounds, filepath.Join(d.path, filepath.FromSlash(name)))
	}
	return nil
}

// verified returns the checkpoint of run key that the manifest records,
// with its record and path, if it is intact, of this build and of the
// run's key; otherwise the problem with it, naming the file (nil and ""
// when there is neither a file nor a record).
func (d *Dir) verified(key string) (b []byte, rec *CheckpointSum, path, problem string) {
	d.mu.Lock()
	rec = d.m.Checkpoints[key]
	d.mu.Unlock()
	if rec == nil {
		files := d.checkpointFiles(key)
		if len(files) == 0 {
			return nil, nil, "", ""
		}
		return nil, nil, "", filepath.Join(d.path, filepath.FromSlash(files[0])) + ": the manifest records no checksum of it (written by a session that ended before recording it)"
	}
	path = filepath.Join(d.path, filepath.FromSlash(checkpointPath(key, rec.Rounds)))
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, rec, path, fmt.Sprintf("%s: missing (the manifest records it)", path)
	}
	if problem := d.tooLarge(checkpointPath(key, rec.Rounds), rec.Size); problem != "" {
		return nil, rec, path, problem
	}
	b, err := ReadFile(d.path, checkpointPath(key, rec.Rounds), rec.Size)
	var refused *RefusedError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		problem = fmt.Sprintf("%s: missing (the manifest records it)", path)
	case errors.As(err, &refused):
		problem = refused.Error()
	case err != nil:
		problem = fmt.Sprintf("%s: %v", path, err)
	case sumOf(b).SHA256 != rec.SHA256:
		problem = fmt.Sprintf("%s: altered: its SHA-256 is %.12s…, the manifest recorded %.12s…", path, sumOf(b).SHA256, rec.SHA256)
	case rec.Build != CheckpointBuild():
		problem = fmt.Sprintf("%s: %s", path, otherBuild(rec))
	default:
		if _, err := core.CheckpointRounds(b, key); err != nil {
			problem = fmt.Sprintf("%s: %v", path, err)
		}
	}
	if problem != "" {
		return nil, rec, path, problem
	}
	return b, rec, path, ""
}

// otherBuild says that the checkpoint rec records was written by another
// build than this one.
func otherBuild(rec *CheckpointSum) string {
	if rec.Build == "" {
		return fmt.Sprintf("written by a fedlab build that did not record its identity (%s), this is %s", rec.Fedlab, CheckpointBuild())
	}
	return fmt.Sprintf("written by another fedlab build (%s, this is %s)", rec.Build, CheckpointBuild())
}

// fromZero says that job j starts again from round 0.
func fromZero(j *experiment.Job) string {
	return fmt.Sprintf("%s (seed %d) starts again from round 0", j.Label, j.Seed)
}

// Save writes the checkpoint of job j after done rounds, atomically, then
// records it in the manifest, which is written at once, and only then
// removes the run's previous checkpoint: a session killed at any moment
// resumes from the last checkpoint recorded. The record's elapsed time is
// elapsed, the run's time over the sessions that ran it.
func (c checkpoints) Save(j *experiment.Job, done int, elapsed time.Duration, data []byte) error {
	return c.d.store(j.Key, done, elapsed, data, true)
}

// store writes the checkpoint of run key after done rounds and records it
// (writing the manifest at once if write), then removes the run's
// previous checkpoint (see Save).
func (d *Dir) store(key string, done int, elapsed time.Duration, data []byte, write bool) error {
	name := checkpointPath(key, done)
	if err := writeFile(filepath.Join(d.path, filepath.FromSlash(name)), data); err != nil {
		return err
	}
	sum := sumOf(data)
	d.mu.Lock()
	if d.m.Checkpoints == nil {
		d.m.Checkpoints = map[string]*CheckpointSum{}
	}
	old := d.m.Checkpoints[key]
	d.m.Checkpoints[key] = &CheckpointSum{Size: sum.Size, SHA256: sum.SHA256, Rounds: done, Fedlab: Version(), Build: CheckpointBuild(),
		Elapsed: elapsed.Seconds()}
	var err error
	if write {
		err = d.m.write(d.path)
	}
	d.mu.Unlock()
	if err != nil || old == nil || old.Rounds == done {
		return err
	}
	if err := os.Remove(filepath.Join(d.path, filepath.FromSlash(checkpointPath(key, old.Rounds)))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Refused reports a checkpoint the engine could not resume job j from.
func (c checkpoints) Refused(j *experiment.Job, why string) {
	d := c.d
	d.mu.Lock()
	rec := d.m.Checkpoints[j.Key]
	d.mu.Unlock()
	path := filepath.Join(d.path, CheckpointsDir)
	if rec != nil {
		path = filepath.Join(d.path, filepath.FromSlash(checkpointPath(j.Key, rec.Rounds)))
	}
	d.notice("%s: %s; %s", path, why, fromZero(j))
	if err := d.dropCheckpoints(j.Key); err != nil {
		d.notice("%s", err)
	}
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

// dropCheckpoints removes the checkpoint files of run key and the
// manifest's record of them (written with the next manifest).
func (d *Dir) dropCheckpoints(key string) error {
	d.mu.Lock()
	delete(d.m.Checkpoints, key)
	d.mu.Unlock()
	for _, name := range d.checkpointFiles(key) {
		if err := os.Remove(filepath.Join(d.path, filepath.FromSlash(name))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// removeCheckpoint deletes the checkpoints of a run that completed, with
// their record, unless the session keeps checkpoints.
func (d *Dir) removeCheckpoint(key string) error {
	if d.path == "" || d.opts.KeepCheckpoints {
		return nil
	}
	return d.dropCheckpoints(key)
}
