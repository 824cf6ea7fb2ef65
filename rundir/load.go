package rundir

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// Loaded is a run directory read back: its manifest and, per call, the
// runs in the call's order (a run not completed has a nil Result; runs
// have no parameter layout).
type Loaded struct {
	Manifest *Manifest
	Calls    [][]experiment.Run
	// Unfinished, if not empty, says that the session that wrote the
	// directory ended without finishing it: its manifest says running but
	// no session holds the directory (killed, or it could not write its
	// last manifest: a full disk?), and why, from the note it left in the
	// lock file if any. Manifest then says interrupted, with this as its
	// error. Commands show it where they print.
	Unfinished string
	// InProgress says, per call, how far its runs not completed got, for
	// those with a checkpoint (see CheckpointProgress), in the call's
	// order.
	InProgress [][]string
	// Others, if not empty, says that the directory also stores the runs
	// of other invocations and how to show them (Manifest.OthersNote).
	Others string
}

// Load reads the run directory at path: the runs of its last invocation.
func Load(path string) (*Loaded, error) { return LoadInvocation(path, 0) }

// LoadInvocation reads the run directory at path as invocation n shows it
// (1-based, see Manifest.Invocations; 0 is the last).
func LoadInvocation(path string, n int) (*Loaded, error) {
	if err := CheckLinks(path); err != nil {
		return nil, err
	}
	m, ok, err := ReadManifest(path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s is not a run directory: it has no %s", path, ManifestFile)
	}
	l := &Loaded{Manifest: m}
	if lockPath := filepath.Join(path, LockFile); m.Status == StatusRunning && !held(lockPath) {
		l.Unfinished = settleUnfinished(path, m, readNote(lockPath))
	}
	l.Others = m.OthersNote(path, n)
	if m, err = m.Select(n); err != nil {
		return nil, err
	}
	l.Manifest = m
	results := map[string]*stored{}
	var damaged []string
	for _, c := range m.Calls {
		runs := make([]experiment.Run, len(c.Runs))
		var progress []string
		for i, cr := range c.Runs {
			e := m.Runs[cr.Key]
			if e == nil {
				return nil, fmt.Errorf("%s: call at %s lists run %s, which has no entry", path, c.Where, cr.Key)
			}
			st, seen := results[cr.Key]
			if !seen {
				s, problem, err := load(path, cr.Key, e.resultSum())
				switch {
				case err != nil:
					return nil, err
				case problem == "":
					st = &s
				case e.Status != Pending:
					damaged = append(damaged, fmt.Sprintf("%s (%s seed %d, %s %s, manifest status %s): %s",
						filepath.Join(path, resultPath(cr.Key)), cr.Label, cr.Seed, c.Where, c.Function, e.Status, problem))
				}
				results[cr.Key] = st
			}
			runs[i] = experiment.Run{Label: cr.Label, Algorithm: e.Algorithm.Name, Seed: cr.Seed,
				Params: e.Algorithm.Params, Config: cr.Config, Key: cr.Key}
			if st != nil {
				runs[i].Result = st.res
			} else if rec := m.Checkpoints[cr.Key]; rec != nil && !slices.ContainsFunc(c.Runs[:i], func(o CallRun) bool { return o.Key == cr.Key }) {
				progress = append(progress, CheckpointProgress(path, cr, rec, e.Settings.Rounds))
			}
		}
		l.Calls = append(l.Calls, runs)
		l.InProgress = append(l.InProgress, progress)
	}
	if len(damaged) > 0 {
		return nil, &DamagedError{Dir: path, Results: damaged}
	}
	return l, nil
}

// DamagedError lists the results a directory's manifest records as
// completed whose files are missing or altered: commands that read a
// directory name them instead of leaving those runs out.
type DamagedError struct {
	Dir     string
	Results []string // one line per result: file, run, problem
}

func (e *DamagedError) Error() string {
	const shown = 10
	lines := e.Results
	more := ""
	if len(lines) > shown {
		more = fmt.Sprintf("\n  … and %d more", len(lines)-shown)
		lines = lines[:shown]
	}
	return fmt.Sprintf("%s: %d stored results are missing or altered, so its tables and figures would leave those runs out:\n  %s%s\n"+
		"run the script again into %s to recompute them", e.Dir, len(e.Results), strings.Join(lines, "\n  "), more, e.Dir)
}

// CheckpointProgress says how far run r of dir got by its checkpoint, as
// the manifest records it (rec) and the file confirms: "fedmid seed 1 at
// round 2000 of 4000", or why a resume would not use it.
func CheckpointProgress(dir string, r CallRun, rec *CheckpointSum, rounds int) string {
	run := fmt.Sprintf("%s seed %d", r.Label, r.Seed)
	b, err := ReadFile(dir, checkpointPath(r.Key, rec.Rounds), rec.Size)
	if err == nil && sumOf(b).SHA256 != rec.SHA256 {
		err = fmt.Errorf("altered")
	}
	var done int
	if err == nil {
		done, err = core.CheckpointRounds(b, r.Key)
	}
	switch {
	case err != nil:
		return fmt.Sprintf("%s has a checkpoint that a resume refuses (%v)", run, err)
	case rec.Build != CheckpointBuild():
		return fmt.Sprintf("%s at round %d of %d (a resume refuses its checkpoint: %s)", run, done, rounds, otherBuild(rec))
	}
	return fmt.Sprintf("%s at round %d of %d", run, done, rounds)
}
