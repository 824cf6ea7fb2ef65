package plan_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/algorithms"
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/datasets"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules/sched"
	"github.com/fedlab/fedlab/topology"
)

// A comparison written in the typed form: the compiler checks every
// parameter's name and type, the Builder its value.
func ExampleOf() {
	problem := plan.Problem{
		Data: plan.Of(func(p *datasets.SparseAR1Params) {
			p.Dim, p.Support, p.Clients, p.Samples, p.TestSamples = 32, 4, 4, 20, 0
		}),
		Loss: plan.Of(func(p *losses.SquaredParams) { p.Intercept = false }),
		Reg:  plan.Of(func(p *regularizers.L1Params) { p.Lambda = sched.Constant(0.02) }),
	}
	fda := plan.Of(func(p *algorithms.FedDualAvgParams) {
		p.EtaC = sched.Constant(0.002) // eta_s keeps its default, 1
	})
	dfedda := plan.Of(func(p *algorithms.DFedDAParams) { p.Output = "average" }).
		With("topology", plan.Of(func(p *topology.ErdosRenyiParams) { p.P = 0.5 }))
	settings := core.Settings{Rounds: 20, ClientsPerRound: 4, LocalSteps: 5, Batch: 8, EvalEvery: 10}
	jobs, err := plan.NewBuilder().Compare(plan.Compare{Problem: problem, Settings: settings,
		Algorithms: []plan.Algorithm{{Component: fda, Label: "FedDualAvg"}, {Component: dfedda}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range jobs {
		fmt.Println(j.Label, j.Identity.Algorithm.Params)
	}
	// a value out of range is refused as in a script, before anything runs
	bad := plan.Of(func(p *algorithms.FedDualAvgParams) { p.EtaC = sched.Constant(-1) })
	_, err = plan.NewBuilder().Compare(plan.Compare{Problem: problem, Settings: settings,
		Algorithms: []plan.Algorithm{{Component: bad}}})
	fmt.Println(err)
	// Output:
	// FedDualAvg map[eta_c:0.002 eta_s:1]
	// dfedda map[eta_c:0.01 eta_s:1 output:average topology:{topology {erdos_renyi map[p:0.5 seed:1]}}]
	// algorithm "feddualavg": parameter "eta_c" = -1 is below its minimum 0
}

// TestLibraryDocShowsExampleOf: docs/library.md's typed plan is ExampleOf,
// compiled and run above.
func TestLibraryDocShowsExampleOf(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	body := regexp.MustCompile(`(?s)func ExampleOf\(\) \{\n(.*?)\n\t// Output:`).FindSubmatch(src)
	if body == nil {
		t.Fatal("no ExampleOf")
	}
	doc, err := os.ReadFile("../docs/library.md")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(string(body[1]), "\n\t", "\n")[1:]
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/library.md does not show ExampleOf's body:\n%s", want)
	}
}
