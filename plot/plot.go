// Package plot draws line charts of runs with gonum/plot: a metric against
// the round, the floats communicated, the communication rounds or the
// samples accessed, one line per algorithm (per label, and configuration for
// sweep runs) with a band of ± one standard deviation over the seeds, saved
// as PNG and SVG.
package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/atomicfile"
	"github.com/fedlab/fedlab/internal/escape"
	"github.com/fedlab/fedlab/internal/stats"
	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Axes the x values can come from, and their axis labels.
var xAxes = map[string]string{
	"round":       "round",
	"comm":        "floats communicated (up + down)",
	"comm_rounds": "communication rounds",
	"samples":     "samples accessed",
}

// XNames lists the accepted values of Options.X.
var XNames = []string{"round", "comm", "comm_rounds", "samples"}

// Formats lists the file formats Save writes by default.
var Formats = []string{"png", "svg"}

// Options choose what a chart shows.
type Options struct {
	Metric string // the metric on the y axis (required)
	X      string // one of XNames, or a metric of the runs (e.g. "bits"); "" means "round"
	Title  string // "" means the metric's name
	LogY   bool   // logarithmic y axis (non-positive values are left out)
}

// Series is one line of a chart: per x value, the mean and the sample
// standard deviation of the metric over the runs (seeds) evaluated there,
// and how many runs that is.
type Series struct {
	Name         string
	X, Mean, Std []float64
	Count        []int
	Runs         int // runs in the group
}

// Lines groups the runs by name (in order of first appearance) and
// averages the metric over the runs of a group at each evaluated round (a
// diverged run contributes up to its divergence; runs not run are left
// out). The x value at a round is the mean over the runs of the chosen
// axis.
func Lines(runs []experiment.Run, opts Options) ([]Series, error) {
	x := opts.X
	if x == "" {
		x = "round"
	}
	_, axis := xAxes[x] // otherwise x names a metric of the runs (bits, epsilon, ...)
	var out []Series
	index := map[string]int{}
	type point struct{ xs, ys []float64 }
	var points []map[int]*point
	found := false
	var have []string
	for _, r := range runs {
		if r.Result == nil {
			continue
		}
		col := slices.Index(r.Result.Metrics, opts.Metric)
		for _, m := range r.Result.Metrics {
			if !slices.Contains(have, m) {
				have = append(have, m)
			}
		}
		xcol := slices.Index(r.Result.Metrics, x)
		if !axis && xcol < 0 {
			return nil, fmt.Errorf(`key "x": %q is neither an axis (%s) nor a metric the runs measured (they have: %s)`,
				x, strings.Join(XNames, ", "), strings.Join(r.Result.Metrics, ", "))
		}
		name := r.Name()
		g, ok := index[name]
		if !ok {
			g = len(out)
			index[name] = g
			out = append(out, Series{Name: name})
			points = append(points, map[int]*point{})
		}
		out[g].Runs++
		if col < 0 {
			continue
		}
		found = true
		for _, rec := range r.Result.Records {
			p := points[g][rec.Round]
			if p == nil {
				p = &point{}
				points[g][rec.Round] = p
			}
			xv := float64(rec.Round)
			switch x {
			case "comm":
				xv = float64(rec.Up + rec.Down)
			case "comm_rounds":
				xv = float64(rec.CommRounds)
			case "samples":
				xv = float64(rec.Samples)
			default:
				if !axis {
					xv = rec.Values[xcol]
				}
			}
			p.xs = append(p.xs, xv)
			p.ys = append(p.ys, rec.Values[col])
		}
	}
	if !found {
		return nil, fmt.Errorf("no metric %q in these runs (they have: %s)", opts.Metric, strings.Join(have, ", "))
	}
	for g := range out {
		rounds := make([]int, 0, len(points[g]))
		for r := range points[g] {
			rounds = append(rounds, r)
		}
		slices.Sort(rounds)
		s := &out[g]
		for _, r := range rounds {
			p := points[g][r]
			mx, _ := stats.MeanStd(p.xs)
			my, sy := stats.MeanStd(p.ys)
			s.X, s.Mean, s.Std = append(s.X, mx), append(s.Mean, my), append(s.Std, sy)
			s.Count = append(s.Count, len(p.ys))
		}
	}
	return out, nil
}

