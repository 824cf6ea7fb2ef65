package luaapi

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/schedules/sched"
	lua "github.com/yuin/gopher-lua"
)

// result converts a run to the Lua table scripts read, and remembers the Go
// run behind it so that fedlab.table, fedlab.csv, fedlab.save_model and
// fedlab.model can use it.
func (in *interp) result(r *experiment.Run) *lua.LTable {
	L := in.L
	t := L.NewTable()
	res := r.Result
	t.RawSetString("label", lua.LString(r.Label))
	t.RawSetString("algorithm", lua.LString(r.Algorithm))
	t.RawSetString("seed", lua.LNumber(r.Seed))
	t.RawSetString("key", lua.LString(r.Key))
	if len(r.Config) > 0 {
		cfg := L.NewTable()
		for _, s := range r.Config {
			cfg.RawSetString(s.Key, in.paramToLua(s.Value))
		}
		t.RawSetString("config", cfg)
	}
	t.RawSetString("status", lua.LString(res.Status))
	if res.Status == core.Diverged {
		t.RawSetString("diverged_at", lua.LNumber(res.DivergedAt))
	}
	if res.Unmoved > 0 {
		t.RawSetString("unmoved_at", lua.LNumber(res.Unmoved))
	}
	if res.Err != "" {
		t.RawSetString("error", lua.LString(res.Err))
	}
	planned := res.Status == experiment.Planned // a dry run's placeholder: its counts are NaN like its metrics
	t.RawSetString("elapsed", measured(res.Elapsed.Seconds(), planned))
	params := L.NewTable()
	for k, v := range r.Params {
		params.RawSetString(k, in.paramToLua(v))
	}
	t.RawSetString("params", params)
	records := L.NewTable()
	final := L.NewTable()
	for _, rec := range res.Records {
		row := L.NewTable()
		row.RawSetString("round", lua.LNumber(rec.Round))
		row.RawSetString("comm_up", measured(float64(rec.Up), planned))
		row.RawSetString("comm_down", measured(float64(rec.Down), planned))
		row.RawSetString("samples", measured(float64(rec.Samples), planned))
		final = L.NewTable()
		for i, m := range res.Metrics {
			row.RawSetString(m, lua.LNumber(rec.Values[i]))
			final.RawSetString(m, lua.LNumber(rec.Values[i]))
		}
		records.Append(row)
	}
	t.RawSetString("records", records)
	t.RawSetString("final", final)
	in.runs[t] = r
	return t
}

// measured is a run's count (time, floats, samples) as Lua sees it: NaN for
// a placeholder, which counted nothing.
func measured(v float64, placeholder bool) lua.LNumber {
	if placeholder {
		return lua.LNumber(math.NaN())
	}
	return lua.LNumber(v)
}

// results converts runs to a Lua list of result tables.
func (in *interp) results(runs []experiment.Run) *lua.LTable {
	out := in.L.CreateTable(len(runs), 0)
	for i := range runs {
		out.Append(in.result(&runs[i]))
	}
	return out
}

// paramToLua converts a resolved parameter value: constant schedules become
// numbers, tabulated ones lists, other schedules their description.
func (in *interp) paramToLua(v any) lua.LValue {
	switch x := v.(type) {
	case float64:
		return lua.LNumber(x)
	case int:
		return lua.LNumber(x)
	case bool:
		return lua.LBool(x)
	case string:
		return lua.LString(x)
	case sched.Constant:
		return lua.LNumber(x)
	case []float64:
		return in.numbers(x)
	case sched.Table:
		return in.numbers(x)
	}
	return lua.LString(fmt.Sprint(v))
}

// numbers makes a Lua list.
func (in *interp) numbers(xs []float64) *lua.LTable {
	t := in.L.CreateTable(len(xs), 0)
	for _, x := range xs {
		t.Append(lua.LNumber(x))
	}
	return t
}

// collect returns the runs behind v: one result table, or a (nested) list
// of them.
func (in *interp) collect(v lua.LValue, what string) ([]experiment.Run, error) {
	t, ok := v.(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("%s: expected run results (from fedlab.run or fedlab.compare), got %s", what, typeText(v))
	}
	if r, ok := in.runs[t]; ok {
		return []experiment.Run{*r}, nil
	}
	elems, err := list(t, what)
	if err != nil || len(elems) == 0 {
		return nil, fmt.Errorf("%s: expected run results (from fedlab.run or fedlab.compare), got a table that is not one", what)
	}
	var out []experiment.Run
	for _, e := range elems {
		runs, err := in.collect(e, what)
		if err != nil {
			return nil, err
		}
		out = append(out, runs...)
	}
	return out, nil
}

// single returns the one run behind v.
func (in *interp) single(v lua.LValue, what string) (experiment.Run, error) {
	runs, err := in.collect(v, what)
	if err != nil {
		return experiment.Run{}, err
	}
	if len(runs) != 1 {
		return experiment.Run{}, fmt.Errorf("%s: expected one run result, got a list of %d (index it, e.g. runs[1])", what, len(runs))
	}
	return runs[0], nil
}
