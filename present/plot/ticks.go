package plot

import (
	"cmp"
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

// defaultIntervals is the number of intervals between labelled ticks a
// marker aims at when nothing smaller is needed to fit its labels.
const defaultIntervals = 6

// linearTicks marks a linear axis at 1, 2 or 5 times a power of ten (the
// finest such step with at most intervals steps, default 6) with
// unlabelled ticks between, labelled in the shortest form ("250",
// "0.001", "2.5e6"); the lowest tick is labelled too (labelLowest).
type linearTicks struct{ intervals int }

// Ticks returns the ticks between lo and hi.
func (lt linearTicks) Ticks(lo, hi float64) []gonum.Tick {
	n := float64(cmp.Or(lt.intervals, defaultIntervals))
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return endTicks(lo, hi)
	}
	mag := math.Pow10(int(math.Floor(math.Log10((hi - lo) / 5))))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5, 10, 20, 50} { // the smallest step giving at most n intervals
		if (hi-lo)/(m*mag) <= n {
			step = m * mag
			break
		}
	}
	minor := step / 5
	if step/mag == 2 || step/mag == 20 {
		minor = step / 4
	}
	var ticks []gonum.Tick
	first := math.Ceil(lo/minor - 1e-9)
	for i := 0.0; i <= 5*(n+1)*2; i++ { // bounded: at most 5 minor ticks per step
		v := (first + i) * minor
		if v > hi*(1+1e-12)+1e-300 {
			break
		}
		if len(ticks) > 0 && v == ticks[len(ticks)-1].Value {
			continue // beyond float precision (a narrow range far from 0)
		}
		t := gonum.Tick{Value: v}
		if math.Abs(v/step-math.Round(v/step)) < 1e-6 {
			t.Value = math.Round(v/step) * step
			t.Label = tickLabel(t.Value)
		}
		ticks = append(ticks, t)
	}
	return distinctLabels(labelLowest(ticks))
}

// labelLowest labels the lowest tick of a fitted axis when it is unlabelled
// and at least two ticks below the first label (a loss that levels off at
// 0.9 on an axis labelled from 5 up otherwise shows no value at the
// bottom).
func labelLowest(ticks []gonum.Tick) []gonum.Tick {
	first := slices.IndexFunc(ticks, func(t gonum.Tick) bool { return t.Label != "" })
	if len(ticks) > 0 && ticks[0].Label == "" && (first < 0 || first >= 2) {
		ticks[0].Label = tickLabel(ticks[0].Value)
	}
	return ticks
}

// endTicks labels the two ends of a range that has no room for steps.
func endTicks(lo, hi float64) []gonum.Tick {
	if !(hi > lo) {
		return []gonum.Tick{{Value: lo, Label: tickLabel(lo)}}
	}
	return []gonum.Tick{{Value: lo, Label: tickLabel(lo)}, {Value: hi, Label: tickLabel(hi)}}
}

// distinctLabels unlabels a tick whose label repeats the previous label
// (values that differ beyond the four digits of a label).
func distinctLabels(ticks []gonum.Tick) []gonum.Tick {
	prev := ""
	for i, t := range ticks {
		if t.Label == "" {
			continue
		}
		if t.Label == prev {
			ticks[i].Label = ""
		}
		prev = t.Label
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
// six decades, and beyond at every k-th power (k = 2, 5, 10, 20, …: the
// smallest giving at most intervals labels, default 6); unlabelled ticks
// at the other integer multiples up to twelve decades, at the powers of
// ten between labels beyond.
type logTicks struct{ intervals int }

// Ticks returns the ticks between lo and hi (both > 0).
func (lt logTicks) Ticks(lo, hi float64) []gonum.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return endTicks(lo, hi)
	}
	n := cmp.Or(lt.intervals, defaultIntervals)
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	decades := last - first
	labelled := []int{1}
	if decades <= 3 && n >= defaultIntervals {
		labelled = []int{1, 2, 5}
	}
	every := 1
	if decades > n {
		for _, k := range []int{2, 5, 10, 20, 50, 100, 200} {
			if every = k; decades/k <= n {
				break
			}
		}
	}
	multiples := 9 // unlabelled ticks at 2…9 × 10^e
	minorEvery := 1
	if decades > 12 {
		multiples, minorEvery = 1, max(1, every/5)
	}
	var ticks []gonum.Tick
	for e := first; e <= last; e++ {
		if e%minorEvery != 0 {
			continue
		}
		for m := 1; m <= multiples; m++ {
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
	if labels < 2 && len(ticks) <= n+1 {
		for i := range ticks { // less than a decade: label every tick
			ticks[i].Label = tickLabel(ticks[i].Value)
		}
	}
	if labels < 2 && len(ticks) > n+1 {
		return linearTicks{intervals: n}.Ticks(lo, hi)
	}
	return ticks
}
