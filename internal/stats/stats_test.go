package stats

import (
	"math"
	"testing"
)

func TestMeanStd(t *testing.T) {
	m, s := MeanStd([]float64{1, 2, 3, 4})
	if m != 2.5 || math.Abs(s-math.Sqrt(5.0/3)) > 1e-15 {
		t.Fatalf("mean %g std %g, want 2.5 and √(5/3)", m, s)
	}
	x := 24.437185929648244 // identical values: exactly that value, std exactly 0
	if m, s := MeanStd([]float64{x, x, x}); m != x || s != 0 {
		t.Fatalf("identical values: mean %v std %v", m, s)
	}
	if m, s := MeanStd([]float64{7}); m != 7 || s != 0 {
		t.Fatalf("one value: mean %v std %v", m, s)
	}
	if m, s := MeanStd([]float64{math.Inf(1)}); !math.IsInf(m, 1) || s != 0 {
		t.Fatalf("+Inf alone: mean %v std %v, want +Inf and 0", m, s)
	}
	if m, _ := MeanStd([]float64{math.Inf(1), 2}); !math.IsInf(m, 1) {
		t.Fatalf("mean of +Inf and 2 = %v, want +Inf", m)
	}
}
