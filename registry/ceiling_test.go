package registry_test

import (
	"testing"

	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/sched"
)

// ceilingProbe is a params struct with an embedded Ceiling.
type ceilingProbe struct {
	registry.Ceiling
	Start float64 `param:"start" doc:"value"`
}

// ceilingSeen is the ceiling ceilingProbe's factory received last.
var ceilingSeen budget.Budget

func init() {
	registry.Define(registry.Schedule, "test_ceiling_probe", "records the ceiling it is built with", ceilingProbe{Start: 1},
		func(p ceilingProbe) (sched.Schedule, error) {
			ceilingSeen = p.Budget()
			return sched.Constant(p.Start), nil
		})
}

// An embedded Ceiling is not a parameter; the factory receives the
// ceiling given to Args.WithCeiling, or the process's default without one.
func TestDefineHandsTheCeilingToTheFactory(t *testing.T) {
	spec, ok := registry.Lookup(registry.Schedule, "test_ceiling_probe")
	if !ok {
		t.Fatal("test_ceiling_probe not registered")
	}
	if len(spec.Params) != 1 || spec.Params[0].Name != "start" {
		t.Fatalf("params %+v, expected start only", spec.Params)
	}
	a, err := spec.Validate(map[string]any{"start": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	plan := budget.Budget{Limit: 48 << 20, Source: "--max-memory"}
	if _, err := registry.BuildArgs[sched.Schedule](a.WithCeiling(plan)); err != nil {
		t.Fatal(err)
	}
	if ceilingSeen != plan {
		t.Errorf("with the plan's ceiling the factory got %+v, expected %+v", ceilingSeen, plan)
	}
	if _, err := registry.BuildArgs[sched.Schedule](a); err != nil {
		t.Fatal(err)
	}
	// the default share of the process's limits (MemAvailable moves
	// between two reads, so its source is compared, not its size)
	if def := budget.Ceiling(0); ceilingSeen == plan || ceilingSeen.Source != def.Source {
		t.Errorf("without a ceiling the factory got %+v, expected the default %+v", ceilingSeen, def)
	}
}
