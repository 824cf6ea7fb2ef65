package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/internal/scriptfile"
	"github.com/fedlab/fedlab/present/htmlreport"
	"github.com/fedlab/fedlab/present/plot"
	"github.com/fedlab/fedlab/present/report"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/rundir"
)

// versionText is the build's version: the module version, VCS revision
// and "+dirty" as the Go toolchain recorded them, and the Go version.
func versionText() string {
	return fmt.Sprintf("fedlab %s (%s %s/%s)\n", rundir.Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// tableCmd is `fedlab table DIR [flags]`: prints or exports the table of
// every call of a run directory (a sweep's selected configurations).
func tableCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var metrics, rounds stringList
	var opts report.TableOptions
	fs.Var(&metrics, "metric", "show the metric `NAME` (repeatable; none: every metric)")
	fs.Var(&rounds, "round", "show the evaluated round `R` (repeatable; none: six evenly spaced rounds)")
	fs.StringVar(&opts.Format, "format", "text", "table format `F`: text, md (Markdown), latex (booktabs) or csv")
	fs.BoolVar(&opts.Bold, "bold", false, "the best value of each metric per round in bold (md, latex)")
	fs.BoolVar(&opts.Transpose, "transpose", false, "rounds as columns, one table per metric")
	fs.IntVar(&opts.Width, "width", 0, "text tables wider than `W` columns wrap (0: 100; else at least 20)")
	callNo := fs.Int("call", 0, "only call `N` of the script, counted from 1 (0: every call)")
	invocation := fs.Int("invocation", 0, invocationHelp)
	out := fs.String("out", "", "write to `FILE` instead of standard output (empty: standard output)")
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return usageError{"table takes one run directory"}
	}
	if opts.Width != 0 && opts.Width < minWidth {
		return usageError{fmt.Sprintf("--width %d: want 0 (the default, %d columns) or at least %d", opts.Width, defaultWidth, minWidth)}
	}
	if !slices.Contains(report.Formats, opts.Format) {
		return usageError{fmt.Sprintf("--format %s: want one of %s%s", opts.Format, strings.Join(report.Formats, ", "), registry.DidYouMean(opts.Format, report.Formats))}
	}
	opts.Metrics = metrics
	for _, r := range rounds {
		n, err := strconv.Atoi(r)
		if err != nil || n < 0 {
			return usageError{fmt.Sprintf("--round %q: want a round number", r)}
		}
		opts.Rounds = append(opts.Rounds, n)
	}
	l, err := rundir.LoadInvocation(dirs[0], *invocation)
	if err != nil {
		return invocationError(err)
	}
	if l.Unfinished != "" {
		fmt.Fprintf(stderr, "fedlab: note: %s\n", escape.Line(l.Unfinished))
	}
	if l.Others != "" {
		fmt.Fprintf(stderr, "fedlab: note: %s\n", l.Others)
	}
	if *callNo < 0 || *callNo > len(l.Calls) {
		return usageError{fmt.Sprintf("--call %d: %s has %d calls", *callNo, dirs[0], len(l.Calls))}
	}
	if err := unrecordedMetrics(dirs[0], l.Calls, *callNo, metrics); err != nil {
		return err
	}
	titles := htmlreport.Titles(l.Manifest)
	sweepOf := map[int][]int{} // call → the calls of its halving sweep
	for _, g := range rundir.HalvingSweeps(l.Manifest) {
		for _, i := range g {
			sweepOf[i] = g
		}
	}
	var b strings.Builder
	var pendingNotes []string
	first := true
	for i, runs := range l.Calls {
		group := sweepOf[i]
		if *callNo != 0 && i+1 != *callNo && !slices.Contains(group, *callNo-1) || group != nil && i != group[0] {
			continue
		}
		var edges []string
		var grid string
		title := fmt.Sprintf("Call %d: %s", i+1, titles[i])
		if group != nil { // one sweep: its grid, its selection's runs
			var err error
			title, runs, grid, err = halvingTable(l, group, opts)
			if err != nil {
				return err
			}
		} else if rules := l.Manifest.Calls[i].Select; len(rules) > 0 {
			sels := experiment.Select(runs, rules)
			for _, sel := range sels {
				for _, e := range sel.Edges() {
					edges = append(edges, fmt.Sprintf("edge of the grid (%s): %s", sel.Label, report.EdgeWarning(e)))
				}
			}
			runs = experiment.BestRuns(sels)
		}
		all := len(runs)
		runs = slices.DeleteFunc(runs, func(r experiment.Run) bool { return r.Result == nil })
		o := opts
		o.Title = title
		if pending := all - len(runs); pending > 0 {
			o.Title += fmt.Sprintf(" [%d of %d runs pending: left to other shards or not run yet%s]", pending, all, inProgress(l.InProgress[i]))
		}
		if len(runs) == 0 {
			pendingNotes = append(pendingNotes, o.Title)
			continue
		}
		for _, r := range runs {
			if r.Result.Unmoved > 0 {
				fmt.Fprintf(stderr, "fedlab: note: call %d: %s seed %d: %s\n", i+1, escape.Line(r.Name()), r.Seed, core.UnmovedNote(r.Result.Unmoved))
			}
		}
		if !first && opts.Format != "csv" {
			b.WriteString("\n")
		}
		b.WriteString(grid)
		var w strings.Builder
		if err := report.Table(&w, runs, o); err != nil {
			return fmt.Errorf("call %d: %w", i+1, err)
		}
		text := w.String()
		if !first && opts.Format == "csv" { // one header for the whole file
			_, text, _ = strings.Cut(text, "\n")
		}
		b.WriteString(text)
		if opts.Format != "csv" {
			for _, e := range edges {
				b.WriteString("\n" + escape.Line(e) + "\n")
			}
		}
		first = false
	}
	for _, n := range pendingNotes {
		fmt.Fprintf(&b, "\n%s: no run completed, no table\n", escape.Line(n))
	}
	if *out == "" {
		_, err := io.WriteString(stdout, b.String())
		return err
	}
	if fi, err := os.Stat(*out); err == nil && fi.IsDir() {
		return fmt.Errorf("--out %s is a directory; give a file name, e.g. %s", *out, filepath.Join(*out, "table."+map[string]string{"text": "txt", "md": "md", "latex": "tex", "csv": "csv"}[opts.Format]))
	}
	return atomicfile.WriteBytes(*out, []byte(b.String()))
}

