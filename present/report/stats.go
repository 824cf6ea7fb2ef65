package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/stats"
)

// cell gathers one metric at one round across the seeds of one label.
// Failed runs, and diverged runs from their divergence on, are counted
// instead of averaged.
type cell struct {
	vals       []float64
	failed     int
	diverged   int
	divergedAt int // earliest divergence among the counted runs
	// unevaluated counts runs without a record at the round, unrecorded
	// runs that do not record the metric.
	unevaluated, unrecorded int
}

// gather builds the cell of metric at round for the runs of one label.
func gather(runs []experiment.Run, metric string, round int) cell {
	var c cell
	for _, r := range runs {
		res := r.Result
		switch {
		case res.Status == core.Failed:
			c.failed++
			continue
		case res.Status == core.Diverged && round >= res.DivergedAt:
			if c.diverged == 0 || res.DivergedAt < c.divergedAt {
				c.divergedAt = res.DivergedAt
			}
			c.diverged++
			continue
		}
		rec := recordAt(res, round)
		if rec == nil {
			c.unevaluated++
			continue
		}
		if i := slices.Index(res.Metrics, metric); i >= 0 {
			c.vals = append(c.vals, rec.Values[i])
		} else {
			c.unrecorded++
		}
	}
	return c
}

// Cell renders the gathered values: "mean ± std" (the sample standard
// deviation, as FormatMeanStd rounds it; the mean alone with one value or
// identical values), with a note counting the excluded runs; or the reason
// why no value is left ("diverged@r", "failed").
func (c cell) Cell() Cell {
	var notes []string
	if c.diverged > 0 {
		notes = append(notes, fmt.Sprintf("%d diverged", c.diverged))
	}
	if c.failed > 0 {
		notes = append(notes, fmt.Sprintf("%d failed", c.failed))
	}
	switch {
	case len(c.vals) > 0:
		m, sd := stats.MeanStd(c.vals)
		if len(c.vals) == 1 {
			sd = 0
		}
		return Cell{Text: FormatMeanStd(m, sd), Note: strings.Join(notes, ", "), Mean: m, Std: sd, N: len(c.vals)}
	case c.diverged > 0:
		return Cell{Note: fmt.Sprintf("diverged@%d", c.divergedAt)}
	case c.failed > 0:
		return Cell{Note: "failed"}
	}
	return Cell{}
}
