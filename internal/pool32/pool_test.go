package pool32

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// value draws a float32 with many ties, NaNs, signed zeros and infinities.
func value(rng *rand.Rand) float32 {
	switch rng.IntN(12) {
	case 0:
		return float32(math.NaN())
	case 1:
		return float32(math.Inf(-1 + 2*rng.IntN(2)))
	case 2:
		return float32(math.Copysign(0, -1))
	case 3:
		return 0
	case 4, 5:
		return float32(rng.IntN(3) - 1) // ties
	}
	return float32(rng.NormFloat64())
}

// shape draws a row of n windows of C channels in a map: rows next floats
// apart (at least 2nC, sometimes more), the windows at at.
func shape(rng *rand.Rand) (n, C, at, next, size int) {
	n, C = 1+rng.IntN(9), 1+rng.IntN(40)
	next = 2*n*C + rng.IntN(3)*C
	at = rng.IntN(3) * C
	return n, C, at, next, at + 2*next + rng.IntN(5)
}

// Pool2 gives, bit for bit, the definition: per window and channel the
// first maximum in row-major order (strictly greater replaces), then Go's
// max(0, maximum + b); it writes nothing past the n·C pooled values.
func TestPool2MatchesDefinition(t *testing.T) {
	forEachKernels(t, testPool2)
}

func testPool2(t *testing.T, name string) {
	rng := rand.New(rand.NewPCG(7, 1))
	for trial := range 3000 {
		n, C, at, next, size := shape(rng)
		out, b := make([]float32, size), make([]float32, C)
		for i := range out {
			out[i] = value(rng)
		}
		for i := range b {
			b[i] = value(rng)
		}
		const canary = 1234.5
		pooled, arg := make([]float32, n*C+9), make([]int32, n*C+9)
		for i := range pooled {
			pooled[i], arg[i] = canary, -7
		}
		Pool2(n, C, out, at, next, b, pooled, arg)
		for x := range n {
			for c := range C {
				best, where := float32(0), -1
				for i := range 2 {
					for j := range 2 {
						a := at + i*next + (2*x+j)*C + c
						if where < 0 || out[a] > best {
							best, where = out[a], a
						}
					}
				}
				want := max(0, best+b[c])
				o := x*C + c
				if int(arg[o]) != where || math.Float32bits(pooled[o]) != math.Float32bits(want) {
					t.Fatalf("%s kernels, trial %d, %d windows of %d channels: pooled[%d] = %g (%#x) at %d, want %g (%#x) at %d",
						name, trial, n, C, o, pooled[o], math.Float32bits(pooled[o]), arg[o], want, math.Float32bits(want), where)
				}
			}
		}
		for i := n * C; i < len(pooled); i++ {
			if pooled[i] != canary || arg[i] != -7 {
				t.Fatalf("%s kernels, trial %d: wrote past the pooled values at %d", name, trial, i)
			}
		}
	}
}

// Unpool2 gives, bit for bit, the definition: each gradient where the
// ReLU was active (else +0) added to 0 at its window's maximum, +0 at the
// window's other pixels, and added to the bias gradient window by window;
// pixels outside the windows and values past them are not written.
func TestUnpool2MatchesDefinition(t *testing.T) {
	forEachKernels(t, testUnpool2)
}

func testUnpool2(t *testing.T, name string) {
	rng := rand.New(rand.NewPCG(7, 2))
	for trial := range 3000 {
		n, C, at, next, size := shape(rng)
		dp, pooled, arg := make([]float32, n*C), make([]float32, n*C), make([]int32, n*C)
		for o := range dp {
			x, c := o/C, o%C
			i, j := rng.IntN(2), rng.IntN(2)
			arg[o] = int32(at + i*next + (2*x+j)*C + c)
			dp[o], pooled[o] = value(rng), value(rng)
		}
		const canary = 55.5
		got, want := make([]float32, size), make([]float32, size)
		for i := range got {
			got[i], want[i] = canary, canary
		}
		gb, wantB := make([]float32, C+3), make([]float32, C+3)
		for i := range gb {
			gb[i] = value(rng)
			wantB[i] = gb[i]
		}
		for o, v := range dp {
			x, c := o/C, o%C
			if !(pooled[o] > 0) {
				v = 0
			}
			for i := range 2 {
				for j := range 2 {
					want[at+i*next+(2*x+j)*C+c] = 0
				}
			}
			want[arg[o]] += v
			wantB[c] += v
		}
		Unpool2(n, C, dp, pooled, arg, got, at, next, gb)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s kernels, trial %d, %d windows of %d channels: dout[%d] = %g (%#x), want %g (%#x)", name, trial, n, C, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
			}
		}
		for i := range wantB {
			// The payload of a NaN sum of two NaNs is the first operand's, and
			// which one that is here depends on the compiler (unpool32 in
			// losses, which the kernels replace, adds v to gb as they do).
			if math.Float32bits(gb[i]) != math.Float32bits(wantB[i]) && !(gb[i] != gb[i] && wantB[i] != wantB[i]) {
				t.Fatalf("%s kernels, trial %d, %d channels: gb[%d] = %g (%#x), want %g (%#x)", name, trial, C, i, gb[i], math.Float32bits(gb[i]), wantB[i], math.Float32bits(wantB[i]))
			}
		}
	}
}

// The kernels refuse windows that do not fit their slices.
func TestPool2Refuses(t *testing.T) {
	if !Enabled() {
		t.Skip("no AVX2")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Pool2 accepted a row of windows past the map's end")
		}
	}()
	out := make([]float32, 15)
	Pool2(2, 2, out, 0, 8, make([]float32, 2), make([]float32, 4), make([]int32, 4))
}

// forEachKernels runs test with each kernel set of Available in turn.
func forEachKernels(t *testing.T, test func(t *testing.T, name string)) {
	if !Enabled() {
		t.Skip("no AVX2")
	}
	prev, _ := Set(Available()[0])
	defer Set(prev)
	for _, name := range Available() {
		if _, err := Set(name); err != nil {
			t.Fatal(err)
		}
		test(t, name)
	}
}

// Set refuses a kernel set the CPU lacks and names the ones it has.
func TestSetRefusesUnknownKernels(t *testing.T) {
	prev, err := Set("sse9")
	if err == nil || !strings.Contains(err.Error(), `"sse9" not available`) {
		t.Fatalf("Set(sse9) = %v", err)
	}
	if got, _ := Set(prev); got != prev {
		t.Fatalf("Set changed the kernels to %q on an error", got)
	}
}
