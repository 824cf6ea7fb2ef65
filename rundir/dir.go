package rundir

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/rundir/runfile"
)

// DirOptions configure a run directory's store: the script it keeps the
// runs of, what it does with the runs already there, and what it says.
type DirOptions struct {
	Script Script
	// Source is the script's text, kept in the directory as
	// ScriptCopyFile when the session first writes there (nil: no copy).
	Source []byte
	// Invocation, if set, is recorded in the manifest.
	Invocation *Invocation
	// Fresh deletes the directory's previous runs (manifest, records,
	// results, models) before starting.
	Fresh bool
	// Update accepts a directory written by a different version of the
	// script: its stored runs whose keys the new script plans again are
	// reused, the others are deleted when the script completes.
	Update bool
	// Shard is the session's shard (experiment.SessionOptions.Shard),
	// recorded in the manifest.
	Shard Shard
	// Notices receives lines about the directory that change what runs: a
	// stored result that is missing or altered and runs again (nil
	// discards them; fedlab run gives standard error).
	Notices io.Writer
	// KeepCheckpoints keeps a run's checkpoint, after its last round, when
	// it completes (otherwise it is removed), and the rung states of a
	// halving sweep when the script completes (see keepRungStates). A run
	// directory kept in memory only keeps no checkpoints.
	KeepCheckpoints bool
	// Ceiling is the session's memory ceiling: a stored result or
	// checkpoint whose recorded size passes it is not read (a notice
	// says so), and the run is computed again, from round 0.
	Ceiling budget.Budget
	// DryRun keeps memory only (OpenDir refuses a path), so a dry run
	// leaves no directory that could be taken for results.
	DryRun bool
	// Replay is a run directory read, never written, with an empty path
	// (see replay.go): its stored runs are reused, and the session
	// computes none of the others (experiment.SessionOptions.Replay: they
	// get placeholder results).
	Replay string
}

// Dir keeps the runs of a session in a run directory: it is the
// experiment.Store of the session (see Open) that executes the script's
// calls. It reuses the runs stored by earlier sessions and keeps the
// manifest, records, results, models and checkpoints up to date. A Dir
// with an empty path keeps results in memory only (runs planned twice in
// one session still execute once). A Dir is used from one goroutine, but
// for its Checkpoints and ReferenceStore.
type Dir struct {
	path    string
	opts    DirOptions
	m       *Manifest
	memory  map[string]stored  // completed runs known to this session, by key
	calls   [][]experiment.Run // the runs of every call of this session
	begun   bool               // the directory is prepared (see begin)
	written time.Time          // when the manifest was last written
	dirty   bool               // the manifest has changes not written yet
	lock    *lock              // held from OpenDir (or the first write) to Finish
	checked bool               // the directory's manifest was checked against this session (see check)
	sum     Summary            // the session's summary (see Finish)
	// prunable are the runs the previous manifest lists, if it was written
	// by a script of the same name: the only runs pruning may delete.
	prunable map[string]bool
	// replaced are the earlier sessions of this invocation (see
	// keepEarlier), named when pruning deletes their runs.
	replaced []*EarlierInvocation
	// previous are the runs of the directory's manifest before this
	// session (their result checksums are verified on reuse).
	previous map[string]*Entry
	// unsupported are the reasons runs could not be checkpointed, each
	// reported once.
	unsupported map[string]bool
	// mu guards m.Optima, m.Checkpoints, m.Runs while runs execute, the
	// manifest's writes and the notices, which the optimum and checkpoint
	// stores use from run goroutines.
	mu sync.Mutex
}

// Shard, Stopped and Interrupted are experiment's: the manifest records
// the shard, and a session's stop and interruption are errors of the
// calls executed in a run directory.
type (
	Shard       = experiment.Shard
	Stopped     = experiment.Stopped
	Interrupted = experiment.Interrupted
)