// Chart draws the series: a line per series and, where several runs
// contribute, a translucent band of mean ± std (on a log scale the band's
// lower edge is clipped at a tenth of the mean).
func Chart(series []Series, opts Options) (*gonum.Plot, error) {
	x := opts.X
	if x == "" {
		x = "round"
	}
	p := gonum.New()
	p.Title.Text = escape.Line(opts.Title) // free text: kept on one line of the chart and the SVG
	if p.Title.Text == "" {
		p.Title.Text = escape.Line(opts.Metric)
	}
	p.X.Label.Text = xAxes[x]
	if p.X.Label.Text == "" {
		p.X.Label.Text = escape.Line(x) // a metric
	}
	p.Y.Label.Text = escape.Line(opts.Metric)
	p.X.Tick.Marker = shortTicks{gonum.DefaultTicks{}}
	p.Y.Tick.Marker = shortTicks{gonum.DefaultTicks{}}
	if opts.LogY {
		p.Y.Scale = gonum.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}
	p.Add(plotter.NewGrid())
	drawn := 0
	lo, hi, ends := math.Inf(1), math.Inf(-1), 0.0
	for i, s := range series {
		line, band := points(s, opts.LogY)
		if len(line) == 0 {
			continue
		}
		for _, pt := range line {
			lo, hi = min(lo, scaled(pt.Y, opts.LogY)), max(hi, scaled(pt.Y, opts.LogY))
		}
		ends += scaled(line[len(line)-1].Y, opts.LogY)
		c := plotutil.Color(i)
		if len(band) > 0 {
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return nil, err
			}
			r, g, b, _ := c.RGBA()
			poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		l, err := plotter.NewLine(line)
		if err != nil {
			return nil, err
		}
		l.Color = c
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(escape.Line(s.Name), l)
		drawn++
	}
	// the legend goes in the top corner unless the lines end in the upper half
	p.Legend.Top = drawn == 0 || ends/float64(drawn) < (lo+hi)/2
	if drawn == 0 {
		what := "finite"
		if opts.LogY {
			what = "positive"
		}
		return nil, fmt.Errorf("nothing to draw: %s has no %s values", opts.Metric, what)
	}
	return p, nil
}

// scaled is y as placed on the axis (its logarithm on a log scale).
func scaled(y float64, logY bool) float64 {
	if logY {
		return math.Log(y)
	}
	return y
}

// points returns the line and the band polygon of a series, leaving out
// non-finite values (and non-positive ones on a log scale).
func points(s Series, logY bool) (line, band plotter.XYs) {
	var upper, lower plotter.XYs
	for i := range s.X {
		m := s.Mean[i]
		if math.IsNaN(m) || math.IsInf(m, 0) || math.IsNaN(s.X[i]) || (logY && m <= 0) {
			continue
		}
		line = append(line, plotter.XY{X: s.X[i], Y: m})
		if s.Count[i] < 2 || math.IsNaN(s.Std[i]) || math.IsInf(s.Std[i], 0) {
			continue
		}
		lo := m - s.Std[i]
		if logY {
			lo = max(lo, m/10)
		}
		upper = append(upper, plotter.XY{X: s.X[i], Y: m + s.Std[i]})
		lower = append(lower, plotter.XY{X: s.X[i], Y: lo})
	}
	if len(upper) < 2 {
		return line, nil
	}
	slices.Reverse(lower)
	return line, append(upper, lower...)
}

// Save draws the runs and writes base.FORMAT for each format ("png",
// "svg", "pdf"; nil means Formats), atomically, at 16 × 10 cm (PNG at 150
// dpi). It returns the paths written.
func Save(base string, runs []experiment.Run, opts Options, formats []string) ([]string, error) {
	series, err := Lines(runs, opts)
	if err != nil {
		return nil, err
	}
	p, err := Chart(series, opts)
	if err != nil {
		return nil, err
	}
	return write(p, base, formats)
}

// write renders p to base.FORMAT for each format (nil means Formats),
// atomically, and returns the paths written.
func write(p *gonum.Plot, base string, formats []string) ([]string, error) {
	if formats == nil {
		formats = Formats
	}
	var paths []string
	for _, f := range formats {
		if !slices.Contains([]string{"png", "svg", "pdf"}, f) {
			return nil, fmt.Errorf("format %q: want png, svg or pdf", f)
		}
		wt, err := writerTo(p, f)
		if err != nil {
			return nil, err
		}
		path := base + "." + f
		if err := atomicfile.Write(path, func(w io.Writer) error { _, err := wt.WriteTo(w); return err }); err != nil {
			return nil, err
		}
		paths = append(paths, filepath.Clean(path))
	}
	return paths, nil
}

// Chart size, and the resolution of PNG files.
const (
	width  = 16 * vg.Centimeter
	height = 10 * vg.Centimeter
	dpi    = 150
)

// writerTo renders the chart in a format.
func writerTo(p *gonum.Plot, format string) (io.WriterTo, error) {
	if format != "png" {
		return p.WriterTo(width, height, format)
	}
	c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi))
	p.Draw(draw.New(c))
	return vgimg.PngCanvas{Canvas: c}, nil
}

// shortTicks relabels the ticks of a marker with the shortest exact form
// of their values ("250", not "250.00"; "0.001", "1e+06").
type shortTicks struct{ gonum.Ticker }

// Ticks returns the marker's ticks, relabelled.
func (t shortTicks) Ticks(lo, hi float64) []gonum.Tick {
	ticks := t.Ticker.Ticks(lo, hi)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 6, 64)
		}
	}
	return ticks
}

// logTicks marks a log axis: labels at 1, 2 and 5 times the powers of ten
// when the axis spans at most three decades, at the powers of ten
// otherwise; unlabelled ticks at the other integer multiples.
type logTicks struct{}

// Ticks returns the ticks between lo and hi (both > 0).
func (logTicks) Ticks(lo, hi float64) []gonum.Tick {
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	labelled := []int{1}
	if last-first <= 3 {
		labelled = []int{1, 2, 5}
	}
	var ticks []gonum.Tick
	for e := first; e <= last; e++ {
		for m := 1; m <= 9; m++ {
			v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(e), 64) // exact decimal, no rounding drift
			if v < lo || v > hi {
				continue
			}
			t := gonum.Tick{Value: v}
			if slices.Contains(labelled, m) {
				t.Label = strconv.FormatFloat(v, 'g', 6, 64)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
