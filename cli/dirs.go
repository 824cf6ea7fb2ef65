package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/present/report"
	"github.com/fedlab/fedlab/rundir"
)

// mergeCmd is `fedlab merge DIR... --out DIR`: combines run directories
// (the shards of a script) and prints the tables of the merged calls.
func mergeCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "write the merged run directory `DIR` (required)")
	invocation := fs.Int("invocation", 0, "merge the runs of invocation `N` of each directory, counted from 1 in the order they were run (0: the last)")
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) == 0 || *out == "" {
		return usageError{"merge takes run directories and --out DIR"}
	}
	m, err := rundir.MergeInvocation(*out, dirs, *invocation)
	var into *rundir.MergeIntoInput
	if errors.As(err, &into) {
		return usageError{err.Error()}
	}
	if err != nil && strings.Contains(err.Error(), ": --invocation ") {
		return usageError{err.Error()}
	}
	if err != nil {
		return err
	}
	l, err := rundir.Load(*out)
	if err != nil {
		return err
	}
	pending := 0
	sweepOf := map[int][]int{} // call → the calls of its halving sweep
	for _, g := range rundir.HalvingSweeps(l.Manifest) {
		for _, i := range g {
			sweepOf[i] = g
		}
	}
	for i, runs := range l.Calls {
		done := slices.DeleteFunc(slices.Clone(runs), func(r experiment.Run) bool { return r.Result == nil })
		pending += len(runs) - len(done)
		group := sweepOf[i]
		if group != nil && i != group[len(group)-1] || group == nil && len(done) == 0 {
			continue
		}
		c := m.Calls[i]
		title := fmt.Sprintf("call %d: %s at %s", i+1, c.Function, c.Where)
		switch {
		case group != nil: // one halving sweep, shown once with its rungs
			err = report.SweepTable(stdout, rundir.SelectHalving(l.Manifest, l.Calls, group), c.Select,
				report.SweepOptions{Title: rundir.HalvingSweepTitle(l.Manifest, group)})
		case len(c.Select) > 0:
			err = report.SweepTable(stdout, experiment.Select(runs, c.Select), c.Select, report.SweepOptions{Title: title})
		default:
			err = report.Table(stdout, done, report.TableOptions{Title: title})
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "fedlab: merged %d directories into %s: %d runs, %d pending", len(m.MergedFrom), *out, len(m.Runs), pending)
	if pending > 0 {
		fmt.Fprint(stderr, " (run the script with --out "+*out+" to complete them)")
	}
	fmt.Fprintln(stderr)
	for note := range strings.Lines(m.MergeNotice()) {
		fmt.Fprintf(stderr, "fedlab: notice: %s\n", strings.TrimSuffix(note, "\n"))
	}
	if progress := slices.Concat(l.InProgress...); len(progress) > 0 {
		fmt.Fprintf(stderr, "fedlab: %d pending runs continue from their checkpoints, kept in %s: %s\n", len(progress), *out, strings.Join(progress, "; "))
	}
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
