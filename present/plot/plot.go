// Package plot draws line charts of runs with gonum/plot: metrics against
// the round, the floats communicated, the communication rounds, the
// samples accessed or the wall time, one line per algorithm (per label,
// and configuration for sweep runs) with a band of ± one standard
// deviation over the seeds. Series differ by colour (a colour-blind-safe
// palette), dash pattern and marker; the legend sits beside the panels;
// axes carry the metrics' display names (metrics.DisplayOf) and error,
// gap and norm metrics get a log scale by default. Figures are saved as
// PNG, SVG or PDF.
package plot

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"github.com/fedlab/fedlab/internal/stats"
	"github.com/fedlab/fedlab/metrics"
	"github.com/fedlab/fedlab/registry"
)

// Axes the x values can come from, and their axis labels.
var xAxes = map[string]string{
	"round":       "round",
	"comm":        "floats communicated (up + down)",
	"comm_rounds": "communication rounds",
	"samples":     "samples accessed",
	"time":        "wall time (s)",
}

// XNames lists the accepted values of Options.X.
var XNames = []string{"round", "comm", "comm_rounds", "samples", "time"}

// Formats lists the file formats Save writes by default; AllFormats the
// formats it can write.
var (
	Formats    = []string{"png", "svg"}
	AllFormats = []string{"png", "svg", "pdf"}
)

// Scales of Options.XScale and Options.YScale.
const (
	Auto   = ""       // log for error, gap and norm metrics (y), linear otherwise
	Linear = "linear" // linear axis
	Log    = "log"    // logarithmic axis (non-positive values are left out)
)

// Bounds of a figure's size (cm), font (pt) and texts (characters):
// beyond them a figure is unreadable or too large to draw (a 60 cm square
// PNG at 150 dpi is 3543 × 3543 pixels, 50 MB in memory). The size bounds
// apply to the figure as drawn too, after it has grown for its legend.
const (
	MinSize, MaxSize = 2.0, 60.0
	MinFont, MaxFont = 4.0, 36.0
	MaxText          = 300
)

// Options choose what a figure shows and how.
type Options struct {
	// Metrics to draw, one panel each (Metric is added in front if set).
	Metrics []string
	Metric  string
	// X is one of XNames, or a metric the runs measured (e.g. "bits");
	// "" means "round". "time" spreads each run's wall time evenly over
	// its rounds (runs record no per-round times).
	X string
	// Title of the figure; "" draws none.
	Title string
	// XLabel and YLabel replace the axis labels (YLabel: of every panel).
	XLabel, YLabel string
	// XScale and YScale are Auto, Linear or Log.
	XScale, YScale string
	// XLim and YLim fix the axis limits ([min, max]); empty means fitted.
	XLim, YLim []float64
	// SkipRound0 leaves out round 0 (the initial point).
	SkipRound0 bool
	// Width and Height of the figure in centimetres, from MinSize to
	// MaxSize (0: 16 × 10 per panel row); the figure grows if the legend
	// needs more room, up to MaxSize.
	Width, Height float64
	// FontSize in points, from MinFont to MaxFont (0: 10).
	FontSize float64
	// HLines are horizontal reference lines, such as a centralized
	// optimum, drawn across the data of their panels.
	HLines []HLine
	// Notes are legend entries without a line, after the series: what the
	// figure leaves out, such as runs still in progress.
	Notes []string
}

// PendingNotes are the legend notes (Options.Notes) of a figure that
// leaves out pending runs: one per run in progress, how far it got
// (progress, as rundir.Loaded.InProgress says it), three at most, then a
// count of the other pending runs.
func PendingNotes(pending int, progress []string) []string {
	var notes []string
	for _, p := range progress[:min(len(progress), 3)] {
		notes = append(notes, Truncate("in progress, not drawn: "+p, 80))
	}
	if more := pending - len(notes); more > 0 {
		notes = append(notes, fmt.Sprintf("%d more runs pending, not drawn", more))
	}
	return notes
}

// HLine is a horizontal reference line at y = Value, drawn black and
// dashed in the panel of Metric (every panel if Metric is ""), with Label
// as its legend entry (none if Label is "").
type HLine struct {
	Value  float64
	Label  string
	Metric string
}

