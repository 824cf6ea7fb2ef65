package registry_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// contextProbe is the params struct of a component built with its context.
type contextProbe struct {
	Start float64 `param:"start" doc:"value"`
}

// contextSeen is the context contextProbe's factory received last.
var contextSeen registry.BuildContext

func init() {
	registry.DefineWith(registry.Schedule, "test_context_probe", "records the context it is built with", contextProbe{Start: 1},
		func(c registry.BuildContext, p contextProbe) (sched.Schedule, error) {
			contextSeen = c
			c.Note("built with start = %g", p.Start)
			return sched.Constant(p.Start), nil
		})
}

// The factory of DefineWith receives the context given to
// Args.WithContext: the plan's ceiling, its context and its notice
// channel; without one, the process's default ceiling, no deadline and
// no notices.
func TestDefineWithHandsTheContextToTheFactory(t *testing.T) {
	spec, ok := registry.Lookup(registry.Schedule, "test_context_probe")
	if !ok {
		t.Fatal("test_context_probe not registered")
	}
	if len(spec.Params) != 1 || spec.Params[0].Name != "start" {
		t.Fatalf("params %+v, expected start only", spec.Params)
	}
	a, err := spec.Validate(map[string]any{"start": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	plan := budget.Budget{Limit: 48 << 20, Source: "--max-memory"}
	ctx, cancel := context.WithCancelCause(context.Background())
	var notices bytes.Buffer
	s, err := registry.BuildArgs[sched.Schedule](a.WithContext(registry.BuildContext{Memory: plan, Context: ctx, Notices: &notices}))
	if err != nil {
		t.Fatal(err)
	}
	if s.At(0) != 2 {
		t.Errorf("built %v, expected the constant 2", s.At(0))
	}
	if got := contextSeen.Budget(); got != plan {
		t.Errorf("with the plan's ceiling the factory got %+v, expected %+v", got, plan)
	}
	if got, want := notices.String(), "fedlab: built with start = 2\n"; got != want {
		t.Errorf("notices %q, expected %q", got, want)
	}
	if contextSeen.Err() != nil {
		t.Errorf("a running context reports %v", contextSeen.Err())
	}
	stop := errors.New("--timeout 1s reached")
	cancel(stop)
	if !errors.Is(contextSeen.Err(), stop) {
		t.Errorf("a cancelled context reports %v, expected its cause %v", contextSeen.Err(), stop)
	}

	if _, err := registry.BuildArgs[sched.Schedule](a); err != nil {
		t.Fatal(err)
	}
	// the default share of the process's limits (MemAvailable moves
	// between two reads, so its source is compared, not its size)
	if got, def := contextSeen.Budget(), budget.Ceiling(0); got == plan || got.Source != def.Source {
		t.Errorf("without a context the factory got %+v, expected the default %+v", got, def)
	}
	if contextSeen.Err() != nil || contextSeen.Notices != nil {
		t.Errorf("without a context the factory got a deadline or a notice channel: %+v", contextSeen)
	}
	contextSeen.Note("goes nowhere") // no channel: no panic
}
