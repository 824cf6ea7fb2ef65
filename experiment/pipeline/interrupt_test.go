package pipeline

import (
	"testing"

	"github.com/fedlab/fedlab/core"
)

// An interrupted pipeline stops at a round boundary of its current stage.
func TestRunInterruptibleStopsAtARoundBoundary(t *testing.T) {
	prob := testProblem(t, 0.05)
	pl := newPipeline(t, Spec{Problem: prob, Settings: settings, Metrics: testMetrics(t), Restart: Last,
		Stages: []Stage{{Algorithm: "feddualavg", Params: map[string]any{"eta_c": 0.005}, Rounds: 6}, {Rounds: 8}}})
	done := 0 // rounds completed over the stages, as progress reports them
	progress := func(d, total int) { done = d }
	res := pl.RunInterruptible(1, 0, 0, progress, func() bool { return done >= 9 }) // 6 rounds of stage 1, 3 of stage 2
	if res.Status != core.Interrupted || res.Err != "stage 2: interrupted after 3 of 8 rounds" {
		t.Errorf("status %s, %q", res.Status, res.Err)
	}
	if whole := pl.Run(1, 0, 0, nil); whole.Status != core.Done {
		t.Errorf("uninterrupted: %s", whole.Status)
	}
}
