package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
)

// component is a shorthand for a plan.Component in the map form.
func component(kind registry.Kind, name string, params map[string]any) plan.Component {
	return plan.Component{Kind: kind, Name: name, Params: params}
}

// buildMap is build in the map form, the form the Lua API decodes scripts
// into: the same plans, parameters named by strings.
func buildMap() experiments {
	x := build()
	problem := plan.Problem{
		Data: component(registry.Dataset, "sparse_ar1", map[string]any{"dim": 64, "support": 8, "clients": 8, "samples": 40, "test_samples": 0}),
		Loss: component(registry.Loss, "squared", map[string]any{"intercept": false}),
		Reg:  component(registry.Regularizer, "l1", map[string]any{"lambda": 0.02}),
	}
	metrics := []plan.Component{
		component(registry.Metric, "l2_error", nil),
		component(registry.Metric, "f1", nil),
		component(registry.Metric, "objective", nil),
	}
	fedmid := plan.Algorithm{Component: component(registry.Algorithm, "fedmid", map[string]any{"eta_c": 0.002})}
	fda := plan.Algorithm{Component: component(registry.Algorithm, "feddualavg", map[string]any{"eta_c": 0.002}), Label: "FedDualAvg"}
	cfedda := plan.Algorithm{Component: component(registry.Algorithm, "cfedda", map[string]any{"mu": 0.1, "L": 300.0, "weights": "constant"})}
	for _, c := range []*plan.Compare{&x.Compare, &x.Sweep.Compare} {
		c.Problem, c.Metrics = problem, metrics
	}
	x.Compare.Algorithms = []plan.Algorithm{fedmid, fda}
	x.Sweep.Algorithms = []plan.Algorithm{fda}
	x.Stages.Problem, x.Stages.Metrics = problem, metrics
	x.Stages.Stages = append([]plan.Stage(nil), x.Stages.Stages...)
	x.Stages.Stages[0].Algorithm = &cfedda
	return x
}

// The typed plans and their map form give the same jobs (keys, identities,
// labels, parameters) and, executed, the same records and tables bit for
// bit.
func TestTypedAndMapFormPlansAgree(t *testing.T) {
	jobs := func(x experiments) [][]experiment.Job {
		t.Helper()
		b := plan.NewBuilder()
		compare, err := b.Compare(x.Compare)
		if err != nil {
			t.Fatal(err)
		}
		sweep, err := b.Sweep(x.Sweep)
		if err != nil {
			t.Fatal(err)
		}
		stages, _, err := b.Stages(x.Stages)
		if err != nil {
			t.Fatal(err)
		}
		return [][]experiment.Job{compare, sweep, stages}
	}
	typed, mapped := jobs(build()), jobs(buildMap())
	n := 0
	for c := range typed {
		if len(typed[c]) != len(mapped[c]) {
			t.Fatalf("call %d: %d typed jobs, %d in the map form", c, len(typed[c]), len(mapped[c]))
		}
		for i, a := range typed[c] {
			b := mapped[c][i]
			if a.Key != b.Key || a.Label != b.Label || !reflect.DeepEqual(a.Identity, b.Identity) || !reflect.DeepEqual(a.Params, b.Params) {
				t.Errorf("call %d job %d: typed %s %q %+v, map form %s %q %+v", c, i, a.Key, a.Label, a.Identity, b.Key, b.Label, b.Identity)
			}
			n++
		}
	}
	if n != 12 {
		t.Errorf("%d jobs compared, want 12 (4 compared, 6 swept, 2 staged)", n)
	}
	tmp := t.TempDir()
	var typedTables, mapTables bytes.Buffer
	if _, err := execPlans(build(), filepath.Join(tmp, "typed"), &typedTables, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := execPlans(buildMap(), filepath.Join(tmp, "map"), &mapTables, io.Discard); err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(filepath.Join(tmp, "typed", "records.csv"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(tmp, "map", "records.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("records.csv differ (%d and %d bytes)", len(a), len(b))
	}
	if typedTables.String() != mapTables.String() {
		t.Errorf("tables differ:\n%s\nmap form:\n%s", typedTables.String(), mapTables.String())
	}
}
