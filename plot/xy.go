package plot

import "github.com/fedlab/fedlab/internal/escape"

// XY is one line of an XY chart: points (X[i], Y[i]); NaN values of Y
// (e.g. a target never reached) are left out.
type XY struct {
	Label string
	X, Y  []float64
}

// SaveXY draws one line per series through its points, for results that
// are not per-round records (e.g. rounds to a target against log d), and
// writes base.FORMAT like Save. opts.Metric labels the y axis; xLabel the x
// axis.
func SaveXY(base string, lines []XY, opts Options, xLabel string, formats []string) ([]string, error) {
	series := make([]Series, len(lines))
	for i, l := range lines {
		s := Series{Name: l.Label, X: l.X, Mean: l.Y, Std: make([]float64, len(l.Y)), Count: make([]int, len(l.Y))}
		for k := range s.Count {
			s.Count[k] = 1
		}
		series[i] = s
	}
	p, err := Chart(series, opts)
	if err != nil {
		return nil, err
	}
	p.X.Label.Text = escape.Line(xLabel)
	return write(p, base, formats)
}
