package regularizers

import (
	"fmt"
	"math"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// allRegularizers lists every regularizer with a label.
func allRegularizers() []struct {
	name string
	r    core.Regularizer
} {
	return []struct {
		name string
		r    core.Regularizer
	}{
		{"none", None{}},
		{"l1", L1{}},
		{"l2sq", L2Sq{}},
		{"elastic_net(0)", ElasticNet{L1Ratio: 0}},
		{"elastic_net(0.3)", ElasticNet{L1Ratio: 0.3}},
		{"elastic_net(1)", ElasticNet{L1Ratio: 1}},
		{"nuclear", Nuclear{}},
		{"l1_ball", L1Ball{Radius: 1.5}},
		{"l2_ball", L2Ball{Radius: 0.8}},
	}
}

// TestProxMinimizes checks the defining property of the prox of a convex ψ₁:
// F(y) ≥ F(u) + ½‖y−u‖² for every y, where F(y) = ½‖y−z‖² + tψ₁(y) and
// u = prox(z). (F is 1-strongly convex, and this holds for all y iff u is
// its minimizer.) The y are random points and small perturbations of u.
func TestProxMinimizes(t *testing.T) {
	l := testLayout()
	rng := newRNG(1)
	for _, c := range allRegularizers() {
		for trial := 0; trial < 20; trial++ {
			z := randVec(rng, l.Dim(), 1.5)
			step := []float64{0.05, 0.4, 1, 3}[trial%4]
			u := prox(c.r, z, step, l)
			fu := proxObjective(c.r, u, z, step, l)
			if math.IsInf(fu, 0) || math.IsNaN(fu) {
				t.Fatalf("%s: F(prox) = %g", c.name, fu)
			}
			for k := 0; k < 200; k++ {
				var y []float64
				switch k % 3 {
				case 0:
					y = randVec(rng, l.Dim(), 1.5)
				case 1:
					y = prox(c.r, randVec(rng, l.Dim(), 2), 1, l) // feasible for constraints
				default:
					eps := []float64{1e-1, 1e-3, 1e-5}[k%3]
					d := randVec(rng, l.Dim(), eps)
					y = make([]float64, len(u))
					for i := range y {
						y[i] = u[i] + d[i]
					}
					y = prox(c.r, y, 0, l) // back into the set for constraints; identity for penalties
					y = mix(u, y, k)
				}
				fy := proxObjective(c.r, y, z, step, l)
				d := sub(y, u)
				if fy < fu+0.5*dot(d, d)-1e-9*(1+math.Abs(fu)) {
					t.Fatalf("%s t=%g: F(y)=%.15g < F(u)+½‖y−u‖²=%.15g", c.name, step, fy, fu+0.5*dot(d, d))
				}
			}
		}
	}
}

// mix returns y with a few coordinates reset to u, so that perturbations
// also probe single coordinates and kinks at zero.
func mix(u, y []float64, k int) []float64 {
	out := append([]float64(nil), y...)
	for i := range out {
		if (i+k)%3 != 0 {
			out[i] = u[i]
		}
	}
	return out
}

// TestUnregularizedBlocks checks that Prox copies the bias exactly and that
// Subgradient writes zero there, whatever dst held before.
func TestUnregularizedBlocks(t *testing.T) {
	l := testLayout()
	bias, _ := l.Block("bias")
	rng := newRNG(2)
	for _, c := range allRegularizers() {
		z := randVec(rng, l.Dim(), 3)
		dst := randVec(rng, l.Dim(), 100)
		c.r.Prox(dst, z, 2, l)
		for i, v := range bias.Of(dst) {
			if v != bias.Of(z)[i] {
				t.Errorf("%s: Prox changed bias[%d]: %g -> %g", c.name, i, bias.Of(z)[i], v)
			}
		}
		w := prox(c.r, z, 1, l) // feasible for constraints
		g := randVec(rng, l.Dim(), 100)
		c.r.Subgradient(g, w, l)
		for i, v := range bias.Of(g) {
			if v != 0 {
				t.Errorf("%s: Subgradient bias[%d] = %g, want 0", c.name, i, v)
			}
		}
		// The bias does not enter the value either.
		w2 := append([]float64(nil), w...)
		for i := range bias.Of(w2) {
			bias.Of(w2)[i] = 1e6
		}
		if c.r.Value(w, l) != c.r.Value(w2, l) {
			t.Errorf("%s: Value depends on the bias", c.name)
		}
	}
}

// TestAliasing checks that Prox(z, z) gives the same result as Prox(dst, z).
func TestAliasing(t *testing.T) {
	l := testLayout()
	rng := newRNG(3)
	for _, c := range allRegularizers() {
		for trial := 0; trial < 5; trial++ {
			z := randVec(rng, l.Dim(), 2)
			want := prox(c.r, z, 0.7, l)
			c.r.Prox(z, z, 0.7, l)
			if d := maxAbsDiff(z, want); d != 0 {
				t.Errorf("%s: aliased Prox differs by %g", c.name, d)
			}
		}
	}
}

// TestSubgradientInequality checks ψ₁(y) ≥ ψ₁(w) + ⟨g, y−w⟩ for g the
// returned subgradient at w (feasible and partly sparse) and random y.
func TestSubgradientInequality(t *testing.T) {
	l := testLayout()
	rng := newRNG(4)
	for _, c := range allRegularizers() {
		for trial := 0; trial < 20; trial++ {
			w := prox(c.r, sparsify(rng, randVec(rng, l.Dim(), 1)), 0.2, l)
			g := make([]float64, len(w))
			c.r.Subgradient(g, w, l)
			vw := c.r.Value(w, l)
			for k := 0; k < 120; k++ {
				var y []float64
				switch k % 3 {
				case 0:
					y = randVec(rng, l.Dim(), 2)
				case 1:
					y = prox(c.r, randVec(rng, l.Dim(), 2), 0, l)
				default:
					// y = w ± εd: pins ⟨g, d⟩ between the one-sided
					// directional derivatives, so g is the gradient where
					// ψ₁ is differentiable.
					eps := []float64{1e-2, 1e-4}[k%2]
					d := randVec(rng, l.Dim(), 1)
					y = make([]float64, len(w))
					for i := range y {
						y[i] = w[i] + eps*float64(k%4-2)*d[i]
					}
				}
				if vy := c.r.Value(y, l); vy < vw+dot(g, sub(y, w))-1e-12*(1+math.Abs(vw)) {
					t.Fatalf("%s: ψ(y)=%g < ψ(w)+⟨g,y−w⟩=%g", c.name, vy, vw+dot(g, sub(y, w)))
				}
			}
		}
	}
}

// TestZeroStepIsIdentity: prox with t = 0 returns z for every penalty.
func TestZeroStepIsIdentity(t *testing.T) {
	l := testLayout()
	z := randVec(newRNG(5), l.Dim(), 1)
	for _, c := range allRegularizers()[:7] {
		if d := maxAbsDiff(prox(c.r, z, 0, l), z); d > 1e-12 {
			t.Errorf("%s: prox with t=0 moved z by %g", c.name, d)
		}
	}
}

// TestProxNoAlloc checks that Prox of every regularizer except nuclear does
// not allocate, including the sort path of the l1 ball (whose pooled
// buffer the race detector's sync.Pool drops at random, so it is skipped there).
func TestProxNoAlloc(t *testing.T) {
	l := testLayout()
	z := randVec(newRNG(6), l.Dim(), 10) // far outside both balls
	dst := make([]float64, len(z))
	for _, c := range allRegularizers() {
		if c.name == "nuclear" || (c.name == "l1_ball" && raceEnabled) {
			continue
		}
		for _, f := range []struct {
			what string
			fn   func()
		}{
			{"Prox", func() { c.r.Prox(dst, z, 0.3, l) }},
			{"Value", func() { c.r.Value(z, l) }},
			{"Subgradient", func() { c.r.Subgradient(dst, z, l) }},
		} {
			if n := testing.AllocsPerRun(200, f.fn); n != 0 {
				t.Errorf("%s.%s allocates %v times per call", c.name, f.what, n)
			}
		}
	}
}

// TestBruteForce compares each penalty's prox with a derivative-free
// minimization of ½‖u−z‖² + tψ₁(u) that only evaluates Value. (Constraints
// are checked against exact characterizations in balls_test.go instead:
// pattern search stalls at the boundary of a set.) Four step sizes per
// penalty, one under -short.
func TestBruteForce(t *testing.T) {
	l := smallLayout()
	rng := newRNG(7)
	trials := 4
	if testing.Short() {
		trials = 1
	}
	for _, c := range allRegularizers()[:7] {
		for trial := 0; trial < trials; trial++ {
			z := randVec(rng, l.Dim(), 1.5)
			step := 0.3 + 0.4*float64(trial)
			u := prox(c.r, z, step, l)
			f := func(x []float64) float64 { return proxObjective(c.r, x, z, step, l) }
			if c.name == "nuclear" { // in closed form: the search costs no SVD
				f = func(x []float64) float64 { d := sub(x, z); return 0.5*dot(d, d) + step*nuclear2x2(x) }
			}
			bf := patternSearch(rng, f, make([]float64, len(z)))
			fu, fb := f(u), f(bf)
			name := fmt.Sprintf("%s trial %d", c.name, trial)
			if fu > fb+1e-10 {
				t.Errorf("%s: F(prox)=%.15g > F(brute force)=%.15g", name, fu, fb)
			}
			// 1-strong convexity: ½‖bf−u‖² ≤ F(bf) − F(u).
			if d := sub(bf, u); 0.5*dot(d, d) > fb-fu+1e-12 {
				t.Errorf("%s: ½‖bf−u‖² = %g > F(bf)−F(u) = %g", name, 0.5*dot(d, d), fb-fu)
			}
			// Pattern search reaches ~1e-8 on separable penalties but can
			// stall ~1e-4 away when the optimum has a rank drop (a kink of
			// codimension 3 in 2×2 matrices), hence the looser nuclear bound.
			tol := 1e-6
			if c.name == "nuclear" {
				tol = 1e-3
			}
			if d := maxAbsDiff(u, bf); d > tol {
				t.Errorf("%s: prox %v and brute force %v differ by %g", name, u, bf, d)
			}
		}
	}
}