// OpenDir opens the run directory at path ("" for memory only) as the
// store of one session. If the directory holds runs of the same script,
// they are reused; if it holds runs of a different script (another
// SHA-256) or of another fedlab build, OpenDir refuses unless opts.Fresh
// or opts.Update. The directory is locked from OpenDir (if it exists) or
// its first write until Finish; a directory locked by another session is
// refused with a *Busy error. Nothing is written until the script
// executes its first call or writes a file there, so a script that fails
// early leaves no directory behind.
func OpenDir(path string, opts DirOptions) (*Dir, error) {
	switch {
	case opts.DryRun && path != "":
		return nil, fmt.Errorf("a dry run keeps no run directory, got %s", path)
	case opts.DryRun && opts.Shard.Sharded():
		return nil, fmt.Errorf("a dry run plans every run: shard %s does not apply", opts.Shard)
	}
	d := &Dir{path: path, opts: opts, memory: map[string]stored{}, m: newManifest(opts.Script, StatusRunning)}
	if opts.Shard.Sharded() {
		s := opts.Shard
		d.m.Shard = &s
	}
	if opts.Invocation != nil {
		inv := *opts.Invocation
		d.m.Invocation = &inv
	}
	if opts.Replay != "" {
		return d, d.openReplay(path)
	}
	if path == "" {
		return d, nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		if err := CheckLinks(path); err != nil {
			return nil, err
		}
		if d.lock, err = acquireLock(path, opts.Script); err != nil {
			return nil, err
		}
		if err := d.check(); err != nil {
			d.lock.release()
			return nil, err
		}
	}
	return d, nil
}

// check compares the directory's manifest, read under the lock, with this
// session: another script's or another build's runs are refused unless
// Fresh or Update.
func (d *Dir) check() error {
	d.checked = true
	if d.opts.Fresh {
		return nil
	}
	old, ok, err := ReadManifest(d.path)
	var last Script // the script of the last invocation, or this one if an earlier invocation ran it: its runs are here
	if ok {
		last = old.Script
		if slices.ContainsFunc(old.Earlier, func(e *EarlierInvocation) bool { return e.Script.SHA256 == d.opts.Script.SHA256 }) {
			last = d.opts.Script
		}
	}
	switch {
	case err != nil:
		return fmt.Errorf("%w (use --fresh to start over)", err)
	case !ok:
		return nil
	case last.SHA256 != d.opts.Script.SHA256 && !d.opts.Update && filepath.Base(last.Path) != filepath.Base(d.opts.Script.Path):
		return fmt.Errorf("%s holds the runs of another script, %s; give another --out (or --update to add this script's runs, keeping the others)",
			d.path, filepath.Base(old.Script.Path))
	case last.SHA256 != d.opts.Script.SHA256 && !d.opts.Update:
		return fmt.Errorf("%s holds the runs of another version of %s (sha256 %.12s…, now %.12s…); "+
			"use --fresh to start over, or --update to keep the runs whose parameters did not change",
			d.path, filepath.Base(old.Script.Path), old.Script.SHA256, d.opts.Script.SHA256)
	case old.Fedlab != d.m.Fedlab && !d.opts.Update:
		return fmt.Errorf("%s holds runs of another fedlab build (%s, this is %s), whose numbers may differ; "+
			"use --update to reuse them anyway, or --fresh to start over", d.path, old.Fedlab, d.m.Fedlab)
	}
	if old.Status == StatusRunning && d.opts.Notices != nil { // this session holds the lock: the writer is gone
		fmt.Fprintf(d.opts.Notices, "fedlab: %s: its last session was interrupted (its manifest still said %q): %s; resuming\n",
			d.path, old.Status, unfinishedCause(d.lock.previous))
	}
	d.m.MergedFrom = old.MergedFrom // a merged directory stays documented as such
	d.m.Optima = old.Optima         // the stored optima stay (their files are not deleted but with --fresh)
	d.m.Checkpoints = old.Checkpoints
	d.previous = old.Runs
	d.keepEarlier(old)
	return nil
}