// metricList is Metric followed by Metrics.
func (o Options) metricList() []string {
	if o.Metric == "" {
		return o.Metrics
	}
	return append([]string{o.Metric}, slices.DeleteFunc(slices.Clone(o.Metrics), func(m string) bool { return m == o.Metric })...)
}

// Check reports a mistake in the options, naming the field and the valid
// values.
func (o Options) Check() error {
	if len(o.metricList()) == 0 {
		return fmt.Errorf("no metric to draw")
	}
	for _, s := range []struct{ name, v string }{{"x scale", o.XScale}, {"y scale", o.YScale}} {
		if s.v != Auto && s.v != Linear && s.v != Log {
			return fmt.Errorf("%s %q: want linear or log", s.name, s.v)
		}
	}
	for _, l := range []struct {
		name  string
		lim   []float64
		scale string
	}{{"xlim", o.XLim, o.XScale}, {"ylim", o.YLim, o.YScale}} {
		switch {
		case len(l.lim) == 0:
		case len(l.lim) != 2 || !(l.lim[0] < l.lim[1]):
			return fmt.Errorf("%s: want two increasing numbers { min, max }, got %v", l.name, l.lim)
		case l.scale == Log && l.lim[0] <= 0:
			return fmt.Errorf("%s: a log axis needs positive limits, got %v", l.name, l.lim)
		}
	}
	for _, b := range []struct {
		name, unit string
		v, lo, hi  float64
		def        string
	}{
		{"width", "cm", o.Width, MinSize, MaxSize, "16 cm"},
		{"height", "cm", o.Height, MinSize, MaxSize, "10 cm per row of panels"},
		{"font size", "pt", o.FontSize, MinFont, MaxFont, "10 pt"},
	} {
		if b.v != 0 && !(b.v >= b.lo && b.v <= b.hi) {
			return fmt.Errorf("%s %g %s is outside %g–%g %s (0: the default, %s)", b.name, b.v, b.unit, b.lo, b.hi, b.unit, b.def)
		}
	}
	for _, t := range []struct{ name, v string }{{"title", o.Title}, {"xlabel", o.XLabel}, {"ylabel", o.YLabel}} {
		if n := utf8.RuneCountInString(t.v); n > MaxText {
			return fmt.Errorf("%s of %d characters: at most %d fit a figure", t.name, n, MaxText)
		}
	}
	list := o.metricList()
	for i, h := range o.HLines {
		switch {
		case math.IsNaN(h.Value) || math.IsInf(h.Value, 0):
			return fmt.Errorf("hline %d: value must be finite, got %g", i+1, h.Value)
		case h.Metric != "" && !slices.Contains(list, h.Metric):
			return fmt.Errorf("hline %d: metric %q is not drawn%s; the panels: %s", i+1, h.Metric, registry.DidYouMean(h.Metric, list), strings.Join(list, ", "))
		}
		for _, m := range list {
			if (h.Metric == "" || h.Metric == m) && o.yScale(m) == Log && h.Value <= 0 {
				return fmt.Errorf("hline %d: value %g cannot be drawn on the log y axis of %s", i+1, h.Value, m)
			}
		}
	}
	return nil
}

// AxisError is an x axis that is neither one of XNames nor a metric the
// runs measured.
type AxisError struct {
	X        string
	Measured []string // the metrics the runs measured
}

// Error names the valid values.
func (e AxisError) Error() string {
	return fmt.Sprintf(`key "x": %q is neither an axis (%s) nor a metric the runs measured%s; they have: %s`,
		e.X, strings.Join(XNames, ", "), registry.DidYouMean(e.X, append(slices.Clone(XNames), e.Measured...)), strings.Join(e.Measured, ", "))
}

// CheckX returns an AxisError unless x is "", one of XNames or a metric
// some of the runs measured.
func CheckX(x string, runs []experiment.Run) error {
	if x == "" || slices.Contains(XNames, x) {
		return nil
	}
	var measured []string
	for _, r := range runs {
		if r.Result == nil {
			continue
		}
		if slices.Contains(r.Result.Metrics, x) {
			return nil
		}
		for _, m := range r.Result.Metrics {
			if !slices.Contains(measured, m) {
				measured = append(measured, m)
			}
		}
	}
	return AxisError{X: x, Measured: measured}
}

