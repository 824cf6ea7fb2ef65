package plot

import (
	"math"
	"slices"
	"strconv"
	"strings"

	gonum "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// newVectorCanvas makes an SVG or PDF canvas.
func newVectorCanvas(format string, w, h vg.Length) (vg.CanvasWriterTo, error) {
	if format == "pdf" {
		c := vgpdf.New(w, h)
		c.EmbedFonts(true)
		return c, nil
	}
	return vgsvg.New(w, h), nil
}

// linearTicks marks a linear axis at 1, 2 or 5 times a power of ten, at
// most six labelled ticks (the finest such step) with unlabelled ones between, labelled in
// the shortest form ("250", "0.001", "2.5e6").
type linearTicks struct{}

// Ticks returns the ticks between lo and hi.
func (linearTicks) Ticks(lo, hi float64) []gonum.Tick {
	if !(hi > lo) {
		return []gonum.Tick{{Value: lo, Label: tickLabel(lo)}}
	}
	mag := math.Pow10(int(math.Floor(math.Log10((hi - lo) / 5))))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} { // the smallest step giving at most six labels
		if (hi-lo)/(m*mag) <= 6 {
			step = m * mag
			break
		}
	}
	minor := step / 5
	if step/mag == 2 {
		minor = step / 4
	}
	var ticks []gonum.Tick
	for k := math.Ceil(lo/minor - 1e-9); k*minor <= hi*(1+1e-12)+1e-300; k++ {
		v := k * minor
		major := math.Abs(v/step-math.Round(v/step)) < 1e-6
		t := gonum.Tick{Value: v}
		if major {
			t.Value = math.Round(v/step) * step
			t.Label = tickLabel(t.Value)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// tickLabel renders a tick value shortly: "0", "250", "0.001", "2.5e6".
func tickLabel(v float64) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	s := strconv.FormatFloat(v, 'g', 4, 64)
	if mant, exp, ok := strings.Cut(s, "e"); ok {
		e, _ := strconv.Atoi(exp)
		return mant + "e" + strconv.Itoa(e)
	}
	return s
}

// logTicks marks a log axis: labels at 1, 2 and 5 times the powers of ten
// when the axis spans at most three decades, at every power of ten up to
// six decades and every other one beyond; unlabelled ticks at the other
// integer multiples.
type logTicks struct{}

// Ticks returns the ticks between lo and hi (both > 0).
func (logTicks) Ticks(lo, hi float64) []gonum.Tick {
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	labelled := []int{1}
	if last-first <= 3 {
		labelled = []int{1, 2, 5}
	}
	every := 1
	if last-first > 6 {
		every = 2
	}
	var ticks []gonum.Tick
	for e := first; e <= last; e++ {
		for m := 1; m <= 9; m++ {
			v, _ := strconv.ParseFloat(strconv.Itoa(m)+"e"+strconv.Itoa(e), 64) // exact decimal, no rounding drift
			if v < lo*(1-1e-12) || v > hi*(1+1e-12) {
				continue
			}
			t := gonum.Tick{Value: v}
			if slices.Contains(labelled, m) && (m != 1 || e%every == 0) {
				t.Label = tickLabel(v)
			}
			ticks = append(ticks, t)
		}
	}
	labels := 0
	for _, t := range ticks {
		if t.Label != "" {
			labels++
		}
	}
	if labels < 2 {
		for i := range ticks { // less than a decade: label every tick
			ticks[i].Label = tickLabel(ticks[i].Value)
		}
	}
	return ticks
}
