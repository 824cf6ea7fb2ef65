package plan

import (
	"sync/atomic"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// planCountedChecks counts the calls of test_plan_counted's Check.
var planCountedChecks atomic.Int64

// PlanCountedParams are test_plan_counted's parameters: sparse_ar1's
// clients, with a Check that counts its calls (exported, as every params
// type of a Define'd component is: TestEveryComponentHasAnExportedParamsType).
type PlanCountedParams struct {
	Clients int `param:"clients" min:"1" doc:"number of clients"`
}

// Check counts its calls.
func (PlanCountedParams) Check() error { planCountedChecks.Add(1); return nil }

func init() {
	registry.Define(registry.Dataset, "test_plan_counted", "sparse_ar1 whose validation counts itself",
		PlanCountedParams{Clients: 4},
		func(p PlanCountedParams) (*core.Federated, error) {
			return registry.Build[*core.Federated](registry.Dataset, "sparse_ar1",
				map[string]any{"dim": 16, "support": 4, "clients": p.Clients, "samples": 10, "test_samples": 0})
		})
}

// TestABuilderValidatesADatasetOnce: a Go plan's dataset, built and then
// used by two problems (with an equal map of its own), is validated once;
// another value of a parameter is another dataset, validated once more.
func TestABuilderValidatesADatasetOnce(t *testing.T) {
	b := NewBuilder()
	before := planCountedChecks.Load()
	data := comp(registry.Dataset, "test_plan_counted", map[string]any{"clients": 4})
	if _, err := b.Dataset(data); err != nil {
		t.Fatal(err)
	}
	for _, params := range []map[string]any{{"clients": 4}, {"clients": 4}} {
		p := lasso
		p.Data = comp(registry.Dataset, "test_plan_counted", params)
		if _, _, err := b.Problem(p); err != nil {
			t.Fatal(err)
		}
	}
	if n := planCountedChecks.Load() - before; n != 1 {
		t.Errorf("validated %d times, want once", n)
	}
	p := lasso
	p.Data = comp(registry.Dataset, "test_plan_counted", map[string]any{"clients": 2})
	if _, _, err := b.Problem(p); err != nil {
		t.Fatal(err)
	}
	if n := planCountedChecks.Load() - before; n != 2 {
		t.Errorf("validated %d times after a second dataset, want twice", n)
	}
}
