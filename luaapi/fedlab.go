package luaapi

import "fmt"

// install sets the global `fedlab`: the generated component constructors
// and the functions that build problems, run experiments and report.
func (in *interp) install() {
	in.installMetatable()
	fedlab := in.L.NewTable()
	in.installComponents(fedlab)
	fedlab.RawSetString("args", in.argsTable())
	in.installPairs()
	for name, f := range map[string]goFunc{
		"problem":     in.fnProblem,
		"run":         in.fnRun,
		"compare":     in.fnCompare,
		"sweep":       in.fnSweep,
		"sweep_table": in.fnSweepTable,
		"plot":        in.fnPlot,
		"xyplot":      in.fnXYPlot,
		"optimum":     in.fnOptimum,
		"info":        in.fnInfo,
		"table":       in.fnTable,
		"csv":         in.fnCSV,
		"save_model":  in.fnSaveModel,
		"model":       in.fnModel,
		"stages":      in.fnStages,
		"params":      in.fnParams,
	} {
		fedlab.RawSetString(name, in.protect(f))
	}
	in.L.SetMetatable(fedlab, in.strictIndex("fedlab", func(name string) error {
		return fmt.Errorf("fedlab has no field %q", name)
	}))
	in.L.SetGlobal("fedlab", fedlab)
}
