package experiment

import (
	"slices"
	"testing"
)

// callLog is a CallExecutor that records the calls it is given.
type callLog []Call

func (l *callLog) ExecuteCall(c Call, jobs []Job) ([]Run, error) {
	*l = append(*l, c)
	return make([]Run, len(jobs)), nil
}

// TestRungsNameAndMarkEachRungsCall: each rung executes as one call of the
// executor, the sweep's call with the rung's name after the sweep's and
// the rung itself (a rung's name does not carry the previous rung's).
func TestRungsNameAndMarkEachRungsCall(t *testing.T) {
	var log callLog
	sweep := Call{Function: "fedlab.sweep", Name: "grid", Where: "s.lua:3", Select: []Rule{{Metric: "loss", Mode: "min"}}}
	exec := Rungs(&log, sweep)
	for _, r := range []Rung{{Index: 1, Of: 2, Rounds: 22}, {Index: 2, Of: 2, Rounds: 200}} {
		runs, err := exec.ExecuteRung(r, make([]Job, 3))
		if err != nil || len(runs) != 3 {
			t.Fatalf("rung %d: %d runs, %v", r.Index, len(runs), err)
		}
	}
	names := []string{"grid, rung 1 of 2 (22 rounds)", "grid, rung 2 of 2 (200 rounds)"}
	for i, c := range log {
		if c.Name != names[i] || c.Rung == nil || c.Rung.Index != i+1 || c.Rung.Rounds != []int{22, 200}[i] ||
			c.Function != sweep.Function || c.Where != sweep.Where || !slices.Equal(c.Select, sweep.Select) {
			t.Errorf("rung %d's call: %+v", i+1, c)
		}
	}
	if len(log) != 2 {
		t.Errorf("%d calls, want 2", len(log))
	}
}