// keepEarlier carries the invocations of the directory's manifest into
// this session's: another invocation (other --set values, another script)
// stays in Manifest.Earlier with its runs' entries, so its runs are kept
// and shown by --invocation; an earlier session of this invocation (the
// same script version, or any with --update) is replaced by this one, and
// its runs that this session does not plan again (after --update) are the
// only ones pruning may delete. A new invocation
// is named on Notices with the ones kept beside it.
func (d *Dir) keepEarlier(old *Manifest) {
	earlier := slices.Clone(old.Earlier)
	if len(old.Calls) > 0 {
		earlier = append(earlier, old.current())
	}
	var kept, replaced []*EarlierInvocation
	for _, e := range earlier {
		sameVersion := e.Script.SHA256 == d.opts.Script.SHA256 || d.opts.Update // without --update another version's runs are kept
		if filepath.Base(e.Script.Path) == filepath.Base(d.opts.Script.Path) && sameInvocation(e.Invocation, d.opts.Invocation) && sameVersion {
			replaced = append(replaced, e)
			continue
		}
		kept = append(kept, e)
	}
	d.m.Earlier = kept
	for _, e := range kept {
		for _, key := range e.keys() {
			if entry := old.Runs[key]; entry != nil {
				d.m.Runs[key] = entry
			}
		}
	}
	d.prunable = map[string]bool{}
	for _, e := range replaced {
		for _, key := range e.keys() {
			d.prunable[key] = true
		}
	}
	d.replaced = replaced
	if len(replaced) > 0 || len(kept) == 0 || d.opts.Notices == nil {
		return
	}
	var others []string
	for i, e := range kept {
		what := escape.Line(setText(e.Invocation))
		if filepath.Base(e.Script.Path) != filepath.Base(d.opts.Script.Path) {
			what = escape.Line(filepath.Base(e.Script.Path)) + ", " + what
		}
		others = append(others, fmt.Sprintf("invocation %d (%s: %s)", i+1, what, countOf(len(e.keys()), "run")))
	}
	fmt.Fprintf(d.opts.Notices, "fedlab: %s holds the runs of %s, kept: this invocation (%s) stores its runs beside them as invocation %d; "+
		"fedlab table %s --invocation N shows an invocation's runs\n",
		d.path, strings.Join(others, ", "), setText(d.opts.Invocation), len(kept)+1, shellWord(d.path))
}

// announceFresh says on Notices what --fresh deletes: the stored runs,
// by invocation.
func (d *Dir) announceFresh() {
	if d.opts.Notices == nil {
		return
	}
	old, ok, err := ReadManifest(d.path)
	if err != nil || !ok {
		files, _ := os.ReadDir(filepath.Join(d.path, ResultsDir))
		if len(files) > 0 {
			fmt.Fprintf(d.opts.Notices, "fedlab: --fresh: deleting the %s in %s (its manifest is unreadable)\n", countOf(len(files), "stored result file"), d.path)
		}
		return
	}
	all := old.Invocations()
	if len(old.Calls) == 0 {
		all = all[:len(all)-1]
	}
	var parts []string
	total := map[string]bool{}
	for i, e := range all {
		keys := e.keys()
		n := 0
		for _, k := range keys {
			if entry := old.Runs[k]; entry != nil && entry.Status != Pending && !total[k] {
				total[k] = true
				n++
			}
		}
		parts = append(parts, fmt.Sprintf("%d of invocation %d (%s)", n, i+1, e.describe()))
	}
	if len(total) == 0 {
		return
	}
	fmt.Fprintf(d.opts.Notices, "fedlab: --fresh: deleting the %s stored in %s: %s\n", countOf(len(total), "completed run"), d.path, strings.Join(parts, "; "))
}

