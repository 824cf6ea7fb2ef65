package plot

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// XY is one line of an XY chart: points (X[i], Y[i]); NaN values of Y
// (e.g. a target never reached) are left out.
type XY struct {
	Label string
	X, Y  []float64
}

// SaveXY draws one line per series through its points, for results that
// are not per-round records (e.g. rounds to a target against log d), and
// writes base.FORMAT like Save. opts.YLabel, else opts.Metric (as a
// metric's display name if it is one), labels the y axis; xLabel the x axis.
func SaveXY(base string, lines []XY, opts Options, xLabel string, formats []string) ([]string, error) {
	if formats == nil {
		formats = Formats
	}
	for _, f := range formats {
		if !slices.Contains(AllFormats, f) {
			return nil, fmt.Errorf("format %q: want png, svg or pdf", f)
		}
	}
	series := make([]Series, len(lines))
	for i, l := range lines {
		if len(l.X) != len(l.Y) {
			return nil, fmt.Errorf("series %q: %d x values but %d y values", l.Label, len(l.X), len(l.Y))
		}
		s := Series{Name: l.Label, X: l.X, Mean: l.Y, Std: make([]float64, len(l.Y)), Count: make([]int, len(l.Y)), Runs: 1}
		for k := range s.Count {
			s.Count[k] = 1
		}
		series[i] = s
	}
	if xLabel == "" {
		xLabel = "x"
	}
	opts.Metrics, opts.XLabel = nil, xLabel
	if opts.Metric == "" {
		opts.Metric = "y"
		if opts.YLabel == "" {
			opts.YLabel = " "
		}
	}
	if err := opts.Check(); err != nil {
		return nil, err
	}
	if n := utf8.RuneCountInString(opts.Metric); n > MaxText { // the y label
		return nil, fmt.Errorf("ylabel of %d characters: at most %d fit a figure", n, MaxText)
	}
	fig, err := build(opts, func(string) ([]Series, error) { return series, nil })
	if err != nil {
		return nil, err
	}
	return fig.save(base, formats)
}
