package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/rundir"
)

// runCmd is `fedlab run SCRIPT.lua [flags]`; flags may come before or after
// the script.
func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts := luaapi.Options{Stdout: stdout, Stderr: stderr, CommandLine: append([]string{program, "run"}, args...), Width: terminalWidth(stdout)}
	var shard string
	fs.StringVar(&opts.Out, "out", "", "write the runs into the run directory `DIR` (empty: runs/SCRIPT-YYYYMMDD-HHMMSS): manifest.json, records.csv, results/, models/ and the script's relative output paths; running a script again into its directory resumes it")
	fs.IntVar(&opts.Jobs, "jobs", 0, "execute `N` runs at once (0: the number of CPUs, or as many runs as fill them when --workers is given)")
	fs.IntVar(&opts.Workers, "workers", 0, "update the clients of a run on `N` worker goroutines (0: the CPUs divided among the runs executing at once); records do not depend on --jobs or --workers")
	fs.BoolVar(&opts.Solo, "solo", false, "execute runs one by one; by default the runs of a call that share a problem and settings execute together in lockstep (a cohort), reading each client's data once for all of them: same records, and each run's elapsed time is its share of the cohort's time")
	fs.BoolVar(&opts.Fresh, "fresh", false, "delete the directory's previous runs and start over")
	fs.BoolVar(&opts.Update, "update", false, "accept a changed script: keep the stored runs whose parameters did not change (a changed script is refused otherwise)")
	fs.StringVar(&shard, "shard", "", "execute shard `I/N` (0 ≤ I < N) of the runs (empty: all runs); the script stops at the first call that needs runs of other shards (merge the shards, then run the script into the merged directory)")
	fs.BoolVar(&opts.Quiet, "quiet", false, "no progress lines")
	fs.BoolVar(&opts.DryRun, "dry-run", false, "check the script in seconds: plan every call (components, keys, metrics, data files, memory) and print its runs and rounds, computing and writing nothing")
	fs.BoolVar(&opts.Unsafe, "unsafe", false, "give the script the os, io and package libraries, and let it write outside its run directory")
	var sets stringList
	fs.Var(&sets, "set", "pass `K=V` to the script as fedlab.args.K (repeatable): numbers stay numbers, true/false are booleans, anything else a string; a key the script does not read is refused; only the runs whose parameters it changes get new keys")
	var timeout durationFlag
	fs.Var(&timeout, "timeout", "stop after `D` (e.g. 90s, 2h; 0: no limit): runs stop at a round boundary, the completed ones are kept, and running the script again resumes it")
	checkpointEvery := durationFlag(rundir.DefaultCheckpointEvery)
	fs.Var(&checkpointEvery, "checkpoint-every", "save each running run's state in DIR/checkpoints every `D` (0: only when --timeout, Ctrl-C or SIGTERM stops it, which always saves at the round boundary where it stops); running the script again continues each run from its checkpoint")
	fs.BoolVar(&opts.KeepCheckpoints, "keep-checkpoints", false, "keep each run's checkpoint, taken after its last round, when it completes (removed by default)")
	maxMemory := fs.String("max-memory", "", "keep data and state under the memory ceiling `M`, e.g. 4GB (empty: the tightest of half of MemAvailable or of the cgroup limit and a quarter of ulimit -v/-d, named in messages); larger ones are refused before allocation")
	scripts, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if opts.Args, opts.ArgText, err = scriptArgs(sets); err != nil {
		return err
	}
	if len(scripts) != 1 {
		return usageError{"run takes one script"}
	}
	outGiven := false
	fs.Visit(func(f *flag.Flag) { outGiven = outGiven || f.Name == "out" })
	switch {
	case outGiven && opts.Out == "":
		return usageError{`--out "": give a directory name (leave --out out for the default runs/SCRIPT-YYYYMMDD-HHMMSS)`}
	case opts.Jobs < 0:
		return usageError{fmt.Sprintf("--jobs %d: want 0 (the number of CPUs) or more", opts.Jobs)}
	case opts.Workers < 0:
		return usageError{fmt.Sprintf("--workers %d: want 0 (the CPUs divided among the runs at once) or more", opts.Workers)}
	case opts.Fresh && opts.Update:
		return usageError{"--fresh and --update exclude each other"}
	case opts.DryRun && shard != "":
		return usageError{"--dry-run and --shard exclude each other: a dry run plans every run of every shard"}
	case opts.Jobs == 0 && opts.Workers > 0: // the client workers given: as many runs as fill the CPUs
		opts.Jobs = max(1, runtime.NumCPU()/opts.Workers)
	case opts.Jobs == 0:
		opts.Jobs = runtime.NumCPU()
	}
	capWorkers(&opts, stderr)
	if *maxMemory != "" {
		if opts.MaxMemory, err = budget.ParseBytes(*maxMemory); err != nil {
			return usageError{"--max-memory: " + err.Error()}
		}
		if opts.MaxMemory < minMaxMemory {
			return usageError{fmt.Sprintf("--max-memory %s: want at least %s (fedlab itself holds a few MiB before any data)", *maxMemory, budget.Format(minMaxMemory))}
		}
	}
	if timeout < 0 {
		return usageError{fmt.Sprintf("--timeout %s: want a positive duration (e.g. 30m), or 0 for no limit", time.Duration(timeout))}
	}
	if checkpointEvery < 0 {
		return usageError{fmt.Sprintf("--checkpoint-every %s: want a positive duration (e.g. 10m), or 0 to save only when stopped", time.Duration(checkpointEvery))}
	}
	opts.CheckpointEvery = time.Duration(checkpointEvery)
	ctx, release := guarded(time.Duration(timeout))
	defer release()
	opts.Context = ctx
	if shard != "" {
		if opts.Shard, err = experiment.ParseShard(shard); err != nil {
			return usageError{err.Error()}
		}
	}
	if opts.Out == "" && !opts.DryRun { // a dry run writes nothing
		opts.Out = defaultOut(scripts[0], opts.Shard, time.Now())
	}
	sum, err := luaapi.RunFile(scripts[0], opts)
	var intr *experiment.Interrupted
	if errors.As(err, &intr) {
		return interrupted(stderr, intr, sum, resumeLine(fs, scripts[0], sum.Dir, sets))
	}
	var stop *experiment.Stopped
	if errors.As(err, &stop) {
		fmt.Fprintf(stderr, "fedlab: %s\nfedlab: %s\n", stop, sum)
		return failedRuns(stderr, sum)
	}
	if err != nil {
		return err
	}
	if (!opts.Quiet || sum.Failed > 0 || len(sum.Unmoved) > 0) && sum.Runs > 0 && !opts.DryRun {
		fmt.Fprintf(stderr, "fedlab: %s\n", sum)
	}
	for _, u := range sum.Unmoved {
		fmt.Fprintf(stderr, "fedlab: note: %s\n", escape.Line(u.String()))
	}
	return failedRuns(stderr, sum)
}

