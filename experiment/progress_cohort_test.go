package experiment_test

import (
	"io"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// TestProgressCountsTheRoundsOfCohorts: the rounds planned for a call are
// those of all its runs, and runs executed together in cohorts report
// every round they complete, as runs executed one by one do; a run that
// diverged has no rounds left.
func TestProgressCountsTheRoundsOfCohorts(t *testing.T) {
	const rounds = 12
	jobs := cohortJobs(t, rounds)
	for _, o := range []experiment.Options{{Jobs: 2}, {Jobs: 2, Cohorts: experiment.Cohorts{MaxState: 1 << 30}}} {
		p := experiment.NewProgress(io.Discard, false, "call 1", len(jobs), 0)
		o.Progress = p
		runs, err := experiment.Execute(jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		var want int64
		cohorts := 0
		for _, r := range runs {
			n := int64(rounds)
			if r.Result.Status == core.Diverged {
				n = int64(r.Result.DivergedAt) - 1 // the round it diverged at is not completed
			}
			want += n
			cohorts += min(r.Result.Cohort, 1)
		}
		if o.Cohorts.MaxState > 0 && cohorts != len(runs) {
			t.Fatalf("%d of %d runs executed in cohorts; want all", cohorts, len(runs))
		}
		completed, accounted, planned := p.Counts()
		if planned != int64(len(jobs)*rounds) || accounted != planned || completed != want {
			t.Errorf("cohorts %v: %d rounds completed, %d accounted for, %d planned; want %d, %d, %d",
				o.Cohorts.MaxState > 0, completed, accounted, planned, want, len(jobs)*rounds, len(jobs)*rounds)
		}
	}
}
