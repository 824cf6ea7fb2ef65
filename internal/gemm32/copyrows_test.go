package gemm32

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// CopyRows copies exactly the rows' values, whatever their length (whole
// blocks of sixteen and a partial one), and writes nothing else: NaNs
// around and between the rows of dst stay.
func TestCopyRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 11))
	for range trials(300) {
		rows, n := 1+rng.IntN(20), 1+rng.IntN(70)
		ds, ss := n+rng.IntN(5), rng.IntN(2*n)
		src := randSlice(rng, (rows-1)*ss+n+rng.IntN(3))
		dst := make([]float32, (rows-1)*ds+n+rng.IntN(3))
		for i := range dst {
			dst[i] = float32(math.NaN())
		}
		want := slices.Clone(dst)
		for r := range rows {
			copy(want[r*ds:r*ds+n], src[r*ss:r*ss+n])
		}
		CopyRows(dst, ds, src, ss, rows, n)
		for i := range want {
			if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%d rows of %d floats, strides %d and %d: dst[%d] = %g, want %g", rows, n, ds, ss, i, dst[i], want[i])
			}
		}
	}
}
