package luaapi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/registry"
	lua "github.com/yuin/gopher-lua"
)

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
		"claim":       in.fnClaim,
	} {
		fedlab.RawSetString(name, in.protect(f))
	}
	var fields []string
	fedlab.ForEach(func(k, _ lua.LValue) { fields = append(fields, k.String()) })
	slices.Sort(fields)
	in.L.SetMetatable(fedlab, in.strictIndex("fedlab", func(name string) error {
		return fmt.Errorf("fedlab has no field %q%s; its fields: %s", name, registry.DidYouMean(name, fields), strings.Join(fields, ", "))
	}))
	in.L.SetGlobal("fedlab", fedlab)
}