// begin prepares the directory for writing, once: creates it, removes the
// temporary files of an interrupted session (and, with Fresh, the runs of
// earlier sessions) and writes the manifest.
func (d *Dir) begin() error {
	if d.begun || d.path == "" {
		return nil
	}
	d.begun = true
	if err := os.MkdirAll(d.path, 0o755); err != nil {
		return err
	}
	if d.lock == nil {
		var err error
		if d.lock, err = acquireLock(d.path, d.opts.Script); err != nil {
			return err
		}
	}
	if !d.checked { // the directory appeared after OpenDir: another session may have written it
		if err := d.check(); err != nil {
			return err
		}
	}
	for _, sub := range []string{"", ResultsDir, ModelsDir, OptimaDir, CheckpointsDir} {
		if err := atomicfile.Clean(filepath.Join(d.path, sub)); err != nil {
			return err
		}
	}
	if d.opts.Fresh {
		d.announceFresh()
		if err := d.clear(); err != nil {
			return err
		}
	}
	if d.opts.Source != nil {
		if err := atomicfile.WriteBytes(filepath.Join(d.path, ScriptCopyFile), d.opts.Source); err != nil {
			return err
		}
		if d.m.Invocation != nil {
			d.m.Invocation.ScriptCopy = ScriptCopyFile
		}
	}
	return d.writeManifest()
}

// clear deletes the files of earlier sessions.
func (d *Dir) clear() error {
	for _, name := range []string{ManifestFile, RecordsFile, ResultsDir, ModelsDir, OptimaDir, CheckpointsDir} {
		if err := os.RemoveAll(filepath.Join(d.path, name)); err != nil {
			return err
		}
	}
	return nil
}

// Completed returns the result of job j's run if it is completed in this
// session or stored done or diverged in the directory (a run that failed
// in an earlier session is not: it is retried), and hands a job that keeps
// its state (KeepState), found stored, the state the directory keeps with
// it (see restoreRungState). The directory is prepared first (see begin).
func (d *Dir) Completed(j *experiment.Job) (*core.Result, bool, error) {
	if err := d.begin(); err != nil {
		return nil, false, err
	}
	_, known := d.memory[j.Key]
	st, ok, err := d.lookup(j.Key)
	if err != nil || !ok {
		return nil, false, err
	}
	if !known {
		d.restoreRungState(j)
	}
	return st.res, true, nil
}

// Plan records call c in the manifest, as given (its Name, shown by
// fedlab table, plot and report, and its Rung in a successive-halving
// sweep, also records.csv's rung column), with the jobs' runs as its
// Runs, each completed or pending, and writes the manifest; the jobs of
// todo that keep their final state also store it in the directory (see
// keepRungStates).
func (d *Dir) Plan(c experiment.Call, jobs, todo []experiment.Job) error {
	if err := d.begin(); err != nil {
		return err
	}
	call := Call{Call: c}
	planned := map[string]bool{}
	for _, j := range jobs {
		call.Runs = append(call.Runs, CallRun{Key: j.Key, Label: j.Label, Seed: j.Seed, Config: j.Config})
		if planned[j.Key] {
			continue
		}
		planned[j.Key] = true
		entry := &Entry{Identity: j.Identity, Status: Pending}
		if st, ok := d.memory[j.Key]; ok {
			entry = d.entry(j, st)
		}
		d.m.Runs[j.Key] = entry
	}
	d.m.Calls = append(d.m.Calls, call)
	if err := d.writeManifest(); err != nil {
		return err
	}
	d.keepRungStates(todo)
	return nil
}

// Checkpoints returns the directory's checkpoints; nil for a directory
// kept in memory only.
func (d *Dir) Checkpoints() experiment.Checkpoints {
	if d.path == "" {
		return nil
	}
	return checkpoints{d}
}

// EndCall writes the manifest's changes and, when the call ended (runs
// not nil: its runs in the order of its jobs), records.csv with the runs
// of every call so far.
func (d *Dir) EndCall(runs []experiment.Run) error {
	if runs == nil {
		return d.writeManifest()
	}
	if d.dirty {
		if err := d.writeManifest(); err != nil {
			return err
		}
	}
	d.calls = append(d.calls, runs)
	return d.writeRecords()
}

