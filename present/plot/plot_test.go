package plot

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/experiment"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// curve makes a run whose "loss" at rounds 0, 10, 20 is scale/(round+1).
func curve(label string, seed uint64, scale float64, diverged bool) experiment.Run {
	res := &core.Result{Metrics: []string{"loss"}, Status: core.Done}
	for r := 0; r <= 20; r += 10 {
		if diverged && r > 10 {
			res.Status, res.DivergedAt = core.Diverged, 15
			break
		}
		res.Records = append(res.Records, core.Record{Round: r, Up: int64(r), Down: int64(2 * r), CommRounds: r,
			Values: []float64{scale / float64(r+1)}})
	}
	return experiment.Run{Label: label, Seed: seed, Result: res}
}

func TestLinesMeanAndStdOverSeeds(t *testing.T) {
	runs := []experiment.Run{curve("a", 1, 1, false), curve("a", 2, 3, false), curve("b", 1, 2, true), {Label: "later"}}
	s, err := Lines(runs, "loss", Options{X: "comm"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].Name != "a" || s[1].Name != "b" || s[0].Runs != 2 {
		t.Fatalf("series %+v", s)
	}
	a := s[0]
	if a.X[1] != 30 || a.Mean[0] != 2 || math.Abs(a.Std[0]-math.Sqrt2) > 1e-15 || a.Count[2] != 2 {
		t.Errorf("series a: %+v", a)
	}
	if len(s[1].X) != 2 {
		t.Errorf("the diverged run has %d points, want 2", len(s[1].X))
	}
	if _, err := Lines(runs, "nope", Options{}); err == nil {
		t.Errorf("an unknown metric was accepted")
	}
	if _, err := Lines(runs, "loss", Options{X: "clock"}); err == nil {
		t.Errorf("an unknown x axis was accepted")
	}
	skip, _ := Lines(runs, "loss", Options{SkipRound0: true})
	if skip[0].X[0] != 10 {
		t.Errorf("round 0 not skipped: %v", skip[0].X)
	}
}

func TestWallTimeAxisSpreadsTheElapsedTime(t *testing.T) {
	r := curve("a", 1, 1, false)
	r.Result.Elapsed = 4e9 // 4 s over 20 rounds
	s, err := Lines([]experiment.Run{r}, "loss", Options{X: "time"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s[0].X, []float64{0, 2, 4}) {
		t.Errorf("time axis %v, want [0 2 4]", s[0].X)
	}
}

func TestSaveWritesEveryFormat(t *testing.T) {
	runs := []experiment.Run{curve("a", 1, 1, false), curve("a", 2, 3, false), curve("b", 1, 2, false)}
	base := filepath.Join(t.TempDir(), "fig", "loss")
	paths, err := Save(base, runs, Options{Metric: "loss", YScale: Log, Title: "demo"}, AllFormats)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 || paths[0] != base+".png" || paths[1] != base+".svg" || paths[2] != base+".pdf" {
		t.Fatalf("paths %v", paths)
	}
	for i, magic := range []string{"\x89PNG", "<?xml", "%PDF"} {
		b, _ := os.ReadFile(paths[i])
		if !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("%s does not start with %q", paths[i], magic)
		}
	}
	if svg, _ := os.ReadFile(paths[1]); !strings.Contains(string(svg), "demo") {
		t.Errorf("the SVG lacks the title")
	}
	if _, err := Save(base, runs, Options{Metric: "loss"}, []string{"gif"}); err == nil {
		t.Errorf("an unknown format was accepted")
	}
	neg := []experiment.Run{curve("a", 1, -1, false)}
	if _, err := Save(base, neg, Options{Metric: "loss", YScale: Log}, nil); err == nil || !strings.Contains(err.Error(), "positive") {
		t.Errorf("log scale of negative values: %v", err)
	}
	for _, bad := range []Options{{Metric: "loss", YScale: "cubic"}, {Metric: "loss", YLim: []float64{1, 0}},
		{Metric: "loss", YScale: Log, YLim: []float64{0, 1}}, {}} {
		if _, err := Save(base, runs, bad, nil); err == nil {
			t.Errorf("options %+v accepted", bad)
		}
	}
}

// TestTwelveSeriesAreDistinctAndTheLegendFits draws 12 series and checks
// that every pair differs in (colour, dash pattern), and that the legend
// lies inside the canvas, beside the data of every panel.
func TestTwelveSeriesAreDistinctAndTheLegendFits(t *testing.T) {
	var runs []experiment.Run
	for i := range 12 {
		runs = append(runs, curve(fmt.Sprintf("algorithm number %d with a long name", i+1), 1, float64(i+1), false))
		runs[i].Result.Metrics = []string{"loss", "l2_error"}
		for k := range runs[i].Result.Records {
			v := runs[i].Result.Records[k].Values[0]
			runs[i].Result.Records[k].Values = []float64{v, v / 2}
		}
	}
	fig, err := NewFigure(runs, Options{Metrics: []string{"loss", "l2_error"}, Title: "twelve"})
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Styles) != 12 {
		t.Fatalf("%d legend entries, want 12", len(fig.Styles))
	}
	type key struct {
		c color.NRGBA
		d string
	}
	seen := map[key]int{}
	for i, st := range fig.Styles {
		k := key{st.Color, fmt.Sprint(st.Dashes)}
		if j, dup := seen[k]; dup {
			t.Errorf("series %d and %d share colour %v and dashes %v", j, i, st.Color, st.Dashes)
		}
		seen[k] = i
	}
	l := fig.Layout()
	inside := func(r, in vg.Rectangle) bool {
		return r.Min.X >= in.Min.X && r.Min.Y >= in.Min.Y && r.Max.X <= in.Max.X && r.Max.Y <= in.Max.Y
	}
	if !inside(l.Legend, l.Canvas) {
		t.Errorf("legend %v outside the canvas %v", l.Legend, l.Canvas)
	}
	if l.Legend.Size().X <= 0 || l.Legend.Size().Y <= 0 {
		t.Errorf("empty legend %v", l.Legend)
	}
	if len(l.Data) != 2 {
		t.Fatalf("%d data areas", len(l.Data))
	}
	for i, d := range l.Data {
		if !inside(d, l.Canvas) || d.Max.X > l.Legend.Min.X {
			t.Errorf("panel %d's data %v is not left of the legend %v inside the canvas", i, d, l.Legend)
		}
	}
}

