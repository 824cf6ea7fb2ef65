package gemm32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// AddRows gives the bits of the plain loop, row after row, for every row
// length around the 8-float blocks, strides that leave gaps, that are
// zero and that make rows of dst overlap (each row adds to the sums of the
// one before), with NaNs, infinities and signed zeros among the values;
// it writes nothing outside the rows.
func TestAddRowsMatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	value := func() float32 {
		switch rng.IntN(10) {
		case 0:
			return float32(math.NaN())
		case 1:
			return float32(math.Inf(1 - 2*rng.IntN(2)))
		case 2:
			return float32(math.Copysign(0, -1))
		}
		return float32(rng.NormFloat64())
	}
	for trial := range 2000 {
		rows, n := 1+rng.IntN(6), 1+rng.IntN(40)
		ds, ss := rng.IntN(2*n+3), n+rng.IntN(9)
		if trial%5 == 0 {
			ss = 0
		}
		dst, src := make([]float32, (rows-1)*ds+n+4), make([]float32, (rows-1)*ss+n)
		for i := range dst {
			dst[i] = value()
		}
		for i := range src {
			src[i] = value()
		}
		want := append([]float32(nil), dst...)
		for r := range rows {
			for i := range n {
				want[r*ds+i] += src[r*ss+i]
			}
		}
		AddRows(dst, ds, src, ss, rows, n)
		for i := range want {
			if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
				t.Fatalf("trial %d, %d rows of %d, strides %d and %d: dst[%d] = %g (%#x), want %g (%#x)",
					trial, rows, n, ds, ss, i, dst[i], math.Float32bits(dst[i]), want[i], math.Float32bits(want[i]))
			}
		}
	}
}