// lookup finds a completed run: in memory, or done or diverged in the
// directory.
func (d *Dir) lookup(key string) (stored, bool, error) {
	if st, ok := d.memory[key]; ok {
		return st, true, nil
	}
	src := d.readPath()
	if src == "" {
		return stored{}, false, nil
	}
	if problem := d.tooLarge(resultPath(key), d.previous[key].resultSum().Size); problem != "" {
		d.notice("%s; running it again", problem)
		return stored{}, false, nil
	}
	st, problem, err := load(src, key, d.previous[key].resultSum())
	if err != nil {
		return stored{}, false, err
	}
	if problem != "" {
		if e := d.previous[key]; (problem != resultMissing || e != nil && e.Result != "") && d.opts.Notices != nil {
			fmt.Fprintf(d.opts.Notices, "fedlab: %s: %s; %s\n", filepath.Join(src, resultPath(key)), problem, d.rerun())
		}
		return stored{}, false, nil
	}
	if st.res.Status == core.Failed {
		return stored{}, false, nil
	}
	d.memory[key] = st
	return st, true, nil
}

// tooLarge says why the file name (relative to the directory) is not read
// when the manifest records a size that passes the memory ceiling; "" if
// it fits.
func (d *Dir) tooLarge(name string, size int64) string {
	if size <= 0 {
		return ""
	}
	if err := d.opts.Ceiling.Check(filepath.Join(d.path, filepath.FromSlash(name))+" (its size as the manifest records it)", uint64(size), "not read"); err != nil {
		return err.Error()
	}
	return ""
}

// Save stores a run that just completed: model and result file first,
// then the manifest entry; its checkpoint is removed (see
// removeCheckpoint), but for the state of a run that keeps it (see
// keepRungStates) and for a failed run's.
func (d *Dir) Save(j *experiment.Job, r experiment.Run) error {
	end := time.Now().UTC().Truncate(time.Millisecond)
	st := stored{res: r.Result, started: end.Add(-r.Result.Elapsed).Truncate(time.Millisecond), finished: end}
	d.memory[j.Key] = st
	if d.path != "" {
		sum, err := save(d.path, r, st)
		if err != nil {
			return err
		}
		st.sum = sum
		d.memory[j.Key] = st
		// A rung state stays for a longer run to continue (see
		// keepRungStates); a failed run's checkpoint stays for the session
		// that retries it (one larger than the memory ceiling, say).
		if !d.keptRungState(j) && r.Result.Status != core.Failed {
			if err := d.removeCheckpoint(j.Key); err != nil {
				return err
			}
		}
	}
	d.mu.Lock()
	d.m.Runs[j.Key] = d.entry(*j, st)
	d.mu.Unlock()
	d.dirty = true
	if time.Since(d.written) < manifestInterval {
		return nil
	}
	return d.writeManifest()
}

// manifestInterval bounds how often the manifest is rewritten while runs
// complete (it lists every run, so rewriting it after each run of a large
// sweep would cost time quadratic in the runs); the result files, written
// first, are the record of what is complete.
const manifestInterval = time.Second

// entry is the manifest entry of a completed run.
func (d *Dir) entry(j experiment.Job, st stored) *Entry {
	e := &Entry{Identity: j.Identity, Status: string(st.res.Status), DivergedAt: st.res.DivergedAt, Unmoved: st.res.Unmoved, Error: st.res.Err,
		Started: &st.started, Finished: &st.finished, Elapsed: st.res.Elapsed.Seconds(), Cohort: st.res.Cohort}
	if d.path != "" {
		e.Result, e.ResultSHA256, e.ResultSize = resultPath(j.Key), st.sum.SHA256, st.sum.Size
		if st.res.Model != nil {
			e.Model = modelPath(j.Key)
		}
	}
	return e
}

