package luaapi

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/present/plot"
	lua "github.com/yuin/gopher-lua"
)

// fnPlot is fedlab.plot(runs, options): draws the metrics (one panel
// each) against x with one line per label (mean ± std over the seeds) and
// returns the list of files written; the options are declared in calls.go.
// Given the result of fedlab.sweep, it draws the selected configuration of
// each algorithm.
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
	f := plotCall.read(t)
	opts := plot.Options{Metric: f.str("metric", ""), Metrics: f.strings("metrics"), X: f.str("x", "round"),
		Title: f.str("title", ""), XLabel: f.str("xlabel", ""), YLabel: f.str("ylabel", ""),
		XLim: f.numbers("xlim"), YLim: f.numbers("ylim"), SkipRound0: f.boolean("skip_round0", false),
		Width: f.number("width", 0, 0), Height: f.number("height", 0, 0), FontSize: f.number("font_size", 0, 0)}
	if f.get("log") != lua.LNil {
		opts.YScale = plot.Linear
		if f.boolean("log", false) {
			opts.YScale = plot.Log
		}
	}
	if f.boolean("logx", false) {
		opts.XScale = plot.Log
	}
	opts.HLines = hlines(f, in.dry != nil)
	formats := f.strings("formats")
	file := f.str("file", "")
	if err := f.error(); err != nil {
		return 0, err
	}
	if opts.Metric == "" && len(opts.Metrics) == 0 {
		return 0, fmt.Errorf("fedlab.plot: missing key \"metric\" (the metric to draw), or \"metrics\" = { ... } for one panel each")
	}
	if err := opts.Check(); err != nil {
		return 0, fmt.Errorf("fedlab.plot: %w", err)
	}
	if file == "" {
		names := opts.Metrics
		if opts.Metric != "" {
			names = append([]string{opts.Metric}, names...)
		}
		file = strings.Join(names, "_")
		if opts.X != "round" {
			file += "_vs_" + opts.X
		}
	}
	base, err := in.output("fedlab.plot", file)
	if err != nil {
		return 0, err
	}
	var paths []string
	if in.dry != nil { // the lines are built, to check the metrics and the axis, and not drawn: their values are NaN
		for _, m := range append([]string{opts.Metric}, opts.Metrics...) {
			if m != "" && err == nil {
				_, err = plot.Lines(runs, m, opts)
			}
		}
		if err == nil {
			paths, err = dryFigures(base, formats)
		}
		if err == nil {
			in.dryOutput("fedlab.plot", paths...)
		}
	} else {
		paths, err = plot.Save(base, runs, opts, formats)
	}
	return pushFigures(L, "fedlab.plot", paths, err)
}

// hlines reads the key hline of fedlab.plot: one table { value =, label =,
// metric = } or a list of them. In a dry run (dry), a line whose value is
// NaN is left out: the value comes from a placeholder.
func hlines(f *fields, dry bool) []plot.HLine {
	v := f.get("hline")
	t, ok := v.(*lua.LTable)
	switch {
	case v == lua.LNil:
		return nil
	case !ok:
		f.fail(fmt.Errorf("%s: expected a table { value =, label =, metric = } or a list of them, got %s", f.what("hline"), typeText(v)))
		return nil
	}
	items := []lua.LValue{t}
	if t.RawGetString("value") == lua.LNil && t.Len() > 0 {
		items = f.list("hline")
	}
	var out []plot.HLine
	for i, item := range items {
		ht, ok := item.(*lua.LTable)
		if !ok {
			f.fail(fmt.Errorf("%s element %d: expected a table { value =, label =, metric = }, got %s", f.what("hline"), i+1, typeText(item)))
			continue
		}
		name := "fedlab.plot hline"
		if len(items) > 1 {
			name = fmt.Sprintf("fedlab.plot hline %d", i+1)
		}
		hf := hlineCall.readAs(name, ht)
		line := plot.HLine{Label: hf.str("label", ""), Metric: hf.str("metric", "")}
		if v, ok := hf.get("value").(lua.LNumber); dry && ok && math.IsNaN(float64(v)) {
			f.fail(hf.error())
			continue // a placeholder's value (fedlab.optimum's objective in a dry run): nothing to check or draw
		}
		line.Value = hf.number("value", 0, -math.MaxFloat64)
		out = append(out, line)
		f.fail(hf.error())
	}
	return out
}
