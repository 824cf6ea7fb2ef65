package luaapi

import (
	"fmt"
	"io"
	"math"

	"github.com/fedlab/fedlab/experiment"

	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/present/report"
	"github.com/fedlab/fedlab/rundir/runfile"
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
	return in.showTable(L, "fedlab.table", file, &opts.Format, func(w io.Writer, format string) error {
		o := opts
		o.Format = format
		return report.Table(w, runs, o)
	}, fmt.Sprintf("%s, no numbers (nothing was computed)", count(len(runs), "run")))
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
	return in.writeOutput(L, "fedlab.csv", path, func(path string) error { return runfile.WriteCSV(path, runs) })
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
	return in.writeOutput(L, "fedlab.save_model", path, func(path string) error { return runfile.SaveModel(path, run) })
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
	return in.showTable(L, "fedlab.sweep_table", file, &opts.Format, func(w io.Writer, format string) error {
		o := opts
		o.Format = format
		return report.SweepTable(w, s.sels, s.rules, o)
	}, fmt.Sprintf("%s, no scores (nothing was computed; the first configuration stands as the best)", count(len(s.runs), "run")))
}

// showTable prints a table of fn (write in the terminal's form, format
// "") on the standard output; in a dry run it is checked, not shown, and
// dry says so. With a file, it also writes the table there in *format
// (default: from the file's extension, stored back; the file is replaced
// whole or not at all) and returns the path written to the script.
func (in *interp) showTable(L *lua.LState, fn, file string, format *string, write func(w io.Writer, format string) error, dry string) (int, error) {
	shown := in.opts.Stdout
	if in.dry != nil { // checked, not shown: the numbers are placeholders
		shown = io.Discard
	}
	if err := write(shown, ""); err != nil {
		return 0, fmt.Errorf("%s: %w", fn, err)
	}
	if in.dry != nil {
		in.dryNote("%s at %s: %s", fn, in.where(), dry)
	}
	if file == "" {
		return 0, nil
	}
	path, err := in.output(fn, file)
	if err != nil {
		return 0, err
	}
	if *format == "" {
		*format = report.FormatOf(path)
	}
	return in.writeOutput(L, fn, path, func(path string) error {
		return atomicfile.Write(path, func(w io.Writer) error { return write(w, *format) })
	})
}

// writeOutput writes the output file path of fn with write (in a dry run,
// notes it unwritten) and pushes its path, the function's result.
func (in *interp) writeOutput(L *lua.LState, fn, path string, write func(path string) error) (int, error) {
	if in.dry != nil {
		in.dryOutput(fn, path)
	} else if err := write(path); err != nil {
		return 0, fmt.Errorf("%s: %w", fn, err)
	}
	L.Push(lua.LString(path))
	return 1, nil
}

// pushFigures returns the paths of the figure files fn wrote (or, in a
// dry run, would write) to the script as a list, or fn's error err.
func pushFigures(L *lua.LState, fn string, paths []string, err error) (int, error) {
	if err != nil {
		return 0, fmt.Errorf("%s: %w", fn, err)
	}
	out := L.NewTable()
	for _, p := range paths {
		out.Append(lua.LString(p))
	}
	L.Push(out)
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
