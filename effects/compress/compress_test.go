package compress

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"gonum.org/v1/gonum/floats"
)

func TestTopKWithKEqualDIsTheIdentity(t *testing.T) {
	x := []float64{0.3, -2, 0, 1e-300, 5, -5}
	for _, c := range []TopK{{Count: Count{K: 6}}, {Count: Count{K: 100}}, {Count: Count{Fraction: 1}}} {
		y := slices.Clone(x)
		c.Compress(y, nil, make([]int, len(y)))
		if !slices.Equal(x, y) {
			t.Fatalf("%+v changed %v into %v", c, x, y)
		}
	}
}

func TestTopKKeepsTheLargestAndBreaksTiesByIndex(t *testing.T) {
	x := []float64{0.3, -2, 0, 1, 5, -5, 2}
	bits := TopK{Count: Count{K: 3}}.Compress(x, nil, make([]int, len(x)))
	// |x| = 5, 5 (indices 4, 5), then 2, 2 (indices 1, 6): index 1 wins
	if want := []float64{0, -2, 0, 0, 5, -5, 0}; !slices.Equal(x, want) {
		t.Fatalf("top-3 = %v, want %v", x, want)
	}
	// 3 values of 64 bits and 3 indices of ⌈log₂ 7⌉ = 3 bits
	if bits != 3*(64+3) {
		t.Fatalf("bits = %d, want %d", bits, 3*(64+3))
	}
}

func TestBitCountsByHand(t *testing.T) {
	d := 1000 // indices: ⌈log₂ 1000⌉ = 10 bits
	x := make([]float64, d)
	rng := rand.New(rand.NewPCG(1, 2))
	idx := make([]int, d)
	cases := []struct {
		c    core.Compressor
		want int64
	}{
		{TopK{Count: Count{Fraction: 0.01}}, 10 * (64 + 10)}, // top-1%: 10 values + 10 indices
		{RandK{Count: Count{K: 25}}, 25*64 + 64},             // 25 values + the seed
		{Sign{}, 1000 + 64},                                  // one bit per sign + the scale
		{QSGD{Levels: 1}, 64 + 1000*(1+1)},                   // norm + sign + level in {0, 1}
		{QSGD{Levels: 4}, 64 + 1000*(1+3)},                   // levels 0…4: 3 bits
		{QSGD{Levels: 255}, 64 + 1000*(1+8)},                 // levels 0…255: 8 bits
	}
	for _, c := range cases {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		if got := c.c.Compress(x, rng, idx); got != c.want {
			t.Errorf("%T%+v: %d bits, want %d", c.c, c.c, got, c.want)
		}
	}
	for d, want := range map[int]int64{2: 1, 3: 2, 4: 2, 5: 3, 1024: 10, 1025: 11} {
		if got := IndexBits(d); got != want {
			t.Errorf("IndexBits(%d) = %d, want %d", d, got, want)
		}
	}
}

// TestQSGDIsUnbiased averages N quantisations of a fixed x. Coordinate i
// takes the two values ‖x‖·l/s and ‖x‖·(l+1)/s with the probabilities that
// make its mean x_i, so its variance is exactly (‖x‖/s)²·p(1−p) with
// p = s|x_i|/‖x‖ − l. The test asserts |mean_i − x_i| ≤ 4·sd_i/√N for every
// coordinate, and that the total variance respects Alistarh et al.'s bound
// min(d/s², √d/s)·‖x‖². A biased rounding (nearest level) would miss x_i by
// up to ‖x‖/(2s), far outside 4·sd/√N at N = 20000.
func TestQSGDIsUnbiased(t *testing.T) {
	const N = 20000
	rng := rand.New(rand.NewPCG(7, 11))
	x := []float64{0.9, -0.35, 0.12, 0, -0.051, 0.6, 0.2, -0.77}
	d := len(x)
	norm := floats.Norm(x, 2)
	for _, s := range []int{1, 2, 4} {
		q := QSGD{Levels: s}
		sum := make([]float64, d)
		var sqErr float64
		y := make([]float64, d)
		for range N {
			copy(y, x)
			q.Compress(y, rng, nil)
			for i := range y {
				sum[i] += y[i]
				sqErr += (y[i] - x[i]) * (y[i] - x[i])
			}
		}
		var exactVar float64
		for i := range x {
			a := math.Abs(x[i]) / norm * float64(s)
			p := a - math.Floor(a)
			v := (norm / float64(s)) * (norm / float64(s)) * p * (1 - p)
			exactVar += v
			mean := sum[i] / N
			if tol := 4 * math.Sqrt(v/N); math.Abs(mean-x[i]) > tol+1e-15 {
				t.Errorf("s=%d coordinate %d: mean %g, x %g (tolerance %g)", s, i, mean, x[i], tol)
			}
		}
		bound := math.Min(float64(d)/float64(s*s), math.Sqrt(float64(d))/float64(s)) * norm * norm
		if v := sqErr / N; v > bound || math.Abs(v/exactVar-1) > 0.05 {
			t.Errorf("s=%d: E‖Q(x)−x‖² ≈ %g, exact %g, bound %g", s, v, exactVar, bound)
		}
	}
}

