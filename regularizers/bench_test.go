package regularizers

import (
	"math"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// benchLayout is the LASSO (I) model: a rows×cols regularized kernel and an
// unregularized 1×1 bias.
func benchLayout(rows, cols int) core.Layout {
	return core.NewLayout(
		core.Block{Name: "kernel", Rows: rows, Cols: cols, Regularized: true},
		core.Block{Name: "bias", Rows: 1, Cols: 1},
	)
}

// benchInputs is the number of standard normal inputs a benchmark cycles
// through (512 kB for d = 1024, inside the 1 MB L2): with one input, or even
// 16, the branch predictor of the test machine (AMD Zen 5) learns the sign
// pattern and L1.Prox looks 6× faster than it is on a solver's iterates.
const benchInputs = 64

func randInputs(n int) [][]float64 {
	rng := newRNG(7)
	zs := make([][]float64, benchInputs)
	for i := range zs {
		zs[i] = randVec(rng, n, 1)
	}
	return zs
}

// benchProx times r.Prox(dst, z, t) on standard normal inputs z.
func benchProx(b *testing.B, r core.Regularizer, l core.Layout, t float64) {
	zs := randInputs(l.Dim())
	dst := make([]float64, l.Dim())
	r.Prox(dst, zs[0], t, l)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		r.Prox(dst, zs[i%benchInputs], t, l)
		i++
	}
}

// BenchmarkProx times one proximal step or projection on d = 1024 (+ bias)
// and singular value thresholding of a 32×32 kernel. The radii are well
// inside ‖z‖ (‖z‖₁ ≈ 817, ‖z‖₂ ≈ 32), so the projections are active.
func BenchmarkProx(b *testing.B) {
	b.Run("l1/d=1024", func(b *testing.B) { benchProx(b, L1{}, benchLayout(1024, 1), 0.01) })
	b.Run("l1_ball/d=1024", func(b *testing.B) { benchProx(b, L1Ball{Radius: 10}, benchLayout(1024, 1), 0) })
	b.Run("l2_ball/d=1024", func(b *testing.B) { benchProx(b, L2Ball{Radius: 1}, benchLayout(1024, 1), 0) })
	b.Run("nuclear/32x32", func(b *testing.B) { benchProx(b, Nuclear{}, benchLayout(32, 32), 1) })
}

// bisectL1Into is the simple alternative to projectL1: bisection on the
// threshold θ of Σ max(|vᵢ| − θ, 0) = s over [0, max|vᵢ|], to a relative
// width of 1e-13 (about 43 passes over v), then d = sign(v)·max(|v| − θ, 0).
// It is bisectL1 of balls_test.go without its allocation and with a
// tolerance instead of a fixed 200 passes.
func bisectL1Into(d, v []float64, s float64) {
	if norm1(v) <= s {
		copy(d, v)
		return
	}
	lo, hi := 0.0, 0.0
	for _, x := range v {
		hi = max(hi, math.Abs(x))
	}
	for range 200 {
		if hi-lo <= 1e-13*hi {
			break
		}
		theta := (lo + hi) / 2
		f := 0.0
		for _, x := range v {
			f += max(math.Abs(x)-theta, 0)
		}
		if f > s {
			lo = theta
		} else {
			hi = theta
		}
	}
	theta := (lo + hi) / 2
	for i, x := range v {
		d[i] = sign(x) * max(math.Abs(x)-theta, 0)
	}
}

// BenchmarkL1BallProjection compares the sort-based projection onto the ℓ1
// ball used by L1Ball (Duchi et al. 2008) with bisection on θ, on the same
// 16 standard normal inputs of d = 1024 and radius 10. The outputs are
// checked to agree to 1e-9 once before timing.
func BenchmarkL1BallProjection(b *testing.B) {
	const s = 10
	vs := randInputs(1024)
	want, got := make([]float64, 1024), make([]float64, 1024)
	for k, v := range vs {
		projectL1(want, v, s)
		bisectL1Into(got, v, s)
		for i := range want {
			if math.Abs(want[i]-got[i]) > 1e-9 {
				b.Fatalf("input %d, entry %d: sort %g, bisection %g", k, i, want[i], got[i])
			}
		}
	}
	b.Run("sort", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			projectL1(got, vs[i%benchInputs], s)
			i++
		}
	})
	b.Run("bisection", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			bisectL1Into(got, vs[i%benchInputs], s)
			i++
		}
	})
}

// softSwitch is a soft threshold with a switch on each entry's sign, the
// simple alternative to L1.Prox's branch-free copysign(max(|x| − t, 0), x).
func softSwitch(d, v []float64, t float64) {
	for i, x := range v {
		switch {
		case x > t:
			d[i] = x - t
		case x < -t:
			d[i] = x + t
		default:
			d[i] = 0
		}
	}
}

// BenchmarkSoftThreshold compares L1.Prox (branch-free) with softSwitch
// on the same inputs as BenchmarkProx (d = 1024, t = 0.01). The outputs
// are checked to be equal once before timing.
func BenchmarkSoftThreshold(b *testing.B) {
	const t = 0.01
	l := benchLayout(1024, 1)
	zs := randInputs(l.Dim())
	want, got := make([]float64, l.Dim()), make([]float64, l.Dim())
	for k, z := range zs {
		L1{}.Prox(want, z, t, l)
		softSwitch(got[:1024], z[:1024], t)
		got[1024] = z[1024] // the bias is not regularized
		for i := range want {
			if want[i] != got[i] {
				b.Fatalf("input %d, entry %d: L1.Prox %g, switch %g", k, i, want[i], got[i])
			}
		}
	}
	b.Run("prox", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			L1{}.Prox(got, zs[i%benchInputs], t, l)
			i++
		}
	})
	b.Run("switch", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			z := zs[i%benchInputs]
			softSwitch(got[:1024], z[:1024], t)
			got[1024] = z[1024]
			i++
		}
	})
}
