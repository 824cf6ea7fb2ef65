// Package experimenttest makes runs with known records for the tests of
// the packages that store and present runs (rundir/runfile,
// present/report), as net/http/httptest serves net/http's tests.
package experimenttest

import (
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
)

// Run makes a run of label and seed whose metrics are "acc" = base +
// round/100, "samples" = round and "loss" = 1/3 at rounds 0, 10 and 20
// (up to divergedAt for a diverged run; no records and no model for a
// failed one), with Up = 10·round, Down = 20·round, Samples = round and
// the model (0.1, 1/3) in one regularized 2×1 block "kernel".
func Run(label string, seed uint64, base float64, status core.Status, divergedAt int) experiment.Run {
	res := &core.Result{Metrics: []string{"acc", "samples", "loss"}, Status: status, DivergedAt: divergedAt,
		Model: []float64{0.1, 1.0 / 3}}
	for r := 0; r <= 20; r += 10 {
		if status == core.Diverged && r >= divergedAt {
			break
		}
		res.Records = append(res.Records, core.Record{Round: r, Up: int64(10 * r), Down: int64(20 * r), Samples: int64(r),
			Values: []float64{base + float64(r)/100, float64(r), 1.0 / 3}})
	}
	if status == core.Failed {
		res.Records, res.Model = nil, nil
	}
	return experiment.Run{Label: label, Algorithm: "algo", Seed: seed, Result: res,
		Layout: core.NewLayout(core.Block{Name: "kernel", Rows: 2, Cols: 1, Regularized: true})}
}

// Runs are five runs of three labels: a (seeds 1 and 2, done, base 0.5
// and 0.7), b (seed 1 done, seed 2 diverged at round 15, base 0.5) and c
// (failed).
func Runs() []experiment.Run {
	return []experiment.Run{
		Run("a", 1, 0.5, core.Done, 0),
		Run("a", 2, 0.7, core.Done, 0),
		Run("b", 1, 0.5, core.Done, 0),
		Run("b", 2, 0.5, core.Diverged, 15),
		Run("c", 1, 0, core.Failed, 0),
	}
}

// SweepRun makes a run of label (key "k" + label, seed 1) with the
// configuration (a, b) whose "acc" is 0 at round 0 and v at round 10, or
// that diverged at round 5.
func SweepRun(label string, a, b float64, v float64, diverged bool) experiment.Run {
	res := &core.Result{Metrics: []string{"acc"}, Status: core.Done,
		Records: []core.Record{{Round: 0, Values: []float64{0}}, {Round: 10, Values: []float64{v}}}}
	if diverged {
		res.Status, res.DivergedAt, res.Records = core.Diverged, 5, res.Records[:1]
	}
	return experiment.Run{Label: label, Algorithm: "algo", Seed: 1, Key: "k" + label,
		Config: experiment.NewConfig(experiment.NewSetting("a", a), experiment.NewSetting("b", b)), Result: res}
}
