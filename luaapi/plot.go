package luaapi

import (
	"fmt"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/plot"
	lua "github.com/yuin/gopher-lua"
)

// fnPlot is fedlab.plot(runs, {metric=, x=, file=, title=, log=,
// formats=}): draws the metric against x with one line per label (mean ±
// std over the seeds) and returns the list of files written. Given the
// result of fedlab.sweep, it draws the selected configuration of each
// algorithm.
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
	opts := plot.Options{Metric: f.str("metric", ""), X: f.str("x", "round"),
		Title: f.str("title", ""), LogY: f.boolean("log", false)}
	formats := f.strings("formats")
	file := f.str("file", "")
	if err := f.error(); err != nil {
		return 0, err
	}
	if file == "" {
		file = opts.Metric
		if opts.X != "round" {
			file += "_vs_" + opts.X
		}
	}
	base, err := in.output("fedlab.plot", file)
	if err != nil {
		return 0, err
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
