package report

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/escape"
	metricsPkg "github.com/fedlab/fedlab/metrics"
	"github.com/fedlab/fedlab/registry"
)

// TableOptions choose what a table shows and how.
type TableOptions struct {
	// Rounds to show; empty means at most six evenly spaced evaluated rounds,
	// including the first and the last. A round that no run evaluated is an
	// error naming the evaluated rounds; a run that did not evaluate a
	// round another run did shows "–" there (the caption says so).
	Rounds []int
	// Metrics to show, in order; empty means every metric of the runs.
	Metrics []string
	// Title is printed above the table if not empty.
	Title string
	// Transpose puts rounds in columns and labels in rows, one table per metric.
	Transpose bool
	// Format is one of Formats ("" is text).
	Format string
	// Bold marks the best value of each metric at each round (by the
	// metric's direction in metrics.DisplayOf) in Markdown and LaTeX.
	Bold bool
	// Width is the width text tables fit in (0: DefaultWidth).
	Width int
}

// Table prints the runs as a table with one row per (label, round) and one
// column per metric; sweep runs are labelled with their configuration
// ("fedmid eta_c=0.001 eta_s=0.3"). A cell is the mean ± sample standard
// deviation over the runs (seeds) with that label, rounded by
// FormatMeanStd; the caption says so and over how many seeds. Failed
// runs, and diverged runs from their divergence on, are left out of the
// mean and counted in a note, and a cell with no run left reads
// "diverged@r" or "failed".
func Table(w io.Writer, runs []experiment.Run, opts TableOptions) error {
	grids, err := Grids(runs, opts)
	if err != nil {
		return err
	}
	for i, g := range grids {
		if i > 0 && opts.Format != "csv" {
			fmt.Fprintln(w)
		}
		if err := g.Render(w, opts.Format, opts.Width); err != nil {
			return err
		}
	}
	return nil
}

// Grids builds the tables Table prints: one, or one per metric with
// Transpose.
func Grids(runs []experiment.Run, opts TableOptions) ([]Grid, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("no runs to tabulate")
	}
	if opts.Format != "" && !slices.Contains(Formats, opts.Format) {
		return nil, fmt.Errorf("table format %q: want one of %s", opts.Format, strings.Join(Formats, ", "))
	}
	metrics, err := chooseMetrics(runs, opts.Metrics)
	if err != nil {
		return nil, err
	}
	rounds := opts.Rounds
	if len(rounds) == 0 {
		rounds = defaultRounds(runs)
	} else if err := checkRounds(runs, rounds); err != nil {
		return nil, err
	}
	labels, groups := byLabel(runs)
	caption := captionOf(groups)
	unevaluated, unrecorded := false, false
	// cells[m][i][k]: metric m, label i, round k
	cells := make([][][]Cell, len(metrics))
	for m, name := range metrics {
		cells[m] = make([][]Cell, len(labels))
		for i := range labels {
			cells[m][i] = make([]Cell, len(rounds))
			for k, r := range rounds {
				c := gather(groups[i], name, r)
				cells[m][i][k] = c.Cell()
				empty := cells[m][i][k].String() == "–"
				unevaluated = unevaluated || empty && c.unevaluated > 0
				unrecorded = unrecorded || empty && c.unrecorded > 0
			}
		}
		if opts.Bold {
			markBest(cells[m], metricsPkg.DisplayOf(name).Better)
		}
	}
	switch {
	case unevaluated && unrecorded:
		caption += "; – = not evaluated at that round, or a metric the run does not record"
	case unevaluated:
		caption += "; – = not evaluated at that round"
	case unrecorded:
		caption += "; – = a metric the run does not record"
	}
	if !opts.Transpose {
		g := Grid{Title: opts.Title, Caption: caption, Header: append([]string{"label", "round"}, metrics...),
			Display: append([]string{"label", "round"}, displayNames(metrics)...), Keys: 2}
		for i, l := range labels {
			for k, r := range rounds {
				row := []Cell{{Text: l}, {Text: strconv.Itoa(r)}}
				for m := range metrics {
					row = append(row, cells[m][i][k])
				}
				g.Rows = append(g.Rows, row)
			}
		}
		return []Grid{g}, nil
	}
	var grids []Grid
	for m, name := range metrics {
		g := Grid{Caption: caption, Header: []string{name + " \\ round"}, Display: []string{displayNames([]string{name})[0] + " \\ round"}, Keys: 1}
		if m == 0 {
			g.Title = opts.Title
		}
		for _, r := range rounds {
			g.Header = append(g.Header, strconv.Itoa(r))
			g.Display = append(g.Display, strconv.Itoa(r))
		}
		for i, l := range labels {
			g.Rows = append(g.Rows, append([]Cell{{Text: l}}, cells[m][i]...))
		}
		grids = append(grids, g)
	}
	return grids, nil
}

