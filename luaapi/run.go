package luaapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/experiment/claims"
	"github.com/fedlab/fedlab/internal/scriptfile"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/rundir"
	lua "github.com/yuin/gopher-lua"
)

// Options configure a script run.
type Options struct {
	// Out is the run directory (see package rundir): runs are stored there
	// and relative output paths resolve against it; "" keeps runs in memory
	// and writes relative paths against the current directory.
	Out string
	// Fresh and Update: see rundir.DirOptions.
	Fresh, Update bool
	// Shard restricts the runs executed to one shard (see experiment.Shard).
	Shard experiment.Shard
	// Jobs is the number of runs executed at once (≤ 0 means 1); Workers
	// the number of client workers per run (≤ 0: the CPUs shared among
	// the runs at once).
	Jobs, Workers int
	// Solo executes runs one by one, never in cohorts (see
	// experiment.Cohorts): the records are the same, and each
	// run's elapsed time is its own.
	Solo   bool
	Quiet  bool      // no progress lines
	Unsafe bool      // also open the os, io and package libraries, and keep dofile, loadfile and require
	Stdout io.Writer // print and fedlab.table output; nil = os.Stdout
	Stderr io.Writer // progress lines; nil = os.Stderr
	// Args are the script's arguments, fedlab.args in Lua (fedlab run
	// --set key=value; see ParseSet). A key the script does not read
	// before its first run (nor declares with fedlab.params) is an error.
	Args map[string]any
	// ArgText holds the values of Args as typed (fedlab.params reads a
	// string parameter from it); nil: formatted from Args.
	ArgText map[string]string
	// Context, if set, interrupts the script when done (see experiment.SessionOptions.Context and guard.go).
	Context context.Context
	// CheckpointEvery is the time between two checkpoints of a run in the
	// run directory (0: only when Context ends; fedlab run's default is
	// rundir.DefaultCheckpointEvery), and KeepCheckpoints keeps them when
	// the runs complete (see rundir.DirOptions).
	CheckpointEvery time.Duration
	KeepCheckpoints bool
	// CommandLine is the command that started the script (recorded in the
	// run directory's manifest with the working directory and ArgText).
	CommandLine []string
	// MaxMemory is the memory ceiling in bytes (0: the memory available; see guard.go).
	MaxMemory uint64
	// DryRun runs the script with every run planned but not computed
	// (see docs/lua-api.md, Dry run): each call is checked (components,
	// keys, metrics, data files, the memory bounds) and printed on Stdout
	// with its runs and rounds, runs get placeholder results (status
	// "planned", every metric NaN), a sweep selects its first
	// configuration, fedlab.optimum skips its solve, tables print no
	// numbers and no file is written: Out only places the output paths
	// the script names, and no run directory is opened.
	DryRun bool
	// Width is the width the claims table wraps to (0: 100 columns).
	Width int
	// replay, set by Claims, is the run directory whose stored runs the
	// script reads: nothing is computed or written there.
	replay *replay
	// chunkLimit, set by tests, bounds the source of a chunk loadstring
	// or load compiles (0: maxChunk).
	chunkLimit int
}

// interp is the state of one script.
type interp struct {
	L       *lua.LState
	opts    Options
	dir     *rundir.Dir                     // stores the runs (and the script's outputs)
	session *experiment.Session             // executes the script's calls against dir
	builder *plan.Builder                   // turns the script's calls into jobs; keeps their datasets and problems
	runs    map[*lua.LTable]*experiment.Run // the Go run behind each result table handed to Lua
	sweeps  map[*lua.LTable]*sweep          // the Go sweep behind each sweep table handed to Lua
	stop    error                           // a shard's stop, raised again by every later call
	args    *scriptArgs                     // fedlab.args and the keys read from it
	// scriptDir is the script's directory: relative input paths written in
	// the script resolve against it; workDir is the working directory,
	// against which paths typed on the command line resolve (paths.go)
	scriptDir, workDir string
	guard              *guard          // interruption and memory ceiling (guard.go)
	dry                *dryRun         // the dry run's account; nil when runs are computed (dryrun.go)
	raised             raised          // the last non-string error value and its line (errors.go)
	threads            []*lua.LState   // idle threads of pcall (confine.go)
	claims             []claims.Result // the verdicts of the script's fedlab.claim calls (claim.go)
}

// RunFile runs the Lua script at path in the run directory opts.Out and
// returns a summary of its runs. Any error of the script, including a
// syntax error, a runtime error or a bad parameter, comes back as
// "NAME.lua:LINE: message", where NAME.lua is the script's base name. A
// shard that stops at a call with runs of other shards returns the
// *experiment.Stopped error (the directory is consistent: merge it).
func RunFile(path string, opts Options) (rundir.Summary, error) {
	src, err := scriptfile.Read(path)
	if err != nil {
		return rundir.Summary{}, err
	}
	sum, _, err := runSource(path, src, opts)
	return sum, err
}

