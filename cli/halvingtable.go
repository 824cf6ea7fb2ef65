package cli

import (
	"fmt"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/present/report"
	"github.com/fedlab/fedlab/rundir"
)

// halvingTable presents the halving sweep whose rung calls are group as
// one sweep for fedlab table: its title ("Calls 1–3: sweep.lua:3
// fedlab.sweep, successive halving: rungs of 10, 30 and 90 rounds"), the
// runs of its selected configurations (of the last rung) and, except in
// CSV, its grid: every configuration scored at the rung it stopped at,
// one selection and the edge-of-grid warnings of the whole grid
// (report.SweepTable).
func halvingTable(l *rundir.Loaded, group []int, opts report.TableOptions) (title string, best []experiment.Run, grid string, err error) {
	m := l.Manifest
	first := m.Calls[group[0]]
	title = rundir.HalvingSweepTitle(m, group)
	sels := rundir.SelectHalving(m, l.Calls, group)
	if opts.Format != "csv" {
		var b strings.Builder
		if err := report.SweepTable(&b, sels, first.Select, report.SweepOptions{Title: title, Format: opts.Format, Width: opts.Width}); err != nil {
			return "", nil, "", fmt.Errorf("call %d: %w", group[0]+1, err)
		}
		b.WriteString("\n")
		grid = b.String()
	}
	return title + ": the selected configurations", experiment.BestRuns(sels), grid, nil
}
