package rundir

import (
	"context"
	"io"
	"path/filepath"
	"time"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/budget"
)

// Options configure a session on a run directory (Open): the directory's
// (DirOptions) and the session's (experiment.SessionOptions).
type Options struct {
	// Script, Source, Invocation, Fresh, Update, Notices, Ceiling and
	// Replay: see DirOptions.
	Script     Script
	Source     []byte
	Invocation *Invocation
	Fresh      bool
	Update     bool
	Notices    io.Writer
	Ceiling    budget.Budget
	Replay     string
	// Shard, DryRun and KeepCheckpoints apply to both: the session
	// executes the shard's runs, the directory records the shard; a dry
	// run computes nothing and keeps memory only; kept checkpoints are
	// saved after a run's last round and not removed.
	Shard           Shard
	DryRun          bool
	KeepCheckpoints bool
	// Jobs, Workers, Cohorts, Progress, Interactive, Context and
	// CheckpointEvery: see experiment.SessionOptions.
	Jobs, Workers   int
	Cohorts         experiment.Cohorts
	Progress        io.Writer
	Interactive     bool
	Context         context.Context
	CheckpointEvery time.Duration
}

// split returns the directory's and the session's options.
func (o Options) split() (DirOptions, experiment.SessionOptions) {
	name := "plan" // a plan built in Go has no script file
	if o.Script.Path != "" {
		name = filepath.Base(o.Script.Path)
	}
	return DirOptions{Script: o.Script, Source: o.Source, Invocation: o.Invocation, Fresh: o.Fresh, Update: o.Update, Shard: o.Shard,
			Notices: o.Notices, KeepCheckpoints: o.KeepCheckpoints, Ceiling: o.Ceiling, DryRun: o.DryRun, Replay: o.Replay},
		experiment.SessionOptions{Name: name, Shard: o.Shard, Jobs: o.Jobs, Workers: o.Workers, Cohorts: o.Cohorts,
			Progress: o.Progress, Interactive: o.Interactive, Context: o.Context, CheckpointEvery: o.CheckpointEvery,
			KeepCheckpoints: o.KeepCheckpoints, DryRun: o.DryRun, Replay: o.Replay != ""}
}

// Session is a session on a run directory: the experiment.Session that
// executes the calls of a script or Go plan, with the Dir that stores
// their runs.
type Session struct {
	*experiment.Session
	*Dir
}

// Open starts a session on the run directory at path ("" for memory
// only): OpenDir with the directory's options, and an
// experiment.Session on it with the session's.
func Open(path string, opts Options) (*Session, error) {
	dopts, sopts := opts.split()
	d, err := OpenDir(path, dopts)
	if err != nil {
		return nil, err
	}
	return &Session{Session: experiment.NewSession(d, sopts), Dir: d}, nil
}

// Finish ends the session (experiment.Session.Finish: the directory
// records how it ended) and returns the summary of its runs.
func (s *Session) Finish(scriptErr error) (Summary, error) {
	err := s.Session.Finish(scriptErr)
	return s.Dir.Summary(), err
}
