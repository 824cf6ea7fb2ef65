package pipeline

import (
	"testing"

	"github.com/fedlab/fedlab/core"
)

// A pipeline's flag that its model did not move is its first stage's,
// which starts from the pipeline's initial model: set (round 4, the second
// evaluated round) when λ makes the zero start optimal, unset when the
// model moves; later stages do not change it.
func TestAPipelineKeepsItsFirstStagesUnmovedFlag(t *testing.T) {
	s := settings
	s.Init = "zeros"
	for _, tc := range []struct {
		lambda float64
		want   int
	}{{1e6, 4}, {0.05, 0}} {
		pl := newPipeline(t, Spec{Problem: testProblem(t, tc.lambda), Settings: s, Metrics: testMetrics(t),
			Stages: []Stage{{Algorithm: "fedmid", Params: map[string]any{"eta_c": 0.01}, Rounds: 6},
				{Algorithm: "fedmid", Params: map[string]any{"eta_c": 0.01}, Rounds: 6}}})
		got := pl.Run(3, 0, 0, nil)
		if got.Status != core.Done || got.Unmoved != tc.want {
			t.Errorf("λ = %g: %s %s, Unmoved %d, want %d", tc.lambda, got.Status, got.Err, got.Unmoved, tc.want)
		}
	}
}
