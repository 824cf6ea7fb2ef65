package luaapi

import (
	"strings"
	"testing"

	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/topology"
	lua "github.com/yuin/gopher-lua"
)

// TestTopologiesFromLua: topologies are built and validated where they are
// written, and described by fedlab.info.
func TestTopologiesFromLua(t *testing.T) {
	out, err := script(t, `
local i = fedlab.info(fedlab.topology.chain{}, 16)
print(string.format("%.5f %d %.1f %.1f", i.sigma2, i.edges, i.tau, i.tau_gt))
print(fedlab.info(fedlab.topology.matrix{ weights = { 0.5, 0.5, 0.5, 0.5 } }).nodes)
print(fedlab.topology.grid{ rows = 4 })
`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "0.98719 15 161.3 188.2\n2\ntopology \"grid\" {rows = 4}\n"; out != want {
		t.Fatalf("output %q, want %q", out, want)
	}
	mustFail(t, "local u = fedlab.topology.matrix{ weights = { 0.5, 0.4, 0.4, 0.5 } }", "script.lua:1: ",
		`topology "matrix"`, "not doubly stochastic: row 1 sums to 0.9")
	mustFail(t, "local u = fedlab.topology.matrix{ weights = { 1, 0, 0, 0, 0.5, 0.5, 0, 0.5, 0.5 } }", "script.lua:1: ",
		"disconnected")
	mustFail(t, `local i = fedlab.info(fedlab.topology.chain{})`, "script.lua:1: ", "give the number of nodes M")
}

// TestComponentParameterFromLua: a parameter of type Component takes the
// built topology, and a component of another kind is refused with both
// kinds named. (The spec is not registered, so that the other tests' lists
// of registered names stay as they are.)
func TestComponentParameterFromLua(t *testing.T) {
	spec := &registry.Spec{Kind: registry.Algorithm, Name: "gossip_probe", Doc: "probe",
		Params: []registry.Param{{Name: "topology", Type: registry.Component, Kind: registry.Topology, Default: "complete", Doc: "graph"}}}
	p, _ := spec.Param("topology")
	L := lua.NewState()
	defer L.Close()
	ring, _ := registry.Lookup(registry.Topology, "ring")
	in := &interp{L: L, builder: plan.NewBuilder()}
	c, err := in.newComponent(ring, L.NewTable())
	if err != nil {
		t.Fatal(err)
	}
	v, err := paramValue(spec, p, &lua.LUserData{Value: c})
	if _, ok := v.(topology.RingGraph); !ok || err != nil {
		t.Fatalf("paramValue = %v, %v; want the ring", v, err)
	}
	args, err := spec.Validate(map[string]any{"topology": v})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := args.Component("topology"); got != (topology.RingGraph{}) {
		t.Fatalf("Args.Component = %v", got)
	}
	loss := &component{spec: &registry.Spec{Kind: registry.Loss, Name: "test_squared"}}
	_, err = paramValue(spec, p, &lua.LUserData{Value: loss})
	if err == nil || !strings.Contains(err.Error(), `expected a topology (from fedlab.topology.*) or its name, got loss "test_squared"`) {
		t.Fatalf("a loss as topology: %v", err)
	}
}
