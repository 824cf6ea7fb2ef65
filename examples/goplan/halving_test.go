package main

import (
	"slices"
	"testing"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/plan"
	"github.com/fedlab/fedlab/rundir"
)

// TestHalvingFromGo: the Go counterpart of fedlab.sweep's halving key,
// plan.HalvingPlanner, driven here, runs rungs of 20 and 60 rounds through a run
// directory; with eta = 1 it plans exactly the full grid's jobs.
func TestHalvingFromGo(t *testing.T) {
	x := build()
	sw := x.Sweep
	b := plan.NewBuilder()
	full, err := b.Sweep(sw)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := rundir.Open("", rundir.Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var rungRounds []int
	// halve drives the planner: each rung's jobs run as one call of the directory
	halve := func(h experiment.Halving) ([]experiment.Run, []experiment.Selection) {
		t.Helper()
		p, err := b.Halving(sw, h)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rung, jobs, ok, err := p.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			rungRounds = append(rungRounds, rung.Rounds)
			for _, j := range jobs {
				keys = append(keys, j.Key)
			}
			runs, err := dir.Execute("sweep", "goplan:halving", sw.Select, jobs)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Report(runs); err != nil {
				t.Fatal(err)
			}
		}
		return p.Result()
	}
	halve(experiment.Halving{Eta: 1, First: 20})
	var fullKeys []string
	for _, j := range full {
		fullKeys = append(fullKeys, j.Key)
	}
	if !slices.Equal(keys, fullKeys) || !slices.Equal(rungRounds, []int{sw.Settings.Rounds}) {
		t.Fatalf("eta = 1 planned %d jobs in rungs %v, the full grid %d", len(keys), rungRounds, len(fullKeys))
	}
	keys, rungRounds = nil, nil
	last, sels := halve(experiment.Halving{Eta: 3, First: 20})
	if !slices.Equal(rungRounds, []int{20, 60}) || len(sels) != 1 || sels[0].Best < 0 || len(last) == 0 {
		t.Fatalf("rungs %v, %d selections, best %v", rungRounds, len(sels), sels)
	}
	if c := sels[0].Candidates[sels[0].Best]; c.Rung != 2 || c.Rounds != 60 {
		t.Errorf("the selected configuration stopped at rung %d (%d rounds), want the last", c.Rung, c.Rounds)
	}
}
