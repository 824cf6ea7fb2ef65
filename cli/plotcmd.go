package cli

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/present/htmlreport"
	"github.com/fedlab/fedlab/present/plot"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/rundir"
)

// plotCmd is `fedlab plot DIR [flags]`: draws the runs of a run directory,
// one figure per call and metric, or one per call with the metrics as
// panels (--panels); a sweep's selected configurations only.
func plotCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plot", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var metrics, formats stringList
	var opts plot.Options
	var xlim, ylim string
	fs.Var(&metrics, "metric", "draw the metric `NAME` (repeatable; none: every metric)")
	fs.Var(&formats, "format", "file format `F`: png, svg or pdf (repeatable; none: png and svg)")
	fs.StringVar(&opts.X, "x", "round", "x axis `AXIS`: "+strings.Join(plot.XNames, ", ")+" (comm: floats up + down; time: wall time, each run's time spread evenly over its rounds) or a metric the runs measured (e.g. bits)")
	callNo := fs.Int("call", 0, "draw only call `N` of the script, counted from 1 (0: every call)")
	invocation := fs.Int("invocation", 0, invocationHelp)
	logY := fs.Bool("log", false, "logarithmic y axis (neither --log nor --linear: log for error, gap and norm metrics, else linear)")
	linY := fs.Bool("linear", false, "linear y axis")
	logX := fs.Bool("logx", false, "logarithmic x axis")
	panels := fs.Bool("panels", false, "one figure per call with a panel per metric")
	fs.StringVar(&xlim, "xlim", "", "x axis limits `MIN,MAX` (empty: fitted to the data)")
	fs.StringVar(&ylim, "ylim", "", "y axis limits `MIN,MAX` (empty: fitted to the data)")
	fs.BoolVar(&opts.SkipRound0, "skip-round0", false, "leave out round 0")
	fs.Float64Var(&opts.Width, "width", 0, "figure width `CM`, 2 to 60 (0: 16)")
	fs.Float64Var(&opts.Height, "height", 0, "figure height `CM`, 2 to 60 (0: 10 per row of panels)")
	fs.Float64Var(&opts.FontSize, "font-size", 0, "font size `PT` in points, 4 to 36 (0: 10)")
	fs.StringVar(&opts.Title, "title", "", "figure title `T`, at most 300 characters (empty: the call's place in the script, with the settings that tell calls at the same place apart)")
	fs.StringVar(&opts.XLabel, "xlabel", "", "x axis label `T` (empty: the axis' name)")
	fs.StringVar(&opts.YLabel, "ylabel", "", "y axis label `T` (empty: the metrics' display names)")
	out := fs.String("out", "", "write the figures into the directory `DIR` (empty: DIR/plots)")
	dirs, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) != 1 {
		return usageError{"plot takes one run directory"}
	}
	switch {
	case *logY && *linY:
		return usageError{"--log and --linear exclude each other"}
	case *logY:
		opts.YScale = plot.Log
	case *linY:
		opts.YScale = plot.Linear
	}
	if *logX {
		opts.XScale = plot.Log
	}
	if opts.XLim, err = parseLimits("xlim", xlim); err != nil {
		return err
	}
	if opts.YLim, err = parseLimits("ylim", ylim); err != nil {
		return err
	}
	check := opts
	check.Metric = "any"
	if err := check.Check(); err != nil {
		return usageError{err.Error()}
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
	if err := plot.CheckX(opts.X, slices.Concat(l.Calls...)); err != nil {
		return usageError{"--x: " + strings.TrimPrefix(err.Error(), `key "x": `)}
	}
	if *callNo < 0 || *callNo > len(l.Calls) {
		return usageError{fmt.Sprintf("--call %d: %s has %d calls", *callNo, dirs[0], len(l.Calls))}
	}
	if err := unrecordedMetrics(dirs[0], l.Calls, *callNo, metrics); err != nil {
		return err
	}
	for _, f := range formats {
		if !slices.Contains(plot.AllFormats, f) {
			return usageError{fmt.Sprintf("--format %s: want one of %s%s", f, strings.Join(plot.AllFormats, ", "), registry.DidYouMean(f, plot.AllFormats))}
		}
	}
	if *out == "" {
		*out = filepath.Join(dirs[0], "plots")
	}
	if len(formats) == 0 {
		formats = plot.Formats
	}
	titles := htmlreport.Titles(l.Manifest)
	var skipped []string
	drawn := 0
	for i, runs := range l.Calls {
		if *callNo != 0 && i+1 != *callNo {
			continue
		}
		if rules := l.Manifest.Calls[i].Select; len(rules) > 0 {
			runs = experiment.BestRuns(experiment.Select(runs, rules))
		}
		notes, drawable := unfinishedRuns(stderr, i, titles[i], runs, l.InProgress[i])
		if !drawable {
			continue
		}
		names := metrics
		if len(names) == 0 {
			names = experiment.MetricNames(runs)
		} else if missing := missingMetrics(runs, names); len(missing) > 0 && *callNo == 0 {
			skipped = append(skipped, fmt.Sprintf("call %d (%s) does not record %s", i+1, escape.Line(titles[i]), strings.Join(missing, ", ")))
			continue
		}
		drawn++
		o := opts
		o.Notes = notes
		if o.Title == "" {
			o.Title = plot.Truncate(titles[i], plot.MaxText) // a call's name can be longer than fits; the cut shows as "…"
		}
		var figures [][]string
		if *panels {
			figures = [][]string{names}
		} else {
			for _, m := range names {
				figures = append(figures, []string{m})
			}
		}
		for _, f := range figures {
			base := filepath.Join(*out, fmt.Sprintf("call%d_%s", i+1, strings.Join(f, "_")))
			if o.X != "round" {
				base += "_vs_" + o.X
			}
			o.Metrics = f
			paths, err := plot.Save(base, runs, o, formats)
			if err != nil {
				return fmt.Errorf("call %d: %w", i+1, err)
			}
			for _, p := range paths {
				fmt.Fprintln(stdout, p)
			}
		}
	}
	if drawn == 0 && len(skipped) == 0 && len(l.Calls) > 0 {
		return fmt.Errorf("%s: no run completed, nothing to draw", dirs[0])
	}
	if drawn == 0 && len(skipped) > 0 {
		return fmt.Errorf("no call of %s records %s (the runs record: %s)", dirs[0], strings.Join(missingMetrics(slices.Concat(l.Calls...), metrics), ", "),
			strings.Join(experiment.MetricNames(slices.Concat(l.Calls...)), ", "))
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "fedlab: %s: not drawn\n", s)
	}
	return nil
}