// Finish records how the session ended and releases the directory: the
// manifest gets the final status ("complete" if the script completed,
// "stopped" after a shard's stop, "interrupted" when the session was
// interrupted, "failed" with the error otherwise), the session's CPU time
// and the end time, records.csv is rewritten, and, when the script
// completed, the result and model files of runs that the earlier session
// of this invocation listed and no call planned again (runs of an earlier
// version of the script) are deleted, with a notice, and so are the rung
// states of completed runs (unless KeepCheckpoints); runs of other
// invocations (other --set values, other scripts) are never deleted. A
// session that wrote nothing (no call, no file) leaves no directory.
// Summary then counts the session's runs.
func (d *Dir) Finish(o experiment.Outcome) error {
	defer d.lock.release()
	switch {
	case o.Err == nil && !o.Interrupted:
		d.m.Status = StatusComplete
	case o.Stopped:
		d.m.Status = StatusStopped
	case o.Interrupted:
		d.m.Status, d.m.Error = StatusInterrupted, fmt.Sprint(o.Err)
	default:
		d.m.Status, d.m.Error = StatusFailed, o.Err.Error()
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	d.m.Finished = &now
	d.m.CPUSeconds = math.Round(o.CPU.Seconds()*1000) / 1000
	d.sum = d.summary(o)
	if d.path == "" {
		return nil
	}
	if _, err := os.Stat(d.path); !d.begun && err != nil {
		d.sum.Dir = ""
		return nil
	}
	if err := d.begin(); err != nil {
		return err
	}
	var err error
	if d.m.Status == StatusComplete {
		err = d.prune()
		if err == nil {
			err = d.dropRungStates()
		}
	}
	if err == nil {
		err = d.writeRecords()
	}
	if err == nil {
		err = removeEmptyDir(filepath.Join(d.path, CheckpointsDir))
	}
	if err != nil && d.m.Status == StatusComplete {
		d.m.Status, d.m.Error = StatusFailed, err.Error()
		d.sum.Status = StatusFailed
	}
	// The manifest is written even when records.csv could not be (a full
	// disk); if it cannot be written either, the lock file says how the
	// session ended (see leaveNote).
	if werr := d.writeManifest(); werr != nil {
		d.lock.leaveNote(d.m.Status, d.m.Error, werr)
		err = errors.Join(err, werr)
	} else {
		d.lock.recorded()
	}
	return err
}

// Summary counts the runs of the session, once Finish has recorded its
// end.
func (d *Dir) Summary() Summary { return d.sum }

// removeEmptyDir removes dir if it exists and is empty (the checkpoints/
// of a session whose checkpoints were all removed as their runs
// completed).
func removeEmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) > 0 {
		return nil // absent, not a directory (CheckLinks refuses a link), or holding checkpoints
	}
	return os.Remove(dir)
}

// prune deletes the result, model and checkpoint files of the runs of
// the earlier sessions of this invocation (see keepEarlier) that this
// session's manifest does not list (runs another version of the script
// planned), and says on Notices how many it deletes, of which invocation.
func (d *Dir) prune() error {
	type file struct{ sub, name string }
	var files []file
	doomed := map[string]bool{}
	for _, sub := range []string{ResultsDir, ModelsDir, CheckpointsDir} {
		entries, err := os.ReadDir(filepath.Join(d.path, sub))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		for _, e := range entries {
			key, _, _ := strings.Cut(e.Name(), ".") // KEY.json, KEY.txt, KEY.ROUNDS.ckpt
			if _, ok := d.m.Runs[key]; !ok && d.prunable[key] {
				files = append(files, file{sub, e.Name()})
				if sub == ResultsDir {
					doomed[key] = true
				}
			}
		}
	}
	if len(doomed) > 0 && d.opts.Notices != nil {
		var from []string
		for _, e := range d.replaced {
			from = append(from, e.describe())
		}
		fmt.Fprintf(d.opts.Notices, "fedlab: %s: deleting the %s of the earlier session of this invocation (%s) that the script no longer plans\n",
			d.path, countOf(len(doomed), "stored run"), strings.Join(from, "; "))
	}
	for _, f := range files {
		if err := os.Remove(filepath.Join(d.path, f.sub, f.name)); err != nil {
			return err
		}
		key, _, _ := strings.Cut(f.name, ".")
		delete(d.m.Checkpoints, key)
	}
	return nil
}

// writeManifest stores the manifest (nothing in memory-only mode).
func (d *Dir) writeManifest() error {
	if d.path == "" {
		return nil
	}
	d.written, d.dirty = time.Now(), false
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m.write(d.path)
}

