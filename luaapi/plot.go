package luaapi

import (
	"fmt"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/plot"
	lua "github.com/yuin/gopher-lua"
)

var plotKeys = []string{"metric", "metrics", "x", "file", "title", "log", "logx", "xlim", "ylim", "skip_round0",
	"width", "height", "font_size", "formats", "xlabel", "ylabel"}

// fnPlot is fedlab.plot(runs, {metric= | metrics=, x=, file=, title=,
// log=, logx=, xlim=, ylim=, skip_round0=, width=, height=, font_size=,
// formats=, xlabel=, ylabel=}): draws the metrics (one panel each) against
// x with one line per label (mean ± std over the seeds) and returns the
// list of files written. log = true/false forces the y scale (default: log
// for error, gap and norm metrics). Given the result of fedlab.sweep, it
// draws the selected configuration of each algorithm.
func (in *interp) fnPlot(L *lua.LState) (int, error) {
	var runs []experiment.Run
	if s, err := in.sweepArg(L.Get(1), "fedlab.plot"); err == nil {
		runs = experiment.BestRuns(s.sels)
	} else if runs, err = in.collect(L.Get(1), "fedlab.plot"); err != nil {
		return 0, err
	}
	t, ok := L.Get(2).(*lua.LTable)
	if !ok {
		return 0, fmt.Errorf("fedlab.plot: argument 2: expected a table of options { metric = NAME, ... }, got %s", typeText(L.Get(2)))
	}
	f := newFields("fedlab.plot", t, plotKeys)
	opts := plot.Options{Metric: f.str("metric", ""), Metrics: f.strings("metrics"), X: f.str("x", "round", plot.XNames...),
		Title: f.str("title", ""), XLabel: f.str("xlabel", ""), YLabel: f.str("ylabel", ""),
		XLim: limits(f, "xlim"), YLim: limits(f, "ylim"), SkipRound0: f.boolean("skip_round0", false),
		Width: f.number("width", 0, 1), Height: f.number("height", 0, 1), FontSize: f.number("font_size", 0, 1)}
	if f.get("metric") == lua.LNil && f.get("metrics") == lua.LNil {
		f.required("metric", "the metric to draw, or metrics = { ... } for one panel each")
	}
	if f.get("log") != lua.LNil {
		opts.YScale = plot.Linear
		if f.boolean("log", false) {
			opts.YScale = plot.Log
		}
	}
	if f.boolean("logx", false) {
		opts.XScale = plot.Log
	}
	formats := f.strings("formats")
	file := f.str("file", "")
	if f.err != nil {
		return 0, f.err
	}
	if err := opts.Check(); err != nil {
		return 0, fmt.Errorf("fedlab.plot: %w", err)
	}
	if file == "" {
		file = strings.Join(append([]string{opts.Metric}, opts.Metrics...), "_")
		file = strings.TrimPrefix(file, "_")
		if opts.X != "round" {
			file += "_vs_" + opts.X
		}
	}
	base, err := in.output(file)
	if err != nil {
		return 0, fmt.Errorf("fedlab.plot: %w", err)
	}
	paths, err := plot.Save(base, runs, opts, formats)
	if err != nil {
		return 0, fmt.Errorf("fedlab.plot: %w", err)
	}
	out := L.NewTable()
	for _, p := range paths {
		out.Append(lua.LString(p))
	}
	L.Push(out)
	return 1, nil
}

// limits reads an axis range { min, max } (nil if absent).
func limits(f *fields, key string) []float64 {
	var out []float64
	for i, v := range f.list(key) {
		x, ok := v.(lua.LNumber)
		if !ok {
			f.fail(fmt.Errorf("%s element %d: expected a number, got %s", f.what(key), i+1, typeText(v)))
		}
		out = append(out, float64(x))
	}
	return out
}
