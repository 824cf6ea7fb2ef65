package gemm32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Round and Widen give the bits of the plain conversion loops at every
// length around the 16-value blocks, on random bit patterns (NaNs with
// payloads, infinities, subnormals of both widths, values past float32's
// range) and on values halfway between two float32s (ties to even).
func TestRoundWidenMatchLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	f64 := func() float64 {
		switch rng.IntN(6) {
		case 0:
			return math.Float64frombits(rng.Uint64())
		case 1: // halfway between two float32s
			f := math.Float32frombits(rng.Uint32() &^ (1 << 31) % 0x7f000000)
			g := math.Nextafter32(f, float32(math.Inf(1)))
			return (float64(f) + float64(g)) / 2
		case 2:
			return math.Ldexp(rng.NormFloat64(), -140-rng.IntN(20)) // float32 subnormals and underflow
		case 3:
			return math.Ldexp(rng.NormFloat64(), 120+rng.IntN(20)) // near and past float32's largest
		}
		return rng.NormFloat64()
	}
	for _, n := range []int{0, 1, 7, 15, 16, 17, 31, 32, 33, 47, 100, 1000} {
		for range 20 {
			src := make([]float64, n)
			for i := range src {
				src[i] = f64()
			}
			got := make([]float32, n+3)
			for i := range got {
				got[i] = 42
			}
			Round(got, src)
			for i, v := range src {
				if want := float32(v); math.Float32bits(got[i]) != math.Float32bits(want) {
					t.Fatalf("n %d: Round of %v (%#x) = %#x, want %#x", n, v, math.Float64bits(v), math.Float32bits(got[i]), math.Float32bits(want))
				}
			}
			if got[n] != 42 {
				t.Fatalf("n %d: Round wrote past its values", n)
			}
			src32 := make([]float32, n)
			for i := range src32 {
				src32[i] = math.Float32frombits(rng.Uint32())
			}
			wide := make([]float64, n+3)
			for i := range wide {
				wide[i] = 42
			}
			Widen(wide, src32)
			for i, v := range src32 {
				if want := float64(v); math.Float64bits(wide[i]) != math.Float64bits(want) {
					t.Fatalf("n %d: Widen of %#x = %#x, want %#x", n, math.Float32bits(v), math.Float64bits(wide[i]), math.Float64bits(want))
				}
			}
			if wide[n] != 42 {
				t.Fatalf("n %d: Widen wrote past its values", n)
			}
		}
	}
}