// writeRecords rewrites records.csv with the runs of the calls so far.
func (d *Dir) writeRecords() error {
	if d.path == "" {
		return nil
	}
	return runfile.WriteRecords(filepath.Join(d.path, RecordsFile), d.calls, rungColumn(d.m.Calls[:len(d.calls)]))
}

// Summary counts the runs of a session.
type Summary struct {
	Dir      string
	Status   string
	Runs     int // distinct runs planned by the script
	Ran      int // executed by this session
	Reused   int // found in the directory
	Diverged int
	Failed   int
	Pending  int // left to other shards, or not completed
	// Checkpointed are the runs not completed whose checkpoint a resume
	// continues from.
	Checkpointed int
	// Failures are the failed runs, in the order of the calls that planned
	// them.
	Failures []Failure
	// Unmoved are the runs whose model did not move (Entry.Unmoved), in
	// the same order; their Error is core.UnmovedNote.
	Unmoved []Failure
}

// Failure is a run and what went wrong with it: the call that planned it,
// its label, seed and key, and the error it ended with (or, in
// Summary.Unmoved, the note that its model did not move).
type Failure struct {
	Where string // the call, e.g. "sweep.lua:12 fedlab.sweep"
	Label string
	Seed  uint64
	Key   string
	Error string
}

// String renders the failure on one line, e.g.
// `s.lua:3 fedlab.compare: FedAvg seed 1 (key 3f2a…): eta_c = -1 is negative`.
func (f Failure) String() string {
	return fmt.Sprintf("%s: %s seed %d (run %s): %s", f.Where, f.Label, f.Seed, f.Key, f.Error)
}

// String renders the summary, e.g. "98 runs (98 ran, 88 diverged) in runs/sweep-20250101-120000".
func (s Summary) String() string {
	var notes []string
	for _, n := range []struct {
		count int
		what  string
	}{{s.Ran, "ran"}, {s.Reused, "reused"}, {s.Diverged, "diverged"}, {s.Failed, "failed"}, {len(s.Unmoved), "did not move"}, {s.Pending, "left to other shards"}} {
		if n.count > 0 {
			notes = append(notes, fmt.Sprintf("%d %s", n.count, n.what))
		}
	}
	text := fmt.Sprintf("%d runs", s.Runs)
	if len(notes) > 0 {
		text += " (" + strings.Join(notes, ", ") + ")"
	}
	if s.Dir != "" {
		text += " in " + s.Dir
	}
	return text
}

// summary counts the runs of the session that ended with o.
func (d *Dir) summary(o experiment.Outcome) Summary {
	s := Summary{Dir: d.path, Status: d.m.Status, Ran: o.Ran, Reused: o.Reused}
	planned := map[string]bool{}
	for _, c := range d.m.Calls {
		for _, r := range c.Runs {
			planned[r.Key] = true
		}
	}
	s.Runs = len(planned)
	for key := range planned {
		e := d.m.Runs[key]
		if e == nil {
			continue
		}
		switch e.Status {
		case string(core.Diverged):
			s.Diverged++
		case string(core.Failed):
			s.Failed++
		case Pending:
			s.Pending++
		}
	}
	for key := range d.m.Checkpoints {
		if e := d.m.Runs[key]; e != nil && e.Status == Pending && planned[key] {
			s.Checkpointed++
		}
	}
	listed := map[string]bool{}
	for _, c := range d.m.Calls {
		for _, r := range c.Runs {
			e := d.m.Runs[r.Key]
			if e == nil || listed[r.Key] {
				continue
			}
			listed[r.Key] = true
			run := Failure{Where: c.Where + " " + c.Function, Label: r.Label, Seed: r.Seed, Key: r.Key, Error: e.Error}
			switch {
			case e.Status == string(core.Failed):
				s.Failures = append(s.Failures, run)
			case e.Unmoved > 0:
				run.Error = core.UnmovedNote(e.Unmoved)
				s.Unmoved = append(s.Unmoved, run)
			}
		}
	}
	return s
}