// Series is one line of a chart: per x value, the mean and the sample
// standard deviation of the metric over the runs (seeds) evaluated there,
// and how many runs that is.
type Series struct {
	Name         string
	X, Mean, Std []float64
	Count        []int
	Runs         int // runs in the group
	// DivergedAt is the earliest round at which a run of the group
	// diverged (0: none did), and Diverged how many did; the series ends
	// before DivergedAt (after it the mean would be over fewer seeds, a
	// jump no run made).
	DivergedAt, Diverged int
	// NonNegative reports that every value of the group is ≥ 0.
	NonNegative bool
}

// Legend is the series' legend entry: its name, and where it diverged
// ("FedAvg, diverged@20", "FedAvg, 1 of 3 seeds diverged@20").
func (s Series) Legend() string {
	switch {
	case s.Diverged == 0:
		return s.Name
	case s.Diverged == s.Runs:
		return fmt.Sprintf("%s, diverged@%d", s.Name, s.DivergedAt)
	}
	return fmt.Sprintf("%s, %d of %d seeds diverged@%d", s.Name, s.Diverged, s.Runs, s.DivergedAt)
}

// Lines groups the runs by name (in order of first appearance) and
// averages the metric over the runs of a group at each evaluated round
// (runs not run are left out). A group with a diverged run ends before the
// earliest divergence among its runs (Series.DivergedAt). The x value at a
// round is the mean over the runs of the chosen axis.
func Lines(runs []experiment.Run, metric string, opts Options) ([]Series, error) {
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
		col := slices.Index(r.Result.Metrics, metric)
		for _, m := range r.Result.Metrics {
			if !slices.Contains(have, m) {
				have = append(have, m)
			}
		}
		xcol := slices.Index(r.Result.Metrics, x)
		if !axis && xcol < 0 {
			return nil, AxisError{X: x, Measured: r.Result.Metrics}
		}
		name := r.Name()
		g, ok := index[name]
		if !ok {
			g = len(out)
			index[name] = g
			out = append(out, Series{Name: name, NonNegative: true})
			points = append(points, map[int]*point{})
		}
		out[g].Runs++
		if r.Result.Status == core.Diverged {
			s := &out[g]
			if s.Diverged == 0 || r.Result.DivergedAt < s.DivergedAt {
				s.DivergedAt = r.Result.DivergedAt
			}
			s.Diverged++
		}
		if col < 0 {
			continue
		}
		found = true
		last := float64(max(r.Result.DivergedAt, 1))
		if n := len(r.Result.Records); n > 0 {
			last = float64(max(r.Result.Records[n-1].Round, r.Result.DivergedAt, 1))
		}
		for _, rec := range r.Result.Records {
			if opts.SkipRound0 && rec.Round == 0 {
				continue
			}
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
			case "time":
				xv = r.Result.Elapsed.Seconds() * float64(rec.Round) / last
			default:
				if !axis {
					xv = rec.Values[xcol]
				}
			}
			p.xs = append(p.xs, xv)
			p.ys = append(p.ys, rec.Values[col])
			if rec.Values[col] < 0 {
				out[g].NonNegative = false
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("no metric %q in these runs%s; they have: %s", metric, registry.DidYouMean(metric, have), strings.Join(have, ", "))
	}
	for g := range out {
		rounds := make([]int, 0, len(points[g]))
		for r := range points[g] {
			rounds = append(rounds, r)
		}
		slices.Sort(rounds)
		s := &out[g]
		for _, r := range rounds {
			if s.Diverged > 0 && r >= s.DivergedAt {
				break
			}
			p := points[g][r]
			mx, _ := stats.MeanStd(p.xs)
			my, sy := stats.MeanStd(p.ys)
			s.X, s.Mean, s.Std = append(s.X, mx), append(s.Mean, my), append(s.Std, sy)
			s.Count = append(s.Count, len(p.ys))
		}
	}
	return out, nil
}

// yScale is the y scale of a metric's panel: the option, or log for
// metrics whose display says so.
func (o Options) yScale(metric string) string {
	if o.YScale != Auto {
		return o.YScale
	}
	if metrics.DisplayOf(metric).Log {
		return Log
	}
	return Linear
}

// scaled is v as placed on a log or linear axis.
func scaled(v float64, log bool) float64 {
	if log {
		return math.Log(v)
	}
	return v
}
