package luaapi

import (
	"fmt"
	"io"
	"math"

	"github.com/fedlab/fedlab/experiment"

	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/report"
	lua "github.com/yuin/gopher-lua"
)

// fnTable is fedlab.table(runs [, {rounds=, metrics=, title=, transpose=,
// format=, file=, bold=, width=}]): prints mean ± std across seeds per
// label and round. With file, the table is also written there in format
// (default: from the file's extension) and the path is returned.
func (in *interp) fnTable(L *lua.LState) (int, error) {
	runs, err := in.collect(L.Get(1), "fedlab.table")
	if err != nil {
		return 0, err
	}
	var opts report.TableOptions
	file := ""
	f, err := optionsArg(L, 2, tableCall)
	if err != nil {
		return 0, err
	}
	if f != nil {
		opts = report.TableOptions{Rounds: f.integers("rounds", 0), Metrics: f.strings("metrics"),
			Title: f.str("title", ""), Transpose: f.boolean("transpose", false), Bold: f.boolean("bold", false),
			Format: f.str("format", "", report.Formats...), Width: f.integer("width", 0, 20)}
		file = f.str("file", "")
		if err := f.error(); err != nil {
			return 0, err
		}
	}
	text := opts
	text.Format = ""
	shown := in.opts.Stdout
	if in.dry != nil { // checked, not shown: the numbers are placeholders
		shown = io.Discard
	}
	if err := report.Table(shown, runs, text); err != nil {
		return 0, fmt.Errorf("fedlab.table: %w", err)
	}
	if in.dry != nil {
		in.dryNote("fedlab.table at %s: %s, no numbers (nothing was computed)", in.where(), count(len(runs), "run"))
	}
	if file == "" {
		return 0, nil
	}
	path, err := in.output("fedlab.table", file)
	if err != nil {
		return 0, err
	}
	if opts.Format == "" {
		opts.Format = report.FormatOf(path)
	}
	if in.dry != nil {
		in.dryOutput("fedlab.table", path)
		L.Push(lua.LString(path))
		return 1, nil
	}
	if err := report.SaveTable(path, runs, opts); err != nil {
		return 0, fmt.Errorf("fedlab.table: %w", err)
	}
	L.Push(lua.LString(path))
	return 1, nil
}

// fnCSV is fedlab.csv(runs, path): writes every record of every run and
// returns the path written.
func (in *interp) fnCSV(L *lua.LState) (int, error) {
	runs, err := in.collect(L.Get(1), "fedlab.csv")
	if err != nil {
		return 0, err
	}
	path, err := in.pathArg(L, "fedlab.csv")
	if err != nil {
		return 0, err
	}
	if in.dry != nil {
		in.dryOutput("fedlab.csv", path)
		L.Push(lua.LString(path))
		return 1, nil
	}
	if err := report.WriteCSV(path, runs); err != nil {
		return 0, fmt.Errorf("fedlab.csv: %w", err)
	}
	L.Push(lua.LString(path))
	return 1, nil
}

// fnSaveModel is fedlab.save_model(run, path): writes the final model and
// returns the path written.
func (in *interp) fnSaveModel(L *lua.LState) (int, error) {
	run, err := in.single(L.Get(1), "fedlab.save_model")
	if err != nil {
		return 0, err
	}
	path, err := in.pathArg(L, "fedlab.save_model")
	if err != nil {
		return 0, err
	}
	if in.dry != nil {
		in.dryOutput("fedlab.save_model", path)
		L.Push(lua.LString(path))
		return 1, nil
	}
	if err := report.SaveModel(path, run); err != nil {
		return 0, fmt.Errorf("fedlab.save_model: %w", err)
	}
	L.Push(lua.LString(path))
	return 1, nil
}

// fnModel is fedlab.model(run): the final model as a Lua list.
func (in *interp) fnModel(L *lua.LState) (int, error) {
	run, err := in.single(L.Get(1), "fedlab.model")
	if err != nil {
		return 0, err
	}
	if run.Result.Status == experiment.Planned { // a dry run's placeholder: NaN, never a model
		model := make([]float64, run.Layout.Dim())
		for i := range model {
			model[i] = math.NaN()
		}
		L.Push(in.numbers(model))
		return 1, nil
	}
	if run.Result.Model == nil {
		return 0, fmt.Errorf("fedlab.model: run %s (seed %d) has no model: %s", run.Label, run.Seed, run.Result.Err)
	}
	L.Push(in.numbers(run.Result.Model))
	return 1, nil
}

// pathArg reads argument 2 as an output path, resolved against Options.Out.
func (in *interp) pathArg(L *lua.LState, fn string) (string, error) {
	s, ok := L.Get(2).(lua.LString)
	if !ok || s == "" {
		return "", fmt.Errorf("%s: argument 2: expected a file name, got %s", fn, typeText(L.Get(2)))
	}
	return in.output(fn, string(s))
}

// fnSweepTable is fedlab.sweep_table(sweep [, {cols=, title=, width=, ...}]): prints
// the grid of every algorithm with the selected configuration marked, and
// the selected configurations.
func (in *interp) fnSweepTable(L *lua.LState) (int, error) {
	s, err := in.sweepArg(L.Get(1), "fedlab.sweep_table")
	if err != nil {
		return 0, err
	}
	var opts report.SweepOptions
	file := ""
	f, err := optionsArg(L, 2, sweepTableCall)
	if err != nil {
		return 0, err
	}
	if f != nil {
		opts = report.SweepOptions{Cols: f.str("cols", ""), Title: f.str("title", ""), Format: f.str("format", "", "text", "md", "latex"),
			Width: f.integer("width", 0, 20)}
		file = f.str("file", "")
		if err := f.error(); err != nil {
			return 0, err
		}
	}
	text := opts
	text.Format = ""
	shown := in.opts.Stdout
	if in.dry != nil { // checked, not shown: the scores are placeholders
		shown = io.Discard
	}
	if err := report.SweepTable(shown, s.sels, s.rules, text); err != nil {
		return 0, fmt.Errorf("fedlab.sweep_table: %w", err)
	}
	if in.dry != nil {
		in.dryNote("fedlab.sweep_table at %s: %s, no scores (nothing was computed; the first configuration stands as the best)", in.where(), count(len(s.runs), "run"))
	}
	if file == "" {
		return 0, nil
	}
	path, err := in.output("fedlab.sweep_table", file)
	if err != nil {
		return 0, err
	}
	if opts.Format == "" {
		opts.Format = report.FormatOf(path)
	}
	if in.dry != nil {
		in.dryOutput("fedlab.sweep_table", path)
		L.Push(lua.LString(path))
		return 1, nil
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return report.SweepTable(w, s.sels, s.rules, opts) }); err != nil {
		return 0, fmt.Errorf("fedlab.sweep_table: %w", err)
	}
	L.Push(lua.LString(path))
	return 1, nil
}

// sweepArg returns the sweep behind a table returned by fedlab.sweep.
func (in *interp) sweepArg(v lua.LValue, fn string) (*sweep, error) {
	if t, ok := v.(*lua.LTable); ok {
		if s, ok := in.sweeps[t]; ok {
			return s, nil
		}
	}
	return nil, fmt.Errorf("%s: expected the result of fedlab.sweep, got %s", fn, typeText(v))
}