// reportCmd is `fedlab report DIR [--out FILE] [--script FILE] [--x AXIS] [--skip-round0]`:
// writes the HTML report of a run directory (default DIR/report.html)
// and prints its path.
func reportCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("out", "", "write the HTML page to `FILE` (empty: DIR/report.html)")
	var opts htmlreport.Options
	fs.StringVar(&opts.Script, "script", "", "read the script from `FILE`, if it is no longer where the manifest says (empty: the manifest's path)")
	fs.StringVar(&opts.X, "x", "round", "x axis `AXIS` of the figures, as for fedlab plot --x")
	fs.BoolVar(&opts.SkipRound0, "skip-round0", false, "leave round 0 out of the figures, as for fedlab plot --skip-round0")
	fs.IntVar(&opts.Invocation, "invocation", 0, invocationHelp)
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return usageError{"report takes one run directory"}
	}
	if opts.Script != "" {
		if _, err := scriptfile.Read(opts.Script); err != nil {
			return fmt.Errorf("--script: %w", err)
		}
	}
	if *out == "" {
		*out = filepath.Join(dirs[0], "report.html")
	}
	if err := htmlreport.Save(*out, dirs[0], opts); err != nil {
		var ae plot.AxisError
		if errors.As(err, &ae) {
			return usageError{"--x: " + strings.TrimPrefix(ae.Error(), `key "x": `)}
		}
		return invocationError(err)
	}
	if m, ok, _ := rundir.ReadManifest(dirs[0]); ok {
		if note := m.OthersNote(dirs[0], opts.Invocation); note != "" {
			fmt.Fprintf(stderr, "fedlab: note: %s\n", note)
		}
	}
	_, err = fmt.Fprintln(stdout, *out)
	return err
}

// invocationHelp is the help of --invocation (table, plot, report).
const invocationHelp = "show the runs of invocation `N` of the directory, counted from 1 in the order they were run (0: the last); a directory keeps the runs of every invocation (other --set values), and the commands name the others"

// invocationError makes a refused --invocation number a usage error.
func invocationError(err error) error {
	if err != nil && strings.HasPrefix(err.Error(), "--invocation ") {
		return usageError{err.Error()}
	}
	return err
}

// inProgress lists how far the unfinished runs of a call with a
// checkpoint got (rundir.Loaded.InProgress), the first three and a count
// of the others: "; in progress: fedmid seed 1 at round 2000 of 4000".
func inProgress(runs []string) string {
	if len(runs) == 0 {
		return ""
	}
	text := "; in progress: " + strings.Join(runs[:min(len(runs), 3)], ", ")
	if len(runs) > 3 {
		text += fmt.Sprintf(" and %d more", len(runs)-3)
	}
	return text
}
