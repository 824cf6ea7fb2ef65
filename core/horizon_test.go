package core

import (
	"fmt"
	"testing"
)

// A checkpoint rekeyed to another run verifies under the new key only and
// resumes it; damaged data is refused as VerifyCheckpoint refuses it.
func TestRekeyCheckpoint(t *testing.T) {
	p := testProblem(t, sizes(3, 4, 5, 6))
	m := []Metric{objectiveMetric{}}
	s := Settings{Rounds: 4, LocalSteps: 2, Batch: 2, ClientsPerRound: 2, EvalEvery: 2, Seed: 5, CheckpointKey: "short"}
	data := checkpointAfter(t, p, &stepper{}, s, 4, m...)
	long, err := RekeyCheckpoint(data, "short", "long")
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyCheckpoint(long, "long"); err != nil {
		t.Errorf("rekeyed: %v", err)
	}
	if err := VerifyCheckpoint(long, "short"); err == nil || err.Error() != `checkpoint belongs to run "long", not to this run "short"` {
		t.Errorf("rekeyed, under the old key: %v", err)
	}
	if _, err := RekeyCheckpoint(data, "other", "long"); err == nil || err.Error() != `checkpoint belongs to run "short", not to this run "other"` {
		t.Errorf("from another key: %v", err)
	}
	if _, err := RekeyCheckpoint(data[:len(data)-1], "short", "long"); err == nil || err.Error() != fmt.Sprintf("checkpoint is truncated (%d bytes)", len(data)-1) {
		t.Errorf("truncated: %v", err)
	}
}

// Evaluates is the engine's grid: first, last and every EvalEvery-th
// round, or EvalRounds, in global indices.
func TestEvaluates(t *testing.T) {
	grid := func(s Settings) (out []int) {
		for r := -1; r <= s.RoundOffset+s.Rounds+1; r++ {
			if s.Evaluates(r) {
				out = append(out, r)
			}
		}
		return out
	}
	if got := grid(Settings{Rounds: 7, EvalEvery: 3}); fmt.Sprint(got) != "[0 3 6 7]" {
		t.Errorf("every 3 of 7: %v", got)
	}
	if got := grid(Settings{Rounds: 5, RoundOffset: 10, EvalRounds: []int{12, 10}}); fmt.Sprint(got) != "[10 12]" {
		t.Errorf("eval rounds: %v", got)
	}
}
