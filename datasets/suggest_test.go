package datasets

import (
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// TestMisspelledMethodsSuggest: a partition method or a scaling a Go
// caller misspells is named with the closest valid one and the valid ones.
func TestMisspelledMethodsSuggest(t *testing.T) {
	d := &core.Data{Y: []float64{0, 1, 0, 1}}
	_, err := Partition(d, 2, "dirichelt", 2, 0.5, 1, rand.New(rand.NewPCG(1, 2)))
	if want := `unknown partition method "dirichelt" (did you mean "dirichlet"?); known: iid, dirichlet, shards`; err == nil || err.Error() != want {
		t.Errorf("Partition: %v, want %s", err, want)
	}
	err = Scale(&core.Federated{}, "maxab")
	if want := `unknown scaling "maxab" (did you mean "maxabs"?); known: none, maxabs, unit_norm, standardize`; err == nil || err.Error() != want {
		t.Errorf("Scale: %v, want %s", err, want)
	}
}
