package luaapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/present/plot"
	"github.com/fedlab/fedlab/registry"
)

// dryRun is the account of a dry run (Options.DryRun): the calls planned
// and their distinct runs and rounds.
type dryRun struct {
	calls, runs, rounds int
	planned             map[string]bool // run keys planned so far
	unstateful          map[string]bool // algorithms named as not checkpointable so far
}

// dryNote prints a line of the dry run on the script's output.
func (in *interp) dryNote(format string, args ...any) {
	fmt.Fprintf(in.opts.Stdout, "dry run: "+format+"\n", args...)
}

// planned prints the line of a call of a dry run: its title (as progress
// shows it), its runs and their rounds, the runs an earlier call of the
// script planned already counted apart, e.g. "dry run: call 2:
// fedlab.compare at s.lua:12: 6 runs of 500 rounds (3000 rounds)".
func (in *interp) planned(fn, where, name string, jobs []experiment.Job) {
	d := in.dry
	d.calls++
	title := fmt.Sprintf("call %d: %s at %s", d.calls, fn, where)
	if name != "" {
		title = fmt.Sprintf("call %d: %s (%s at %s)", d.calls, name, fn, where)
	}
	runs, rounds, earlier := 0, 0, 0
	var lengths []int
	seen := map[string]bool{}
	for _, j := range jobs {
		switch {
		case seen[j.Key]:
			continue
		case d.planned[j.Key]:
			earlier++
		default:
			in.checkpointable(&j, where, fn)
			runs++
			rounds += j.Settings.Rounds
			if !slices.Contains(lengths, j.Settings.Rounds) {
				lengths = append(lengths, j.Settings.Rounds)
			}
		}
		seen[j.Key], d.planned[j.Key] = true, true
	}
	d.runs += runs
	d.rounds += rounds
	line := fmt.Sprintf("%s: %s, %s", title, count(runs, "run"), count(rounds, "round"))
	if len(lengths) == 1 {
		line = fmt.Sprintf("%s: %s of %s (%s)", title, count(runs, "run"), count(lengths[0], "round"), count(rounds, "round"))
	}
	if earlier > 0 {
		line += fmt.Sprintf("; %s planned by an earlier call", count(earlier, "run"))
	}
	in.dryNote("%s", line)
}

// checkpointable warns, on standard error and once per algorithm, when the
// algorithm of job j does not declare its state (core.Stateful): its runs
// cannot be checkpointed, and an interrupted one starts again from round
// 0 (the engine would say so only at the first checkpoint).
func (in *interp) checkpointable(j *experiment.Job, where, fn string) {
	if j.Stages != nil || in.dry.unstateful[j.Algorithm] {
		return
	}
	alg, err := registry.BuildArgs[core.Algorithm](j.Args)
	if err != nil {
		return // the run fails when it executes, with this error
	}
	if _, ok := alg.(core.Stateful); ok {
		return
	}
	if in.dry.unstateful == nil {
		in.dry.unstateful = map[string]bool{}
	}
	in.dry.unstateful[j.Algorithm] = true
	fmt.Fprintf(in.opts.Stderr, "fedlab: warning: %s at %s: algorithm %q does not declare its state (core.Stateful): its runs cannot be checkpointed, and one interrupted (--timeout, Ctrl-C, SIGTERM) starts again from round 0\n",
		fn, where, j.Algorithm)
}

// dryTotal prints the last line of a dry run.
func (in *interp) dryTotal(script string) {
	d := in.dry
	in.dryNote("%s: %s, %s, %s; nothing was computed or written", script, count(d.calls, "call"), count(d.runs, "run"), count(d.rounds, "round"))
}

// dryOutput notes a file a dry run does not write.
func (in *interp) dryOutput(fn string, paths ...string) {
	in.dryNote("%s at %s: not written: %s", fn, in.where(), strings.Join(paths, ", "))
}

// dryFigures returns the files a figure saved as base in formats (nil:
// plot.Formats) would be written to, refusing an unknown format as
// plot.Save does.
func dryFigures(base string, formats []string) ([]string, error) {
	if formats == nil {
		formats = plot.Formats
	}
	var paths []string
	for _, f := range formats {
		if !slices.Contains(plot.AllFormats, f) {
			return nil, fmt.Errorf("format %q: want png, svg or pdf", f)
		}
		paths = append(paths, base+"."+f)
	}
	return paths, nil
}

// count renders n things, e.g. "1 run", "3 runs".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
