package prefetch

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// TestFloatsOnlyReads hints slices of every length and alignment up to a
// few rows and checks that no value, inside or around them, changed.
func TestFloatsOnlyReads(t *testing.T) {
	buf := make([]float64, 4096)
	for i := range buf {
		buf[i] = float64(i) + 0.5
	}
	want := append([]float64(nil), buf...)
	for off := range 9 {
		for n := 0; n < 1100; n += 7 {
			Floats(buf[off : off+n])
		}
	}
	for i := range buf {
		if buf[i] != want[i] {
			t.Fatalf("value %d changed from %g to %g", i, want[i], buf[i])
		}
	}
}

// benchmarkRows computes xᵀw and adds it back (a squared loss's step) for
// 10 clients of 128 rows of d = 1025, each client's rows in random order,
// from a 64 MB matrix that does not fit in the last-level cache, hinting
// the next row's memory if hint is set.
func benchmarkRows(b *testing.B, hint bool) {
	const n, d = 8192, 1025
	x := make([]float64, n*d)
	for i := range x {
		x[i] = float64(i%7) * 0.1
	}
	w, g := make([]float64, d), make([]float64, d)
	rng := rand.New(rand.NewPCG(1, 2))
	b.SetBytes(10 * 128 * d * 8)
	b.ResetTimer()
	for range b.N {
		for range 10 {
			base := rng.IntN(n/128) * 128
			perm := rng.Perm(128)
			for k, i := range perm {
				if hint && k+1 < len(perm) {
					Floats(x[(base+perm[k+1])*d : (base+perm[k+1]+1)*d])
				}
				row := x[(base+i)*d : (base+i+1)*d]
				floats.AddScaled(g, 1e-6*floats.Dot(row, w), row)
			}
		}
	}
}

func BenchmarkRandomRows(b *testing.B)       { benchmarkRows(b, false) }
func BenchmarkRandomRowsHinted(b *testing.B) { benchmarkRows(b, true) }