// captionOf states the statistic and the number of seeds, e.g. "mean ±
// sample std over 3 seeds", "mean ± sample std over 2–3 seeds", or "one
// seed" when no label has more than one run.
func captionOf(groups [][]experiment.Run) string {
	lo, hi := 0, 0
	for i, g := range groups {
		if i == 0 || len(g) < lo {
			lo = len(g)
		}
		hi = max(hi, len(g))
	}
	switch {
	case hi <= 1:
		return "one seed"
	case lo == hi:
		return fmt.Sprintf("mean ± sample std over %d seeds", hi)
	}
	return fmt.Sprintf("mean ± sample std over %d–%d seeds", lo, hi)
}

// markBest sets Bold on the best mean of each round among the labels
// (cells[i][k]: label i, round k), all of them on ties; nothing when the
// direction is unknown, fewer than two labels have a value or all values
// are equal (the common starting point at round 0).
func markBest(cells [][]Cell, better metricsPkg.Better) {
	if better == metricsPkg.Unknown || len(cells) == 0 {
		return
	}
	for k := range cells[0] {
		best, count, equal := math.NaN(), 0, true
		for i := range cells {
			c := cells[i][k]
			if c.N == 0 || math.IsNaN(c.Mean) {
				continue
			}
			equal = equal && (count == 0 || c.Mean == best)
			count++
			if math.IsNaN(best) || (better == metricsPkg.Lower && c.Mean < best) || (better == metricsPkg.Higher && c.Mean > best) {
				best = c.Mean
			}
		}
		if count < 2 || equal {
			continue
		}
		for i := range cells {
			if cells[i][k].N > 0 && cells[i][k].Mean == best {
				cells[i][k].Bold = true
			}
		}
	}
}

// chooseMetrics checks the requested metrics against those of the runs.
func chooseMetrics(runs []experiment.Run, want []string) ([]string, error) {
	have := experiment.MetricNames(runs)
	if len(want) == 0 {
		if len(have) == 0 {
			return nil, fmt.Errorf("the runs measured no metrics%s", failures(runs))
		}
		return have, nil
	}
	for _, m := range want {
		if !slices.Contains(have, m) {
			return nil, fmt.Errorf("no metric %q in these runs%s; they have: %s", m, registry.DidYouMean(m, have), strings.Join(have, ", "))
		}
	}
	return want, nil
}

// failures says how many of runs failed and why the first did (its
// error, escaped for a terminal line); "" if none failed.
func failures(runs []experiment.Run) string {
	var failed []experiment.Run
	for _, r := range runs {
		if r.Result != nil && r.Result.Status == core.Failed {
			failed = append(failed, r)
		}
	}
	if len(failed) == 0 {
		return ""
	}
	f := failed[0]
	return fmt.Sprintf(": %d of %d failed (%s seed %d: %s)", len(failed), len(runs), escape.Line(f.Label), f.Seed, escape.Line(f.Result.Err))
}

// byLabel groups runs by name (label, and configuration for sweep runs)
// in order of first appearance.
func byLabel(runs []experiment.Run) ([]string, [][]experiment.Run) {
	var labels []string
	var groups [][]experiment.Run
	index := map[string]int{}
	for _, r := range runs {
		name := r.Name()
		i, ok := index[name]
		if !ok {
			i = len(labels)
			index[name] = i
			labels = append(labels, name)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	return labels, groups
}

// FormatOf is the table format a file name's extension implies: md for
// .md, latex for .tex, csv for .csv, text otherwise.
func FormatOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		return "md"
	case ".tex":
		return "latex"
	case ".csv":
		return "csv"
	}
	return "text"
}

// displayNames are the display labels of metrics (metrics.DisplayOf).
func displayNames(metrics []string) []string {
	out := make([]string, len(metrics))
	for i, m := range metrics {
		out[i] = metricsPkg.DisplayOf(m).Label
	}
	return out
}
