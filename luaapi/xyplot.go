package luaapi

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/present/plot"
	lua "github.com/yuin/gopher-lua"
)

var (
	xyplotCall = declare("fedlab.xyplot", "options of fedlab.xyplot{...}: a chart of computed values (not per-round records)", []key{
		{"series", "list of series tables", true, "the lines: { label = ..., x = { numbers }, y = { numbers } }; y may hold 0/0 (NaN) for a missing point"},
		{"file", "string", true, "the file name without extension"},
		{"title", "string", false, "the chart title"},
		{"xlabel", "string", false, "the x axis label"},
		{"ylabel", "string", false, "the y axis label"},
		{"log", "boolean", false, "a logarithmic y axis"},
		{"formats", "list of strings", false, `"png", "svg", "pdf" (default png and svg)`},
	})
	xySeriesCall = declare("fedlab.xyplot series", "one line of fedlab.xyplot", []key{
		{"label", "string", true, "the legend entry"},
		{"x", "list of numbers", true, "the x values"},
		{"y", "list of numbers", true, "the y values, as many as x"},
	})
)

// fnXYPlot is fedlab.xyplot{series=, file=, title=, xlabel=, ylabel=, log=,
// formats=}: draws lines through given points (e.g. rounds to a target
// against log d) and returns the list of files written.
func (in *interp) fnXYPlot(L *lua.LState) (int, error) {
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		return 0, fmt.Errorf("fedlab.xyplot: expected a table { series = ..., file = ... }, got %s", typeText(L.Get(1)))
	}
	f := xyplotCall.read(t)
	opts := plot.Options{Metric: f.str("ylabel", ""), Title: f.str("title", ""), YScale: plot.Linear}
	if f.boolean("log", false) {
		opts.YScale = plot.Log
	}
	xlabel, file, formats := f.str("xlabel", ""), f.str("file", ""), f.strings("formats")
	var lines []plot.XY
	for i, v := range f.list("series") {
		st, ok := v.(*lua.LTable)
		if !ok {
			f.fail(fmt.Errorf("fedlab.xyplot: series %d: expected a table, got %s", i+1, typeText(v)))
			continue
		}
		name := fmt.Sprintf("fedlab.xyplot series %d", i+1)
		sf := xySeriesCall.readAs(name, st)
		l := plot.XY{Label: sf.str("label", ""), X: numbers(sf, "x"), Y: numbers(sf, "y")}
		if len(l.X) != len(l.Y) {
			sf.fail(fmt.Errorf("%s: %d x values but %d y values", name, len(l.X), len(l.Y)))
		}
		f.fail(sf.error())
		lines = append(lines, l)
	}
	if err := f.error(); err != nil {
		return 0, err
	}
	base, err := in.output("fedlab.xyplot", file)
	if err != nil {
		return 0, err
	}
	var paths []string
	if in.dry != nil { // the values come from placeholders: nothing to draw
		if paths, err = dryFigures(base, formats); err == nil {
			in.dryOutput("fedlab.xyplot", paths...)
		}
	} else {
		paths, err = plot.SaveXY(base, lines, opts, xlabel, formats)
	}
	return pushFigures(L, "fedlab.xyplot", paths, err)
}

// numbers reads a list of numbers (NaN allowed, ±Inf not).
func numbers(f *fields, key string) []float64 {
	var out []float64
	for i, v := range f.list(key) {
		n, ok := v.(lua.LNumber)
		if !ok || math.IsInf(float64(n), 0) {
			f.fail(fmt.Errorf("%s element %d: expected a finite number or 0/0, got %s", f.what(key), i+1, typeText(v)))
		}
		out = append(out, float64(n))
	}
	return out
}
