package regularizers

import (
	"fmt"
	"math"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// vecLayout is a single regularized n×1 block.
func vecLayout(n int) core.Layout {
	return core.NewLayout(core.Block{Name: "w", Rows: n, Cols: 1, Regularized: true})
}

func TestL1Worked(t *testing.T) {
	l := vecLayout(5)
	z := []float64{3, -0.5, 1, -2, 0}
	got := prox(L1{}, z, 1, l)
	want := []float64{2, 0, 0, -1, 0}
	if maxAbsDiff(got, want) != 0 {
		t.Errorf("soft threshold of %v at 1 = %v, want %v", z, got, want)
	}
	if v := (L1{}).Value(z, l); v != 6.5 {
		t.Errorf("‖z‖₁ = %g, want 6.5", v)
	}
	g := make([]float64, 5)
	L1{}.Subgradient(g, z, l)
	if maxAbsDiff(g, []float64{1, -1, 1, -1, 0}) != 0 {
		t.Errorf("sign(%v) = %v, want sign(0) = 0", z, g)
	}
}

func TestL2SqWorked(t *testing.T) {
	l := vecLayout(3)
	z := []float64{3, -1, 0.5}
	if v := (L2Sq{}).Value(z, l); v != 10.25 {
		t.Errorf("‖z‖² = %g, want 10.25 (not halved)", v)
	}
	// (z − u)/t = ∇ψ₁(u) = 2u: u = z/(1+2t).
	u := prox(L2Sq{}, z, 0.75, l)
	for i := range z {
		assertClose(t, fmt.Sprintf("(z−u)/t − 2u [%d]", i), (z[i]-u[i])/0.75-2*u[i], 0, 1e-12)
	}
	assertClose(t, "u[0]", u[0], 3/2.5, 1e-15)
}

func TestElasticNetValue(t *testing.T) {
	l := vecLayout(3)
	z := []float64{3, -1, 0.5}
	assertClose(t, "value", ElasticNet{L1Ratio: 0.25}.Value(z, l), 0.25*4.5+0.75/2*10.25, 1e-12)
}

// TestProxOptimalityL1Elastic checks (z − u)/t ∈ ∂ψ₁(u) coordinate-wise,
// where ∂ψ₁(u) = α·∂|u| + (1−α)u for the elastic net (α = 1 is l1):
// |g| ≤ α where u = 0, and g = α·sign(u) + (1−α)u where u ≠ 0.
func TestProxOptimalityL1Elastic(t *testing.T) {
	l := testLayout()
	rng := newRNG(10)
	cases := []struct {
		name  string
		r     core.Regularizer
		alpha float64
	}{
		{"l1", L1{}, 1},
		{"elastic_net(1)", ElasticNet{L1Ratio: 1}, 1},
		{"elastic_net(0.6)", ElasticNet{L1Ratio: 0.6}, 0.6},
		{"elastic_net(0.1)", ElasticNet{L1Ratio: 0.1}, 0.1},
		{"elastic_net(0)", ElasticNet{L1Ratio: 0}, 0},
	}
	for _, c := range cases {
		zeros, nonzeros := 0, 0
		for trial := 0; trial < 50; trial++ {
			step := 0.1 + rng.Float64()
			z := randVec(rng, l.Dim(), 1)
			u := prox(c.r, z, step, l)
			for _, b := range l.Regularized() {
				for i, ui := range b.Of(u) {
					g := (b.Of(z)[i] - ui) / step
					if ui == 0 {
						zeros++
						if math.Abs(g) > c.alpha+1e-12 {
							t.Fatalf("%s: u=0 but |(z−u)/t| = %g > α = %g", c.name, math.Abs(g), c.alpha)
						}
					} else {
						nonzeros++
						assertClose(t, c.name+" (z−u)/t", g, c.alpha*sign(ui)+(1-c.alpha)*ui, 1e-12)
					}
				}
			}
		}
		if nonzeros == 0 || (c.alpha > 0 && zeros == 0) {
			t.Errorf("%s: inputs exercised %d zero and %d nonzero outputs; want both", c.name, zeros, nonzeros)
		}
	}
}

// TestProxGrid1D compares the prox of scalar penalties with a fine grid
// minimization of ½(u−z)² + tψ₁(u).
func TestProxGrid1D(t *testing.T) {
	l := vecLayout(1)
	for _, r := range []core.Regularizer{L1{}, L2Sq{}, ElasticNet{L1Ratio: 0.4}} {
		for _, z := range []float64{-2.3, -0.7, -0.2, 0, 0.15, 0.9, 3.1} {
			for _, step := range []float64{0.25, 0.8} {
				f := func(u float64) float64 { return proxObjective(r, []float64{u}, []float64{z}, step, l) }
				best, fBest := math.Inf(-1), math.Inf(1)
				for k := -40000; k <= 40000; k++ {
					if u := float64(k) * 1e-4; math.IsInf(best, -1) || f(u) < fBest {
						best, fBest = u, f(u)
					}
				}
				u := prox(r, []float64{z}, step, l)[0]
				if f(u) > f(best)+1e-14 || math.Abs(u-best) > 1e-4 {
					t.Errorf("%T z=%g t=%g: prox %g (F=%g), grid %g (F=%g)", r, z, step, u, f(u), best, f(best))
				}
			}
		}
	}
}

// TestPsiScalesByLambda checks the core.Psi wiring: prox of λψ₁ with step η
// thresholds at ηλ, and the subgradient is scaled by λ.
func TestPsiScalesByLambda(t *testing.T) {
	l := vecLayout(3)
	psi := core.Psi{Reg: L1{}, Lambda: 0.5, Layout: l}
	dst := make([]float64, 3)
	psi.Prox(dst, []float64{2, -0.9, 0.5}, 2)
	if maxAbsDiff(dst, []float64{1, 0, 0}) != 0 {
		t.Errorf("prox of 0.5‖·‖₁ with step 2 = %v, want [1 0 0]", dst)
	}
	var m core.Mirror = core.Euclidean{}
	m.Composite(dst, []float64{2, -1.5, 0.5}, 2, psi)
	if maxAbsDiff(dst, []float64{1, -0.5, 0}) != 0 {
		t.Errorf("Euclidean composite = %v, want [1 -0.5 0]", dst)
	}
}

// A diverged iterate must stay non-finite through the ℓ1 prox, or the
// engine could not report the divergence.
func TestL1ProxKeepsNaN(t *testing.T) {
	l := core.NewLayout(core.Block{Name: "kernel", Rows: 3, Cols: 1, Regularized: true})
	dst := make([]float64, 3)
	L1{}.Prox(dst, []float64{math.NaN(), 0.1, math.Inf(1)}, 0.5, l)
	if !math.IsNaN(dst[0]) || dst[1] != 0 || !math.IsInf(dst[2], 1) {
		t.Fatalf("prox = %v, want [NaN 0 +Inf]", dst)
	}
}