func TestRandKIsUnbiasedAndSignKeepsTheL1Scale(t *testing.T) {
	const N = 20000
	rng := rand.New(rand.NewPCG(3, 5))
	x := []float64{1, -2, 3, -4, 5}
	sum := make([]float64, len(x))
	y := make([]float64, len(x))
	idx := make([]int, len(x))
	for range N {
		copy(y, x)
		RandK{Count: Count{K: 2}, Unbiased: true}.Compress(y, rng, idx)
		for i := range y {
			sum[i] += y[i]
		}
	}
	// each coordinate: (d/k)·x_i with probability k/d, else 0:
	// variance x_i²(d/k − 1) = 1.5 x_i²
	for i := range x {
		if sd := math.Sqrt(1.5 * x[i] * x[i] / N); math.Abs(sum[i]/N-x[i]) > 4*sd {
			t.Errorf("rand-k coordinate %d: mean %g, want %g ± %g", i, sum[i]/N, x[i], 4*sd)
		}
	}
	copy(y, x)
	Sign{}.Compress(y, nil, nil)
	if want := []float64{3, -3, 3, -3, 3}; !slices.Equal(y, want) {
		t.Fatalf("scaled sign = %v, want %v", y, want)
	}
}

func TestBadCounts(t *testing.T) {
	for _, c := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"k": 0.0}, "give k ≥ 1 (coordinates kept) or fraction in (0, 1]; k = 0 keeps nothing"},
		{map[string]any{}, "give k ≥ 1"},
		{map[string]any{"k": 3.0, "fraction": 0.1}, "give k or fraction, not both"},
		{map[string]any{"k": -1.0}, `parameter "k" = -1 is below its minimum 0`},
		{map[string]any{"fraction": 1.5}, `parameter "fraction" = 1.5 is above its maximum 1`},
	} {
		_, err := registry.Build[core.Compressor](registry.Compressor, "top_k", c.raw)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.raw, err, c.want)
		}
	}
	if _, err := registry.Build[core.Compressor](registry.Compressor, "qsgd", map[string]any{"levels": 0.0}); err == nil ||
		!strings.Contains(err.Error(), `"levels" = 0 is below its minimum 1`) {
		t.Errorf("qsgd levels = 0: %v", err)
	}
}

// TestTopKSelectionMatchesSorting compares the quickselect with a full sort
// under the same order (|x| descending, lower index first) on vectors with
// many ties.
func TestTopKSelectionMatchesSorting(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := range 300 {
		d := 1 + rng.IntN(60)
		x := make([]float64, d)
		for i := range x {
			x[i] = float64(rng.IntN(7) - 3) // values in −3…3: many ties, zeros
		}
		k := 1 + rng.IntN(d)
		order := make([]int, d)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			if c := cmp.Compare(math.Abs(x[b]), math.Abs(x[a])); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		want := make([]float64, d)
		for _, i := range order[:k] {
			want[i] = x[i]
		}
		got := slices.Clone(x)
		TopK{Count: Count{K: k}}.Compress(got, nil, make([]int, d))
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d, k = %d of %v: got %v, want %v", trial, k, x, got, want)
		}
	}
}
