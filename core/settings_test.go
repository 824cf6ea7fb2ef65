package core

import (
	"slices"
	"strings"
	"testing"
)

// A run continues from Settings.Carry and evaluates exactly the rounds
// listed in Settings.EvalRounds; the other rounds run unchanged (the
// models after the last round equal those of a run evaluated every round).
func TestCarryAndEvalRounds(t *testing.T) {
	p := testProblem(t, sizes(1, 2, 3, 4))
	base := Settings{Rounds: 6, ClientsPerRound: 2, LocalEpochs: 1, Batch: 2, Seed: 3, RoundOffset: 10, EvalEvery: 1}
	every := Run(p, &recorder{}, base, nil)
	s := base
	s.Carry = Counts{Up: 1000, Down: 2000, CommRounds: 7, Samples: 30}
	s.EvalRounds = []int{16, 11, 13}
	got := Run(p, &recorder{}, s, nil)
	if got.Status != Done || every.Status != Done {
		t.Fatal(got.Err, every.Err)
	}
	var rounds []int
	for _, r := range got.Records {
		rounds = append(rounds, r.Round)
		ref := every.Records[r.Round-10]
		if r.Up != ref.Up+1000 || r.Down != ref.Down+2000 || r.CommRounds != ref.CommRounds+7 || r.Samples != ref.Samples+30 {
			t.Errorf("round %d: counts %+v, want %+v plus the carry", r.Round, r, ref)
		}
	}
	if !slices.Equal(rounds, []int{11, 13, 16}) {
		t.Errorf("evaluated rounds %v, want 11, 13, 16", rounds)
	}
	if !slices.Equal(got.Model, every.Model) {
		t.Error("the evaluation grid changed the model")
	}
	s.EvalRounds = []int{9}
	if r := Run(p, &recorder{}, s, nil); r.Status != Failed || !strings.Contains(r.Err, "outside") {
		t.Errorf("a round before the run: %s %q", r.Status, r.Err)
	}
}

// wrapper hides nothing: As finds capabilities through Unwrap.
type wrapper struct{ Algorithm }

func (w wrapper) Unwrap() Algorithm { return w.Algorithm }

type chooser struct{ recorder }

func (chooser) Participants(int) []int { return []int{1} }

func TestAsLooksThroughWrappers(t *testing.T) {
	var alg Algorithm = wrapper{wrapper{&chooser{}}}
	if _, ok := alg.(Participants); ok {
		t.Fatal("the wrapper implements Participants itself; the test needs one that does not")
	}
	p, ok := As[Participants](alg)
	if !ok || !slices.Equal(p.Participants(4), []int{1}) {
		t.Fatalf("As did not find the wrapped algorithm's participants")
	}
	if _, ok := As[Gossiper](alg); ok {
		t.Fatal("As found a capability nobody has")
	}
}
