package luaapi

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// countedChecks counts the calls of test_counted's Check: the validation
// of its parameters (Spec.Validate runs it once every parameter is valid).
var countedChecks atomic.Int64

// CountedParams are test_counted's parameters.
type CountedParams struct {
	Clients int `param:"clients" min:"1" doc:"number of clients"`
	Samples int `param:"samples" min:"1" doc:"samples per client"`
}

// Check counts its calls and refuses fewer samples than clients.
func (p CountedParams) Check() error {
	countedChecks.Add(1)
	if p.Samples < p.Clients {
		return fmt.Errorf("samples = %d is fewer than clients = %d", p.Samples, p.Clients)
	}
	return nil
}

func init() {
	registry.Define(registry.Dataset, "test_counted", "test_data whose validation counts itself",
		CountedParams{Clients: 2, Samples: 4},
		func(p CountedParams) (*core.Federated, error) {
			return registry.Build[*core.Federated](registry.Dataset, "test_data", map[string]any{"clients": p.Clients, "samples": p.Samples})
		})
}

// TestADatasetIsValidatedOnce: a dataset's parameters are validated once,
// by the plan builder, however many calls use it (the Lua binding and the
// plan validated it at its call, and the plan again at every call that
// used it); a bad parameter gives one error at the script line that
// writes it, naming the component, the key and the valid keys.
func TestADatasetIsValidatedOnce(t *testing.T) {
	before := countedChecks.Load()
	out, err := script(t, `local data = fedlab.data.test_counted{ clients = 2, samples = 4 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.test_squared{}, reg = fedlab.reg.test_l1{ lambda = 0.01 } }
fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 2, local_steps = 1 }
fedlab.run{ problem = problem, algorithm = fedlab.algo.test_gd{}, rounds = 3, local_steps = 1 }
print(fedlab.info(data).clients)
`, Options{Quiet: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.HasSuffix(out, "2\n") {
		t.Errorf("output %q, want the 2 clients last", out)
	}
	if n := countedChecks.Load() - before; n != 1 {
		t.Errorf("the dataset was validated %d times, want once", n)
	}

	before = countedChecks.Load()
	out, err = script(t, `local data = fedlab.data.test_counted{ clients = 2, samples = 4 }
local problem = fedlab.problem{ data = data, loss = fedlab.loss.test_squared{}, reg = fedlab.reg.test_l1{ lambda = 0.01 } }
fedlab.sweep{ problem = problem, algorithms = { fedlab.algo.test_gd{} }, rounds = 1, local_steps = 1, metrics = { 'test_objective' },
  grid = { ["data.samples"] = { 4, 8 }, eta_c = { 0.1, 0.2 } }, select = { metric = 'test_objective', mode = 'min' } }
`, Options{Quiet: true})
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := countedChecks.Load() - before; n != 2 {
		t.Errorf("a sweep over two values of samples validated its datasets %d times, want twice (samples = 4 and 8)", n)
	}

	cases := []struct {
		params, want string
		checks       int64
	}{
		{"clients = 2, sampels = 4", `script.lua:2: dataset "test_counted": unknown parameter "sampels" (did you mean "samples"?); valid keys: clients, samples`, 0},
		{"clients = 8, samples = 4", `script.lua:2: dataset "test_counted": samples = 4 is fewer than clients = 8`, 1},
	}
	for _, c := range cases {
		before := countedChecks.Load()
		out, err := script(t, "local x = 1\nlocal data = fedlab.data.test_counted{ "+c.params+" }\nprint('built')\n", Options{Quiet: true})
		if err == nil || err.Error() != c.want || strings.Contains(out, "built") {
			t.Errorf("%s: %q, %v\nwant the error %s", c.params, out, err, c.want)
		}
		if n := countedChecks.Load() - before; n != c.checks {
			t.Errorf("%s: Check ran %d times, want %d", c.params, n, c.checks)
		}
	}
}
