package experiment

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/fedlab/fedlab/core"
)

// heldBack is a Checkpoints that refuses to start the run of one key (as
// a run directory does with a checkpoint larger than the memory ceiling)
// and holds no checkpoint of the others.
type heldBack struct{ key string }

func (h heldBack) Resume(j *Job) ([]byte, time.Duration, error) {
	if j.Key == h.key {
		return nil, 0, errors.New("its checkpoint is held back")
	}
	return nil, 0, nil
}
func (heldBack) Save(*Job, int, time.Duration, []byte) error { return nil }
func (heldBack) Refused(j *Job, why string)                  { panic("refused: " + why) }
func (heldBack) Unsupported(j *Job, why string)              { panic("unsupported: " + why) }

// TestARunWhoseCheckpointIsHeldBackFailsAlone: when the store refuses to
// start a run (Resume's error), that run fails with the store's message
// and is not executed, and the other runs, one by one or in a cohort with
// it, give the records they give without checkpoints, bit for bit.
func TestARunWhoseCheckpointIsHeldBackFailsAlone(t *testing.T) {
	jobs := plan(t, testBase(t), []uint64{1, 2, 3}, AlgoSpec{Name: "fedavg", Params: map[string]any{"eta_c": 0.05}})
	free, err := Execute(jobs, Options{Jobs: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Options{{Jobs: 1}, {Jobs: 1, Cohorts: Cohorts{MaxState: 1 << 30}}} {
		o.Checkpoints = heldBack{key: jobs[1].Key}
		runs, err := Execute(jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("cohorts %v", o.Cohorts.MaxState > 0)
		if r := runs[1].Result; r.Status != core.Failed || r.Err != "its checkpoint is held back" || len(r.Records) != 0 {
			t.Errorf("%s: the held-back run: %s %q, %d records", what, r.Status, r.Err, len(r.Records))
		}
		for _, i := range []int{0, 2} {
			got, want := runs[i].Result, free[i].Result
			bits := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
			same := got.Status == core.Done && len(got.Records) == len(want.Records) && slices.EqualFunc(got.Model, want.Model, bits)
			for k := range got.Records {
				same = same && k < len(want.Records) && got.Records[k].Round == want.Records[k].Round &&
					slices.EqualFunc(got.Records[k].Values, want.Records[k].Values, bits)
			}
			if !same {
				t.Errorf("%s: run %d: %s %q, %d records; without checkpoints %d records, or other values", what, i, got.Status, got.Err, len(got.Records), len(want.Records))
			}
		}
	}
}
