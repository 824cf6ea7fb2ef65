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
// a dataset larger than its memory ceiling gets the same refusal, before
// anything is generated, as the script asking for the same data under
// fedlab run --max-memory (the check lived in the Lua front end only).
func TestOversizedPlanGetsTheScriptsError(t *testing.T) {
	const ceiling = 1 << 30
	data := map[string]any{"dim": 64, "support": 8, "clients": 1_000_000, "samples": 1000, "test_samples": 0}
	b := plan.NewBuilder()
	b.CheckData = plan.MemoryCeiling(ceiling)
	_, goErr := b.Compare(plan.Compare{
		Problem: plan.Problem{Data: component(registry.Dataset, "sparse_ar1", data),
			Loss: component(registry.Loss, "squared", nil), Reg: component(registry.Regularizer, "l1", map[string]any{"lambda": 0.1})},
		Algorithms: []plan.Algorithm{{Component: component(registry.Algorithm, "fedavg", nil)}},
		Settings:   core.Settings{Rounds: 2, LocalSteps: 1},
	})
	script := filepath.Join(t.TempDir(), "s.lua")
	src := `local data = fedlab.data.sparse_ar1{ dim = 64, support = 8, clients = 1000000, samples = 1000, test_samples = 0 }` + "\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, luaErr := luaapi.RunFile(script, luaapi.Options{MaxMemory: ceiling, Quiet: true})
	if goErr == nil || luaErr == nil {
		t.Fatalf("not refused: Go %v, Lua %v", goErr, luaErr)
	}
	const want = `dataset "sparse_ar1" (clients = 1000000, samples = 1000, test_samples = 0, dim = 64) needs about`
	if !strings.Contains(goErr.Error(), want) || !strings.Contains(luaErr.Error(), want) {
		t.Fatalf("Go: %v\nLua: %v\nwant both to contain %q", goErr, luaErr, want)
	}
	tail := func(err error) string { return err.Error()[strings.Index(err.Error(), want):] }
	if tail(goErr) != tail(luaErr) {
		t.Errorf("the messages differ:\nGo:  %s\nLua: %s", tail(goErr), tail(luaErr))
	}
}
