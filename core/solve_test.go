package core

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestSolveStopsWhenItsContextIsDone: --timeout reaches a reference solve
// in progress through SolveSettings.Context.
func TestSolveStopsWhenItsContextIsDone(t *testing.T) {
	p := testProblem(t, sizes(3, 5))
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("time limit 5s reached")
	cancel(cause)
	_, err := Solve(p, p.Penalty.At(0, p.Layout), nil, SolveSettings{Context: ctx})
	if !errors.Is(err, cause) || !strings.Contains(err.Error(), "reference solve stopped at iteration 1: time limit 5s reached") {
		t.Fatalf("error %v, want the solve stopped with the context's cause", err)
	}
	ref, err := Solve(p, p.Penalty.At(0, p.Layout), nil, SolveSettings{Context: context.Background()})
	if err != nil || ref.Residual > 1e-8 || ref.Solver != SolverFISTA {
		t.Fatalf("solve with a live context: %+v, %v; want FISTA's certificate ≤ 1e-8", ref, err)
	}
}