func TestMetricAsXAxis(t *testing.T) {
	run := curve("a", 1, 1, false)
	run.Result.Metrics = append(run.Result.Metrics, "bits")
	for i := range run.Result.Records {
		run.Result.Records[i].Values = append(run.Result.Records[i].Values, float64(640*i))
	}
	s, err := Lines([]experiment.Run{run}, "loss", Options{X: "bits"})
	if err != nil {
		t.Fatal(err)
	}
	if x := s[0].X; len(x) != 3 || x[0] != 0 || x[1] != 640 || x[2] != 1280 {
		t.Fatalf("x = %v, want the bits column 0, 640, 1280", x)
	}
	if _, err := Lines([]experiment.Run{run}, "loss", Options{X: "epsilon"}); err == nil ||
		!strings.Contains(err.Error(), `key "x": "epsilon" is neither an axis (round, comm, comm_rounds, samples, time) nor a metric the runs measured; they have: loss, bits`) {
		t.Fatalf("unknown x: %v", err)
	}
}

// darkRun counts the columns between x0 and x1 where rows y−1 to y+1
// hold the ink of a black line at least one pixel thick (a line
// anti-aliased across two rows is grey in both).
func darkRun(img image.Image, y, x0, x1 int) int {
	n := 0
	for x := x0; x < x1; x++ {
		ink := 0.0
		for dy := -1; dy <= 1; dy++ {
			r, g, b, _ := img.At(x, y+dy).RGBA()
			ink += 1 - float64(max(r, g, b))/0xffff
		}
		if ink >= 0.9 {
			n++
		}
	}
	return n
}

