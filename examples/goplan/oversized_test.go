package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/luaapi"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/registry"
)

// TestOversizedPlanGetsTheScriptsError: a Go program whose plan asks for
// too much — a dataset larger than its memory ceiling (as the dataset
// declares its size), more rounds than a run may have, model state of
// every client beyond the ceiling — gets the same refusal, before anything
// is allocated, as the script asking for the same under fedlab run
// --max-memory (these checks lived in the Lua front end only).
func TestOversizedPlanGetsTheScriptsError(t *testing.T) {
	const ceiling = 1 << 30
	problem := func(data string, params map[string]any) plan.Problem {
		return plan.Problem{Data: component(registry.Dataset, data, params),
			Loss: component(registry.Loss, "squared", nil), Reg: component(registry.Regularizer, "l1", map[string]any{"lambda": 0.1})}
	}
	small := map[string]any{"variant": "custom", "dim": 8, "support": 2, "clients": 3, "samples": 6, "test_samples": 0}
	for _, c := range []struct {
		name   string
		plan   plan.Compare
		script string
		want   string
	}{
		{"data", plan.Compare{
			Problem:    problem("sparse_ar1", map[string]any{"dim": 64, "support": 8, "clients": 1_000_000, "samples": 1000, "test_samples": 0}),
			Algorithms: []plan.Algorithm{{Component: component(registry.Algorithm, "fedavg", nil)}},
			Settings:   core.Settings{Rounds: 2, LocalSteps: 1}},
			`local data = fedlab.data.sparse_ar1{ dim = 64, support = 8, clients = 1000000, samples = 1000, test_samples = 0 }`,
			`dataset "sparse_ar1" (clients = 1000000, samples = 1000, test_samples = 0, dim = 64) needs about`},
		{"preset sizes", plan.Compare{
			Problem:    problem("lasso", map[string]any{"variant": "IV", "dim": 1_000_000}),
			Algorithms: []plan.Algorithm{{Component: component(registry.Algorithm, "fedavg", nil)}},
			Settings:   core.Settings{Rounds: 2, LocalSteps: 1}},
			`local data = fedlab.data.lasso{ variant = "IV", dim = 1000000 }`,
			`dataset "lasso" (clients = 256, samples = 32, test_samples = 32, dim = 1000000) needs about`},
		{"rounds", plan.Compare{
			Problem:    problem("lasso", small),
			Algorithms: []plan.Algorithm{{Component: component(registry.Algorithm, "fedavg", nil)}},
			Settings:   core.Settings{Rounds: 1e12, LocalSteps: 1}},
			`local p = fedlab.problem{ data = fedlab.data.lasso{ variant = "custom", dim = 8, support = 2, clients = 3, samples = 6, test_samples = 0 },
  loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.fedavg{} }, rounds = 1e12, local_steps = 1 }`,
			`rounds = 1000000000000 is too large`},
		{"state", plan.Compare{
			Problem: problem("lasso", map[string]any{"variant": "custom", "dim": 400000, "support": 2, "clients": 200, "samples": 1,
				"test_samples": 0, "density": 0.00001, "format": "sparse"}),
			Algorithms: []plan.Algorithm{{Component: component(registry.Algorithm, "scaffold", nil)}},
			Settings:   core.Settings{Rounds: 2, LocalSteps: 1}},
			`local p = fedlab.problem{ data = fedlab.data.lasso{ variant = "custom", dim = 400000, support = 2, clients = 200, samples = 1,
  test_samples = 0, density = 0.00001, format = "sparse" }, loss = fedlab.loss.squared{}, reg = fedlab.reg.l1{ lambda = 0.1 } }
fedlab.compare{ problem = p, algorithms = { fedlab.algo.scaffold{} }, rounds = 2, local_steps = 1 }`,
			`the state of 1 runs at once (200 clients, 400001 parameters) needs about`},
	} {
		b := plan.NewBuilder()
		b.Limits = plan.NewLimits(ceiling, 1)
		_, goErr := b.Compare(c.plan)
		script := filepath.Join(t.TempDir(), "s.lua")
		if err := os.WriteFile(script, []byte(c.script+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, luaErr := luaapi.RunFile(script, luaapi.Options{MaxMemory: ceiling, Jobs: 1, Quiet: true})
		if goErr == nil || luaErr == nil {
			t.Errorf("%s: not refused: Go %v, Lua %v", c.name, goErr, luaErr)
			continue
		}
		if !strings.Contains(goErr.Error(), c.want) || !strings.Contains(luaErr.Error(), c.want) {
			t.Errorf("%s:\nGo: %v\nLua: %v\nwant both to contain %q", c.name, goErr, luaErr, c.want)
			continue
		}
		tail := func(err error) string { return err.Error()[strings.Index(err.Error(), c.want):] }
		if tail(goErr) != tail(luaErr) {
			t.Errorf("%s: the messages differ:\nGo:  %s\nLua: %s", c.name, tail(goErr), tail(luaErr))
		}
	}
}
