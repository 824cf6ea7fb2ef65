package experiment

import (
	"fmt"
	"slices"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment/pipeline"
)

// TestCohortGrouping checks which jobs Execute runs together: compatible
// jobs (one problem, settings and metrics; any seed) up to MaxCohort and
// the byte bound, in the order of their first job; pipelines and jobs with
// other settings apart; none at all without a byte bound, or for data
// smaller than MinData.
func TestCohortGrouping(t *testing.T) {
	base := testBase(t)
	var specs []AlgoSpec
	for k := range 10 {
		specs = append(specs, AlgoSpec{Name: "test_gd", Label: fmt.Sprint("gd ", k), Params: map[string]any{"eta_c": 0.01 * float64(k+1)}})
	}
	jobs := plan(t, base, []uint64{1, 2}, specs...) // 20 compatible jobs
	other := base
	other.Settings.Rounds = 7
	jobs = append(jobs, plan(t, other, []uint64{1}, AlgoSpec{Name: "test_gd", Params: map[string]any{"eta_c": 0.1}})...)
	staged := jobs[0]
	staged.Stages = &pipeline.Pipeline{}
	jobs = append(jobs, staged)
	per := jobs[0].StateBytes()
	seq := func(from, to int) []int {
		var s []int
		for i := from; i < to; i++ {
			s = append(s, i)
		}
		return s
	}
	for _, c := range []struct {
		name  string
		bytes uint64
		want  [][]int
	}{
		{"no bound: one by one", 0, func() [][]int {
			var u [][]int
			for i := range jobs {
				u = append(u, []int{i})
			}
			return u
		}()},
		{"at most MaxCohort", 1 << 40, [][]int{seq(0, 16), {16, 17, 18, 19}, {20}, {21}}},
		{"at most 3 by bytes", 3 * per, [][]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}, {12, 13, 14}, {15, 16, 17}, {18, 19}, {20}, {21}}},
	} {
		got := cohorts(jobs, Cohorts{MaxState: c.bytes})
		if !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("%s: units %v, want %v", c.name, got, c.want)
		}
	}
	data := dataBytes(jobs[0].Problem)
	if want := uint64(6*base.Problem.Data.Train[0].N*base.Problem.Data.Features) * 8; data != want {
		t.Fatalf("the problem's data is %d bytes, want %d", data, want)
	}
	shared := &core.Federated{Name: "shared design", Features: 3}
	x := []float64{1, 2, 3, 4, 5, 6}
	for range 4 {
		shared.Train = append(shared.Train, &core.Data{X: x, Y: []float64{0, 1}, N: 2, Features: 3})
	}
	sp, err := core.NewProblem(shared, base.Problem.Loss, base.Problem.Penalty, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := dataBytes(sp); got != 48 {
		t.Fatalf("4 clients sharing one 2×3 design hold %d bytes, want 48 (counted once)", got)
	}
	for _, min := range []uint64{data, data + 1} {
		got := cohorts(jobs, Cohorts{MaxState: 1 << 40, MinData: min})
		if alone := len(got) == len(jobs); alone != (min > data) {
			t.Errorf("MinData %d for %d bytes of data: %d units of %d jobs", min, data, len(got), len(jobs))
		}
	}
}