// A reference line is drawn black across the data area of its panel at
// the y of its value, on linear and log axes, and only in its panel; its
// label is a legend entry.
func TestHLineIsDrawnAtItsValue(t *testing.T) {
	var runs []experiment.Run
	for seed, scale := range []float64{1, 3} {
		r := curve("a", uint64(seed+1), scale, false)
		r.Result.Metrics = []string{"loss", "l2_error"}
		for k := range r.Result.Records {
			v := r.Result.Records[k].Values[0]
			r.Result.Records[k].Values = []float64{v, v / 2}
		}
		runs = append(runs, r)
	}
	for _, scale := range []string{Linear, Log} {
		const value = 0.4
		opts := Options{Metrics: []string{"loss", "l2_error"}, YScale: scale,
			HLines: []HLine{{Value: value, Label: "optimum", Metric: "l2_error"}}}
		fig, err := NewFigure(runs, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(fig.Names, "optimum") {
			t.Errorf("%s: legend %v lacks the reference line", scale, fig.Names)
		}
		c := vgimg.NewWith(vgimg.UseWH(fig.Width, fig.Height), vgimg.UseDPI(72)) // 1 point = 1 pixel
		fig.Draw(draw.New(c))
		img := c.Image()
		h := img.Bounds().Dy()
		l := fig.Layout()
		for i, d := range l.Data {
			p := fig.Panels[i]
			// the row of y = value in this panel's data area (image rows grow downwards)
			at := func(v float64) int {
				return h - int(math.Round(float64(d.Min.Y+vg.Length(p.Y.Norm(v))*(d.Max.Y-d.Min.Y))))
			}
			x0, x1 := int(d.Min.X)+2, int(d.Max.X)-2
			best := darkRun(img, at(value), x0, x1)
			frac := float64(best) / float64(x1-x0)
			switch {
			case i == 1 && frac < 0.5: // dashes cover 2/3 of the line
				t.Errorf("%s: panel %s: %.0f%% of the row at y = %g is dark, want the dashed line", scale, opts.Metrics[i], 100*frac, value)
			case i == 0 && frac > 0.05:
				t.Errorf("%s: panel %s has a dark row at y = %g (%.0f%%); the line belongs to l2_error only", scale, opts.Metrics[i], value, 100*frac)
			}
			if i == 1 {
				// and nowhere else: the rows a few pixels away are not dark
				for _, dy := range []int{-6, 6} {
					if n := darkRun(img, at(value)+dy, x0, x1); n > (x1-x0)/20 {
						t.Errorf("%s: %d dark pixels %d rows off the line", scale, n, dy)
					}
				}
			}
		}
	}
	for _, bad := range []Options{
		{Metric: "loss", HLines: []HLine{{Value: 1, Metric: "f1"}}},
		{Metric: "loss", YScale: Log, HLines: []HLine{{Value: 0}}},
		{Metric: "loss", HLines: []HLine{{Value: math.NaN()}}},
	} {
		if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "hline 1") {
			t.Errorf("options %+v: %v", bad.HLines, err)
		}
	}
}

// TestNotesFollowTheSeriesInTheLegend: a note (a run in progress that the
// figure leaves out) is a legend entry after the series, without a line,
// and the legend makes room for it.
func TestNotesFollowTheSeriesInTheLegend(t *testing.T) {
	runs := []experiment.Run{curve("fedavg", 1, 1, false), curve("fedmid", 1, 2, false)}
	note := "in progress, not drawn: scaffold seed 1 at round 120 of 400"
	plain, err := NewFigure(runs, Options{Metric: "loss"})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := NewFigure(runs, Options{Metric: "loss", Notes: []string{note}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"fedavg", "fedmid", note}; !slices.Equal(fig.Names, want) || len(fig.Styles) != 3 || fig.Styles[2].Color != (color.NRGBA{}) {
		t.Errorf("legend %q with styles %v, want %q, the note without a line", fig.Names, fig.Styles, want)
	}
	if fig.Layout().Legend.Size().Y <= plain.Layout().Legend.Size().Y {
		t.Errorf("the legend with a note is %v high, without %v", fig.Layout().Legend.Size().Y, plain.Layout().Legend.Size().Y)
	}
}
