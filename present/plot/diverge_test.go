package plot

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// series makes a run of label whose metric m takes values at rounds 0,
// 10, 20, …; diverged > 0 marks it diverged at that round.
func series(label string, seed uint64, m string, values []float64, diverged int) experiment.Run {
	res := &core.Result{Metrics: []string{m}, Status: core.Done}
	for i, v := range values {
		res.Records = append(res.Records, core.Record{Round: 10 * i, Values: []float64{v}})
	}
	if diverged > 0 {
		res.Status, res.DivergedAt = core.Diverged, diverged
	}
	return experiment.Run{Label: label, Seed: seed, Result: res}
}

// drawnLabels draws the figure and returns the tick labels of each
// panel's y and x axes as drawn.
func drawnLabels(t *testing.T, fig *Figure) (y, x [][]string) {
	t.Helper()
	c := vgimg.NewWith(vgimg.UseWH(fig.Width, fig.Height), vgimg.UseDPI(72))
	fig.Draw(draw.New(c))
	for _, p := range fig.Panels {
		y = append(y, labels(p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)))
		x = append(x, labels(p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)))
	}
	return y, x
}

// A diverged series is cut at its divergence (earliest over its seeds),
// its end marked and named in the legend, and the y axis is fitted to the
// series that did not diverge (linear and log axes).
func TestDivergedSeriesIsCutMarkedAndLeftOutOfTheAxes(t *testing.T) {
	runs := []experiment.Run{
		series("calm", 1, "objective", []float64{5, 3, 2, 1.5, 1.2}, 0),
		series("calm", 2, "objective", []float64{5, 3.2, 2.2, 1.7, 1.4}, 0),
		// finite values far above the calm ones before the cut, and a
		// record at the divergence round that must not be drawn
		series("wild", 1, "objective", []float64{5, 8e5, 3e9, 1e100}, 30),
		series("wild", 2, "objective", []float64{5, 9e5, 4e9}, 0),
	}
	for _, scale := range []string{Linear, Log} {
		s, err := Lines(runs, "objective", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if w := s[1]; len(w.X) != 3 || w.X[2] != 20 || w.DivergedAt != 30 || w.Legend() != "wild, 1 of 2 seeds diverged@30" {
			t.Fatalf("wild series: x %v, diverged@%d, legend %q; want it cut before round 30", w.X, w.DivergedAt, w.Legend())
		}
		fig, err := NewFigure(runs, Options{Metric: "objective", YScale: scale})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(fig.Names, "wild, 1 of 2 seeds diverged@30") || !slices.Contains(fig.Names, endLegend) {
			t.Errorf("%s: legend %v lacks the divergence and the end marker", scale, fig.Names)
		}
		p := fig.Panels[0]
		if p.Y.Max > 5 || p.Y.Min < 1 {
			t.Errorf("%s: y axis [%g, %g], want it fitted to the calm series' [1.2, 5]", scale, p.Y.Min, p.Y.Max)
		}
		if len(fig.ends) != 1 || fig.ends[0].Y != p.Y.Max || fig.ends[0].X != 20 {
			t.Errorf("%s: end markers at %v, want one at round 20 on the top edge %g", scale, fig.ends, p.Y.Max)
		}
	}
	// a series without divergence keeps gonum's fitted range (untouched)
	fig, err := NewFigure(runs[:2], Options{Metric: "objective"})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(fig.Names, endLegend) || fig.Panels[0].Y.Max < 5 {
		t.Errorf("no divergence: legend %v, y max %g", fig.Names, fig.Panels[0].Y.Max)
	}
}

// Bands stay inside the metric's range: a nonnegative metric's lower edge
// at 0 (on a log axis at the smallest positive value drawn), a fraction's
// upper edge at 1; a metric with negative values keeps its band.
func TestBandsStayInsideTheMetricsRange(t *testing.T) {
	band := func(runs []experiment.Run, m, scale string) plotter.XYs {
		t.Helper()
		s, err := Lines(runs, m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		logY := scale == Log
		lo, hi := bandLimits(m, s, false, logY)
		_, b := points(s[0], false, logY, lo, hi)
		return b
	}
	minMax := func(b plotter.XYs) (float64, float64) {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, q := range b {
			lo, hi = math.Min(lo, q.Y), math.Max(hi, q.Y)
		}
		return lo, hi
	}
	// objective (not registered as nonnegative) with no negative value: mean 1, std ≈ 1.4
	obj := []experiment.Run{series("a", 1, "objective", []float64{0, 0.1, 0.2}, 0), series("a", 2, "objective", []float64{2, 2.1, 2.2}, 0)}
	if lo, _ := minMax(band(obj, "objective", Linear)); lo != 0 {
		t.Errorf("objective band reaches %g, want 0", lo)
	}
	f1 := []experiment.Run{series("a", 1, "f1", []float64{0.2, 1, 1}, 0), series("a", 2, "f1", []float64{0.9, 0.6, 0.9}, 0)}
	if lo, hi := minMax(band(f1, "f1", Linear)); lo < 0 || hi != 1 {
		t.Errorf("f1 band spans [%g, %g], want inside [0, 1] and reaching 1", lo, hi)
	}
	l2 := []experiment.Run{series("a", 1, "l2_error", []float64{1, 0.01, 0.001}, 0), series("a", 2, "l2_error", []float64{3, 1, 0.5}, 0)}
	if lo, _ := minMax(band(l2, "l2_error", Log)); lo != 0.2505 {
		t.Errorf("log band reaches %g, want the smallest mean drawn, 0.2505", lo)
	}
	neg := []experiment.Run{series("a", 1, "objective", []float64{-1, 0, 1}, 0), series("a", 2, "objective", []float64{1, 2, 3}, 0)}
	if lo, _ := minMax(band(neg, "objective", Linear)); !(lo < -0.4) {
		t.Errorf("a metric with negative values: band floor %g, want mean − std ≈ −1.41", lo)
	}
}

// Tick labels never outnumber what fits: a log axis over 52 or 152
// decades and a linear axis up to 1.5e275 get at most seven labels, and a
// small panel fewer.
func TestTickLabelsFit(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		log    bool
		want   []string
	}{
		{1e100, 1e152, true, []string{"1e100", "1e110", "1e120", "1e130", "1e140", "1e150"}},
		{1, 1e152, true, []string{"1", "1e50", "1e100", "1e150"}},
		{0, 1.5e275, false, []string{"0", "5e274", "1e275", "1.5e275"}},
		{1e20, 1e20 + 1e6, false, nil}, // checked for its count only: float spacing there is 16384
	} {
		var ticks []gonum.Tick
		if c.log {
			ticks = logTicks{}.Ticks(c.lo, c.hi)
		} else {
			ticks = linearTicks{}.Ticks(c.lo, c.hi)
		}
		got := labels(ticks)
		if c.want != nil && !slices.Equal(got, c.want) {
			t.Errorf("[%g, %g] (log %v): labels %v, want %v", c.lo, c.hi, c.log, got, c.want)
		}
		if len(got) > defaultIntervals+1 || len(ticks) > 100 {
			t.Errorf("[%g, %g]: %d labels, %d ticks", c.lo, c.hi, len(got), len(ticks))
		}
	}
	// a 4 cm tall figure has room for fewer labels on its y axis than 6
	runs := []experiment.Run{series("a", 1, "objective", []float64{0, 1e152, 3e151}, 0)}
	for _, h := range []float64{10, 4} {
		fig, err := NewFigure(runs, Options{Metric: "objective", YScale: Log, Height: h, Width: 8})
		if err != nil {
			t.Fatal(err)
		}
		y, x := drawnLabels(t, fig)
		sty := fig.Panels[0].Y.Tick.Label
		need := 0.0
		for range y[0] {
			need += 2 * float64(sty.Rectangle("1e100").Size().Y)
		}
		space := float64(fig.Layout().Data[0].Size().Y)
		if need > space || len(y[0]) < 2 || len(y[0]) > 7 {
			t.Errorf("height %g cm: y labels %v need %.0f pt of %.0f", h, y[0], need, space)
		}
		if len(x[0]) < 2 || strings.Join(x[0], "") == "" {
			t.Errorf("height %g cm: x labels %v", h, x[0])
		}
	}
}

// A label too long for any figure is refused with its start and length
// (a 1 MiB label made the legend, and with it the canvas, unbounded).
func TestOversizedFiguresAreRefused(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	label := long
	if testing.Short() {
		label = long[:4096] // still 7 m of legend at 10 pt: measuring 1 MiB of text takes a quarter of a second
	}
	_, err := NewFigure([]experiment.Run{series(label, 1, "objective", []float64{1, 2}, 0)}, Options{Metric: "objective"})
	if want := fmt.Sprintf(`more than 60 cm: the legend entry "%s…" (%d characters) is too long; shorten the label`, strings.Repeat("x", 39), len(label)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("label of %d characters: %v, want %q", len(label), err, want)
	}
	var many []experiment.Run
	for i := range 200 {
		many = append(many, series(strings.Repeat("s", i%10)+string(rune('A'+i%26))+strings.Repeat("-", i/26), 1, "objective", []float64{1, 2}, 0))
	}
	_, err = NewFigure(many, Options{Metric: "objective"})
	if err == nil || !strings.Contains(err.Error(), "200 legend entries (series and reference lines) at font size 10 pt; draw fewer series or use a smaller font_size") {
		t.Errorf("200 series: %v", err)
	}
	for _, o := range []Options{{Metric: "m", Width: 1e7}, {Metric: "m", FontSize: 1e6}, {Metric: "m", Height: 1}, {Metric: "m", Title: long}} {
		if err := o.Check(); err == nil {
			t.Errorf("options %.60v accepted", o)
		}
	}
}
