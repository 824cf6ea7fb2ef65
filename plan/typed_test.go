package plan

import (
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/fedlab/fedlab/algorithms"
	"github.com/fedlab/fedlab/algorithms/serveropt"
	"github.com/fedlab/fedlab/datasets"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules"
	"github.com/fedlab/fedlab/schedules/sched"
	"github.com/fedlab/fedlab/topology"
)

// The typed form of a comparison gives the jobs of its map form: the same
// keys, identities, labels and resolved parameters, nested components
// (a schedule, a topology, a server optimizer) included.
func TestTypedAndMapFormsGiveTheSameJobs(t *testing.T) {
	typedProblem := Problem{
		Data: Of(func(p *datasets.SparseAR1Params) {
			p.Dim, p.Support, p.Clients, p.Samples, p.TestSamples = 16, 4, 4, 10, 0
		}),
		Loss: Of(func(p *losses.SquaredParams) { p.Intercept = false }),
		Reg:  Of(func(p *regularizers.L1Params) { p.Lambda = sched.Constant(0.05) }),
	}
	typed := []Algorithm{
		{Component: Of(func(p *algorithms.FedMiDParams) { p.EtaC = sched.Constant(0.01) })},
		{Component: Of[algorithms.FedAvgParams](nil).With("server", Of(func(p *serveropt.Momentum) { p.Beta = 0.5 })), Label: "FedAvgM"},
		{Component: Of(func(p *algorithms.DFedDAGTParams) { p.Output = "average" }).
			With("topology", Of[topology.RingParams](nil)).
			With("eta_c", Of(func(p *schedules.Geometric) { p.Start, p.Every = 0.01, 2 }))},
	}
	mapped := []Algorithm{
		{Component: comp(registry.Algorithm, "fedmid", map[string]any{"eta_c": 0.01})},
		{Component: comp(registry.Algorithm, "fedavg", map[string]any{"server": comp(registry.Optimizer, "momentum", map[string]any{"beta": 0.5})}), Label: "FedAvgM"},
		{Component: comp(registry.Algorithm, "dfedda_gt", map[string]any{"output": "average", "topology": comp(registry.Topology, "ring", nil),
			"eta_c": comp(registry.Schedule, "geometric", map[string]any{"start": 0.01, "every": 2})})},
	}
	jobs := func(p Problem, algos []Algorithm) []experiment.Job {
		t.Helper()
		js, err := NewBuilder().Compare(Compare{Problem: p, Algorithms: algos, Settings: settings, Seeds: []uint64{1, 2}})
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	a, b := jobs(typedProblem, typed), jobs(lasso, mapped)
	if len(a) != 6 || len(b) != 6 {
		t.Fatalf("%d typed jobs, %d map-form jobs, want 6 each", len(a), len(b))
	}
	for i := range a {
		if a[i].Key != b[i].Key || a[i].Label != b[i].Label || !reflect.DeepEqual(a[i].Identity, b[i].Identity) || !reflect.DeepEqual(a[i].Params, b[i].Params) {
			t.Errorf("job %d: typed %s %q %+v, map form %s %q %+v", i, a[i].Key, a[i].Label, a[i].Identity, b[i].Key, b[i].Label, b[i].Identity)
		}
	}
}

// A typed value the registry refuses is refused with the map form's
// message, and a type that declares no component names itself.
func TestTypedMistakesAreTheMapFormsMistakes(t *testing.T) {
	compare := func(algo Component) error {
		_, err := NewBuilder().Compare(Compare{Problem: lasso, Algorithms: []Algorithm{{Component: algo}}, Settings: settings})
		return err
	}
	typedErr := compare(Of(func(p *algorithms.FedDAParams) { p.Beta = 2; p.Precond = "diagonal" }))
	mapErr := compare(comp(registry.Algorithm, "fedda", map[string]any{"beta": 2, "precond": "diagonal"}))
	if typedErr == nil || mapErr == nil || typedErr.Error() != mapErr.Error() {
		t.Fatalf("typed: %v\nmap form: %v", typedErr, mapErr)
	}
	const want = `algorithm "fedda": parameter "beta" = 2 is above its maximum 1`
	if got := typedErr.Error(); len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("error %q, want it to start with %q", got, want)
	}
	// a cross-parameter check (FedMiD refuses an adaptive server optimizer) and
	// a dataset's declared memory over the ceiling
	typedErr = compare(Of[algorithms.FedMiDParams](nil).With("server", Of[serveropt.Adam](nil)))
	mapErr = compare(comp(registry.Algorithm, "fedmid", map[string]any{"server": comp(registry.Optimizer, "adam", nil)}))
	if typedErr == nil || mapErr == nil || typedErr.Error() != mapErr.Error() {
		t.Errorf("checker: typed: %v\nmap form: %v", typedErr, mapErr)
	}
	huge := func(data Component) error {
		b := NewBuilder()
		b.Limits = NewLimits(1<<30, 1)
		p := lasso
		p.Data = data
		_, err := b.Compare(Compare{Problem: p, Algorithms: []Algorithm{{Component: comp(registry.Algorithm, "fedavg", nil)}}, Settings: settings})
		return err
	}
	typedErr = huge(Of(func(p *datasets.SparseAR1Params) {
		p.Dim, p.Support, p.Clients, p.Samples, p.TestSamples = 64, 8, 1_000_000, 1000, 0
	}))
	mapErr = huge(comp(registry.Dataset, "sparse_ar1", map[string]any{"dim": 64, "support": 8, "clients": 1_000_000, "samples": 1000, "test_samples": 0}))
	if typedErr == nil || mapErr == nil || typedErr.Error() != mapErr.Error() ||
		!strings.Contains(typedErr.Error(), `dataset "sparse_ar1" (clients = 1000000, samples = 1000, test_samples = 0, dim = 64) needs about`) {
		t.Errorf("sizer: typed: %v\nmap form: %v", typedErr, mapErr)
	}
	err := compare(Of[struct{ EtaC float64 }](nil))
	if want := "registry: struct { EtaC float64 } declares no component (its package registers none with registry.Define, or is not imported)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// Every component with parameters declared by registry.Define has a
// params type of its own (Define refuses a shared one), exported, so that
// Go plans can use the typed form; a new component is covered without
// editing this test.
func TestEveryComponentHasAnExportedParamsType(t *testing.T) {
	n := 0
	for _, k := range registry.Kinds {
		for _, s := range registry.Specs(k) {
			if len(s.Params) == 0 {
				continue // plan.Component{Kind, Name} names it
			}
			n++
			pt := registry.ParamsType(k, s.Name)
			switch {
			case pt == nil: // registry.Register, as tests' components are
			case pt.PkgPath() == "" || pt.Name() == "" || !unicode.IsUpper([]rune(pt.Name())[0]):
				t.Errorf("%s: params type %v is not exported: a Go plan cannot name it", s.Title(), pt)
			}
		}
	}
	if n < 70 {
		t.Errorf("%d components with parameters, want the built-ins' 70 or more", n)
	}
}