// unfinishedRuns says on stderr how many runs of call i (its title) are
// not completed and how far those with a checkpoint got (progress:
// rundir.Loaded.InProgress), as fedlab table does, and returns the legend
// notes of its figures (the first three runs in progress) and whether any
// run completed, to be drawn.
func unfinishedRuns(stderr io.Writer, i int, title string, runs []experiment.Run, progress []string) ([]string, bool) {
	pending := 0
	for _, r := range runs {
		if r.Result == nil {
			pending++
		}
	}
	if pending == 0 {
		return nil, true
	}
	drawable := pending < len(runs)
	what := "not drawn"
	if !drawable {
		what = "no figure"
	}
	fmt.Fprintf(stderr, "fedlab: note: call %d (%s): %d of %d runs pending, %s: left to other shards or not run yet%s\n",
		i+1, escape.Line(title), pending, len(runs), what, inProgress(progress))
	return plot.PendingNotes(pending, progress), drawable
}

// missingMetrics lists the metrics of want that none of the runs records.
func missingMetrics(runs []experiment.Run, want []string) []string {
	have := experiment.MetricNames(runs)
	var out []string
	for _, m := range want {
		if !slices.Contains(have, m) {
			out = append(out, m)
		}
	}
	return out
}

// parseLimits reads "MIN,MAX" (nil for "").
func parseLimits(name, s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	lo, hi, ok := strings.Cut(s, ",")
	a, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if !ok || err1 != nil || err2 != nil {
		return nil, usageError{fmt.Sprintf("--%s %q: want MIN,MAX", name, s)}
	}
	return []float64{a, b}, nil
}
