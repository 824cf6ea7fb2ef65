package registry_test

import (
	"testing"

	"github.com/fedlab/fedlab/registry"
)

// TestSuggest: the closest valid name within one edit for names of up to
// three characters and two edits otherwise, ignoring case, a transposition
// counting one edit; ties go to the first valid name; an exact name and
// far-off names get no suggestion.
func TestSuggest(t *testing.T) {
	algos := []string{"fedavg", "feddualavg", "feddualavg_osp", "fedmid", "fedprox"}
	for _, c := range []struct {
		name  string
		valid []string
		want  string
	}{
		{"feddualavgg", algos, "feddualavg"},     // one insertion
		{"feddualav", algos, "feddualavg"},       // one deletion
		{"fedmdi", algos, "fedmid"},              // one transposition
		{"FedAvg", algos, "fedavg"},              // case only
		{"fedpxor", algos, "fedprox"},            // two substitutions
		{"fedxyz", algos, ""},                    // three substitutions from fedavg: too far
		{"rnu", []string{"run", "table"}, "run"}, // a transposition in three letters
		{"f2", []string{"f1", "l1"}, "f1"},       // the first of two at one edit
		{"ab", []string{"xy"}, ""},               // two edits on two letters: too far
		{"rond", []string{"round", "rounds"}, "round"},
		{"completely_different", []string{"rate", "steps"}, ""},
		{"fedavg", algos, ""}, // an exact name is not suggested to itself
		{"lamda", []string{"lambda"}, "lambda"},
	} {
		if got := registry.Suggest(c.name, c.valid); got != c.want {
			t.Errorf("Suggest(%q, %v) = %q, want %q", c.name, c.valid, got, c.want)
		}
	}
	if got := registry.DidYouMean("opt_gapp", []string{"f1", "opt_gap"}); got != ` (did you mean "opt_gap"?)` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := registry.DidYouMean("zzz", []string{"f1", "opt_gap"}); got != "" {
		t.Errorf("DidYouMean of a far-off name = %q, want \"\"", got)
	}
}
