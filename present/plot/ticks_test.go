package plot

import (
	"slices"
	"testing"

	gonum "gonum.org/v1/plot"
)

func labels(ticks []gonum.Tick) []string {
	var out []string
	for _, t := range ticks {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func TestTicksAreRoundNumbers(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		log    bool
		want   []string
	}{
		{0, 1, false, []string{"0", "0.2", "0.4", "0.6", "0.8", "1"}},
		{0, 500, false, []string{"0", "100", "200", "300", "400", "500"}},
		{0, 4.9e8, false, []string{"0", "1e8", "2e8", "3e8", "4e8"}},
		{-0.003, 0.0021, false, []string{"-0.003", "-0.002", "-0.001", "0", "0.001", "0.002"}},
		{0.6, 0.95, false, []string{"0.6", "0.7", "0.8", "0.9"}},
		// a fitted axis whose first label is far above its lowest tick
		// labels that tick too (the quickstart's test loss, 0.9 to 24.5)
		{0.9, 24.5, false, []string{"1", "5", "10", "15", "20"}},
		{0.62, 0.95, false, []string{"0.62", "0.7", "0.8", "0.9"}},
		{0.05, 4, true, []string{"0.05", "0.1", "0.2", "0.5", "1", "2"}},
		{0.05, 40, true, []string{"0.1", "1", "10"}},
		{0.3, 0.8, true, []string{"0.3", "0.4", "0.5", "0.6", "0.7", "0.8"}},
		{2, 30, true, []string{"2", "5", "10", "20"}},
		{1e-9, 10, true, []string{"1e-8", "1e-6", "0.0001", "0.01", "1"}},
	} {
		var ticks []gonum.Tick
		if c.log {
			ticks = logTicks{}.Ticks(c.lo, c.hi)
		} else {
			ticks = linearTicks{}.Ticks(c.lo, c.hi)
		}
		if got := labels(ticks); !slices.Equal(got, c.want) {
			t.Errorf("ticks of [%g, %g] (log %v): %v, want %v", c.lo, c.hi, c.log, got, c.want)
		}
	}
}
