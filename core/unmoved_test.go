package core

import (
	"math"
	"testing"
)

// frozen is a stateful algorithm whose updates are zero: every client
// sends the broadcast model back unchanged.
type frozen struct{ stepper }

func (a *frozen) ClientUpdate(_ *Round, c *Client, _, up *Message) {
	copy(up.Vecs[0], a.w)
	up.Scalars[0] = float64(c.Steps)
}

// A model that is still its initial value at the second evaluated round
// after the start is flagged with that round (the last evaluated round
// when there are fewer); a model that moves is not; a divergence before
// the comparison leaves no flag.
func TestUnmovedModelIsFlaggedAtTheSecondEvaluation(t *testing.T) {
	p := testProblem(t, sizes(1, 2))
	for _, tc := range []struct {
		name string
		alg  Algorithm
		s    Settings
		want int
	}{
		{"frozen, every 2 rounds", &frozen{}, Settings{Rounds: 10, LocalSteps: 1, EvalEvery: 2}, 4},
		{"frozen, rounds 3 and 7 evaluated", &frozen{}, Settings{Rounds: 10, LocalSteps: 1, EvalRounds: []int{0, 3, 7, 10}}, 7},
		{"frozen, only the last round evaluated", &frozen{}, Settings{Rounds: 5, LocalSteps: 1, EvalEvery: 10}, 5},
		{"frozen, a later stage (offset 100)", &frozen{}, Settings{Rounds: 10, LocalSteps: 1, EvalEvery: 2, RoundOffset: 100}, 104},
		{"growing by 1 (w = 1 stays 1)", &growing{factor: 1}, Settings{Rounds: 10, LocalSteps: 1, EvalEvery: 2}, 4},
		{"growing by 2 (moves)", &growing{factor: 2}, Settings{Rounds: 10, LocalSteps: 1, EvalEvery: 2}, 0},
		{"stepper (moves)", &stepper{}, Settings{Rounds: 10, LocalSteps: 1, EvalEvery: 2}, 0},
		{"growing by 1e6 (diverges at round 2, before the comparison)", &growing{factor: 1e6}, Settings{Rounds: 10, LocalSteps: 1, EvalEvery: 2}, 0},
	} {
		res := Run(p, tc.alg, tc.s, []Metric{objectiveMetric{}})
		if res.Unmoved != tc.want {
			t.Errorf("%s: Unmoved %d (%s %s), want %d", tc.name, res.Unmoved, res.Status, res.Err, tc.want)
		}
	}
}

// The note states the fact and both explanations, word for word.
func TestUnmovedNote(t *testing.T) {
	want := "model did not move: at round 20 it was bit for bit its initial value " +
		"(expected only if the initial model is already optimal, e.g. zero under a large λ; otherwise check init and the step sizes)"
	if got := UnmovedNote(20); got != want {
		t.Fatalf("note\n%q, want\n%q", got, want)
	}
}

// −0 is not 0: a model whose entry became −0 moved.
func TestSameBitsTellsNegativeZeroApart(t *testing.T) {
	if sameBits([]float64{0, 1}, []float64{math.Copysign(0, -1), 1}) || !sameBits([]float64{0, 1}, []float64{0, 1}) {
		t.Fatal("sameBits: want 0 ≠ −0 and equal vectors equal")
	}
}

// In a cohort each member is compared on its own; a run resumed from a
// checkpoint taken before the comparison flags the same round as the run
// uninterrupted, one resumed from a later checkpoint the checkpoint's
// round (the comparison of the run before it is not in the checkpoint).
func TestUnmovedInCohortsAndResumedRuns(t *testing.T) {
	p := testProblem(t, sizes(3, 4, 5, 6))
	s := Settings{Rounds: 6, LocalSteps: 3, Batch: 2, EvalEvery: 2, Seed: 5, CheckpointKey: "k"}
	m := []Metric{objectiveMetric{}}
	res := RunCohort(p, []Member{{&frozen{}, s}, {&stepper{}, s}}, m)
	if res[0].Unmoved != 4 || res[1].Unmoved != 0 {
		t.Fatalf("cohort: Unmoved %d and %d, want 4 (frozen) and 0 (stepper)", res[0].Unmoved, res[1].Unmoved)
	}
	for r, want := range map[int]int{1: 4, 3: 4, 4: 4, 5: 5} {
		rs := s
		rs.Resume = checkpointAfter(t, p, &frozen{}, s, r, m...)
		if got := Run(p, &frozen{}, rs, m); got.Unmoved != want {
			t.Errorf("resumed after round %d: Unmoved %d (%s %s), want %d", r, got.Unmoved, got.Status, got.Err, want)
		}
		rs.Resume = checkpointAfter(t, p, &stepper{}, s, r, m...)
		if got := Run(p, &stepper{}, rs, m); got.Unmoved != 0 {
			t.Errorf("stepper resumed after round %d: Unmoved %d, want 0", r, got.Unmoved)
		}
	}
}