// runSource runs the script src read from path and returns the summary of
// its runs and the verdicts of its claims.
func runSource(path string, src []byte, opts Options) (rundir.Summary, []claims.Result, error) {
	if opts.Stdout == nil {
		opts.Stdout = os.Stdout
	}
	if opts.Stderr == nil {
		opts.Stderr = os.Stderr
	}
	workDir, err := os.Getwd()
	if err != nil {
		return rundir.Summary{}, nil, err
	}
	if opts.replay != nil {
		workDir = opts.replay.workDir
	}
	limits := plan.NewLimits(opts.MaxMemory, opts.Jobs) // the memory ceiling, computed once
	g := newGuard(opts, limits.Ceiling())
	defer g.stop()
	sum := sha256.Sum256(src)
	abs, err := filepath.Abs(path)
	if err != nil {
		return rundir.Summary{}, nil, err
	}
	inv := &rundir.Invocation{CommandLine: opts.CommandLine, WorkDir: workDir, Set: opts.ArgText}
	if len(opts.CommandLine) > 0 {
		inv.Program = opts.CommandLine[0]
	}
	dopts := rundir.DirOptions{Script: rundir.Script{Path: abs, SHA256: hex.EncodeToString(sum[:])}, Source: src, Invocation: inv,
		Fresh: opts.Fresh, Update: opts.Update, Shard: opts.Shard, Notices: opts.Stderr, Ceiling: limits.Ceiling(), DryRun: opts.DryRun,
		KeepCheckpoints: opts.KeepCheckpoints}
	sopts := experiment.SessionOptions{Name: filepath.Base(abs), Shard: opts.Shard, Jobs: opts.Jobs, Workers: opts.Workers, Context: g.ctx,
		CheckpointEvery: opts.CheckpointEvery, KeepCheckpoints: opts.KeepCheckpoints, DryRun: opts.DryRun}
	if !opts.Solo {
		sopts.Cohorts = experiment.Cohorts{MaxState: limits.CohortBytes(), MinData: experiment.CohortMinData}
	}
	if !opts.Quiet {
		sopts.Progress, sopts.Interactive = opts.Stderr, isTerminal(opts.Stderr)
	}
	out := opts.Out
	if opts.DryRun {
		out = ""
	}
	if opts.replay != nil {
		out, dopts.Replay, dopts.Source, dopts.Invocation, sopts.Replay = "", opts.replay.dir, nil, nil, true
	}
	dir, err := rundir.OpenDir(out, dopts)
	if err != nil {
		return rundir.Summary{}, nil, err
	}
	session := experiment.NewSession(dir, sopts)
	in := &interp{L: newState(opts), opts: opts, dir: dir, session: session, scriptDir: filepath.Dir(path), workDir: workDir, builder: plan.NewBuilder(), guard: g,
		runs: map[*lua.LTable]*experiment.Run{}, sweeps: map[*lua.LTable]*sweep{}}
	if opts.DryRun {
		in.dry = &dryRun{planned: map[string]bool{}}
	}
	in.builder.Paths = in.inputPaths()
	in.builder.Limits = limits
	in.builder.References, in.builder.Context, in.builder.Notices = dir.ReferenceStore, g.ctx, opts.Stderr
	defer in.L.Close()
	in.install()
	in.confine()
	if in.dry != nil {
		in.dryNote("%s: every run is planned, not computed: results are placeholders (status \"planned\", every metric NaN), a sweep selects its first configuration, and no file is written", filepath.Base(path))
	}
	runErr := g.interruption(filepath.Base(path), in.run(filepath.Base(path), src))
	if in.dry != nil && runErr == nil {
		in.dryTotal(filepath.Base(path))
	}
	var claimErr error
	if in.dry == nil && opts.replay == nil {
		claimErr = in.reportClaims(filepath.Base(path), dir)
	}
	err = session.Finish(runErr)
	return dir.Summary(), in.claims, errors.Join(runErr, claimErr, err)
}

// run loads and runs the script; a shard's stop wins over the Lua error
// it raised.
func (in *interp) run(name string, src []byte) error {
	fn, err := load(in.L, bytes.NewReader(src), name)
	if err != nil {
		return syntaxError(name, src, err)
	}
	in.L.Push(fn)
	err = in.L.PCall(0, 0, nil)
	if in.stop != nil {
		return in.stop
	}
	if err != nil {
		return in.argMistake(runtimeError(name, in.errorObject(err)))
	}
	if err := in.checkArgsRead(""); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// isTerminal reports whether w is a terminal (progress lines are redrawn
// in place there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
