package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestToStringShowsNestedComponents: a component given as a parameter (a
// server optimizer, a topology, a schedule) prints as a component, and
// strings are quoted; the server optimizer printed as a raw Go struct
// ({{0.01 0.9 0.99 0.001}}).
func TestToStringShowsNestedComponents(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	src := `print(tostring(fedlab.algo.fedavg{ server = fedlab.opt.adam{ lr = 0.01 }, label = "FedAdam" }))
print(tostring(fedlab.algo.fedavg{ eta_c = fedlab.schedule.geometric{ start = 0.1, factor = 0.5, every = 10 } }))
print(tostring(fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6 }))
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("run", script, "--out", filepath.Join(dir, "out"), "--quiet")
	want := `algorithm "fedavg" (label "FedAdam") {server = optimizer "adam" {lr = 0.01}}
algorithm "fedavg" {eta_c = schedule "geometric" {every = 10, factor = 0.5, start = 0.1}}
dataset "lasso" {clients = 3, dim = 8, samples = 6, support = 2, variant = "custom"}
`
	if code != 0 || out != want {
		t.Fatalf("exit %d %s\ngot\n%s\nwant\n%s", code, stderr, out, want)
	}
}
