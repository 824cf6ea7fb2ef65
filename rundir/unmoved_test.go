package rundir

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// A run whose model did not move (test_gd with eta_c = 0 from zeros) is
// flagged in its result file, its manifest entry and the session's
// summary, and comes back flagged when a later session reuses it; the run
// that moves is not flagged.
func TestUnmovedRunRoundTrips(t *testing.T) {
	base := sweepJobs(t)[0].Base
	var jobs []experiment.Job
	for _, v := range []float64{0, 0.1} {
		js, err := experiment.Jobs(base, experiment.AlgoSpec{Name: "test_gd", Params: map[string]any{"eta_c": v}},
			experiment.NewConfig(experiment.NewSetting("eta_c", v)), []uint64{1})
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, js...)
	}
	dir := t.TempDir()
	note := "sweep.lua:3 fedlab.sweep: test_gd seed 1 (run " + jobs[0].Key + "): " + core.UnmovedNote(8)
	for session_, wantRan := range []int{2, 0} {
		runs, sum, err := session(t, dir, Options{}, jobs)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Ran != wantRan || runs[0].Result.Unmoved != 8 || runs[1].Result.Unmoved != 0 {
			t.Fatalf("session %d: ran %d (want %d), Unmoved %d and %d, want 8 (rounds 4 and 8 evaluated) and 0",
				session_+1, sum.Ran, wantRan, runs[0].Result.Unmoved, runs[1].Result.Unmoved)
		}
		if len(sum.Unmoved) != 1 || sum.Unmoved[0].String() != note {
			t.Fatalf("session %d: summary lists %v, want\n%s", session_+1, sum.Unmoved, note)
		}
		if got := sum.String(); got != "2 runs ("+map[int]string{2: "2 ran", 0: "2 reused"}[wantRan]+", 1 did not move) in "+dir {
			t.Fatalf("session %d: summary %q", session_+1, got)
		}
	}
	m, _, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Runs[jobs[0].Key].Unmoved != 8 || m.Runs[jobs[1].Key].Unmoved != 0 {
		t.Fatalf("manifest: unmoved_at %d and %d, want 8 and 0", m.Runs[jobs[0].Key].Unmoved, m.Runs[jobs[1].Key].Unmoved)
	}
	b, err := os.ReadFile(filepath.Join(dir, resultPath(jobs[0].Key)))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Unmoved *int `json:"unmoved_at"`
	}
	if err := json.Unmarshal(b, &f); err != nil || f.Unmoved == nil || *f.Unmoved != 8 {
		t.Fatalf("result file: unmoved_at %v (%v), want 8", f.Unmoved, err)
	}
}