// resumeFlags are the flags of fedlab run that change what a session plans,
// computes or keeps, in the order the resume line gives them; --jobs and
// --workers (records do not depend on them), --quiet, --timeout and the
// flags that delete runs (--fresh, --update) are left out.
var resumeFlags = []string{"shard", "max-memory", "unsafe", "solo", "checkpoint-every", "keep-checkpoints"}

// resumeLine is the command that resumes a run: the program as invoked,
// the script, --out, every --set in the order typed and every flag of
// resumeFlags given, each word quoted for a POSIX shell where needed.
func resumeLine(fs *flag.FlagSet, script, dir string, sets []string) string {
	words := []string{program, "run", script, "--out", dir}
	for _, s := range sets {
		words = append(words, "--set", s)
	}
	given := map[string]string{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = f.Value.String() })
	for _, name := range resumeFlags {
		v, ok := given[name]
		switch {
		case !ok:
		case v == "true":
			words = append(words, "--"+name)
		case v == "false":
			words = append(words, "--"+name+"=false")
		default:
			words = append(words, "--"+name, v)
		}
	}
	return rundir.ShellLine(words)
}

// minMaxMemory is the smallest --max-memory accepted.
const minMaxMemory = 8 << 20

// exitRunsFailed is the exit status of a script that completed with failed
// runs (every other run finished and was stored).
const exitRunsFailed = 3

// failedRuns lists the failed runs of a session, one per line, and makes
// the command exit with exitRunsFailed; nil when no run failed.
func failedRuns(stderr io.Writer, sum rundir.Summary) error {
	if sum.Failed == 0 {
		return nil
	}
	for _, f := range sum.Failures {
		fmt.Fprintf(stderr, "fedlab: failed: %s\n", escape.Line(f.String()))
	}
	runs := "runs"
	if sum.Failed == 1 {
		runs = "run"
	}
	return exitError{exitRunsFailed, fmt.Sprintf("%d %s failed (exit status %d); the other runs are stored; fix the cause and run the script again into %s to retry them",
		sum.Failed, runs, exitRunsFailed, sum.Dir)}
}

// durationFlag is a time.Duration flag whose refusal says what is valid
// (the flag package says only "parse error").
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }

func (d *durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("want a duration from 0 (no limit) to %s (about 292 years), with a unit: e.g. 90s, 30m, 2h or 1h30m",
			fmt.Sprintf("%dh", math.MaxInt64/int64(time.Hour)))
	}
	*d = durationFlag(v)
	return nil
}

// defaultOut is runs/SCRIPT-YYYYMMDD-HHMMSS (with -shard-I-of-N for a shard).
func defaultOut(script string, s experiment.Shard, t time.Time) string {
	name := strings.TrimSuffix(filepath.Base(script), filepath.Ext(script)) + "-" + t.Format("20060102-150405")
	if s.Count > 1 {
		name += fmt.Sprintf("-shard-%d-of-%d", s.Index, s.Count)
	}
	return filepath.Join("runs", name)
}
