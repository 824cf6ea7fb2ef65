package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/registry"
)

// System effects enter the run identity (so keys differ) only when given
// (so runs without them keep their keys), and an algorithm that does not
// declare an effect is refused when the jobs are made.
func TestSystemEffectsInIdentityAndRefusal(t *testing.T) {
	b := NewBuilder()
	algo := []Algorithm{{Component: comp(registry.Algorithm, "fedmid", nil)}}
	plain, err := b.Compare(Compare{Problem: lasso, Algorithms: algo, Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	drop := comp(registry.Availability, "dropout", map[string]any{"p": 0.3})
	sys := System{Availability: &drop}
	with, err := b.Compare(Compare{Problem: lasso, Algorithms: algo, Settings: settings, System: sys})
	if err != nil {
		t.Fatal(err)
	}
	pj, _ := json.Marshal(plain[0].Identity)
	wj, _ := json.Marshal(with[0].Identity)
	if strings.Contains(string(pj), "availability") || !strings.Contains(string(wj), `"availability":{"name":"dropout","params":{"p":0.3}}`) {
		t.Fatalf("identities:\n%s\n%s", pj, wj)
	}
	if plain[0].Key == with[0].Key || with[0].Settings.Availability == nil {
		t.Fatal("dropout left the key or the settings unchanged")
	}
	_, err = b.Compare(Compare{Problem: lasso, Algorithms: []Algorithm{{Component: comp(registry.Algorithm, "fedpd", nil)}},
		Settings: settings, System: sys})
	if err == nil || !strings.Contains(err.Error(), `algorithm "fedpd" cannot take dropped clients`) {
		t.Fatalf("fedpd under dropout: %v", err)
	}
}
