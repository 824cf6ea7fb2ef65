package regularizers

import (
	"math"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/schedules/sched"
)

func pnormOf(x []float64, p float64) float64 {
	s := 0.0
	for _, v := range x {
		s += math.Pow(math.Abs(v), p)
	}
	return math.Pow(s, 1/p)
}

// hValue is h(w) = ‖w‖_q²/(2(q−1)) by the textbook formula.
func hValue(w []float64, p float64) float64 {
	q := p / (p - 1)
	n := pnormOf(w, q)
	return n * n / (2 * (q - 1))
}

func relErr(a, b []float64) float64 {
	num, den := 0.0, 0.0
	for i := range a {
		num = math.Max(num, math.Abs(a[i]-b[i]))
		den = math.Max(den, math.Abs(b[i]))
	}
	if den == 0 {
		return num
	}
	return num / den
}

// TestPNormInverse: ∇h*(∇h(w)) = w and ∇h(∇h*(z)) = z for several p,
// scales from 1e-150 to 1e150 (where the textbook formula overflows for
// p = 12) and sparse vectors; 0 maps to 0; the norm identities
// ‖∇h*(z)‖_q = ‖z‖_p/(p−1) and ‖∇h(w)‖_p = ‖w‖_q/(q−1) hold.
func TestPNormInverse(t *testing.T) {
	rng := newRNG(50)
	for _, p := range []float64{2, 3, 12, 2 * math.Log(1024), 60} {
		m := PNorm{P: p}
		q := p / (p - 1)
		for trial := range 60 {
			scale := []float64{1e-150, 1e-5, 1, 1e5, 1e150}[trial%5]
			w := randVec(rng, 40, scale)
			if trial%3 == 0 {
				sparsify(rng, w)
			}
			z := make([]float64, len(w))
			m.Grad(z, w)
			back := make([]float64, len(w))
			m.GradConj(back, z)
			if e := relErr(back, w); e > 1e-12 {
				t.Fatalf("p = %g, scale %g: ∇h*(∇h(w)) differs from w by %g (relative)", p, scale, e)
			}
			if scale == 1 {
				if got, want := pnormOf(back, q), pnormOf(z, p)/(p-1); math.Abs(got-want) > 1e-9*want {
					t.Fatalf("p = %g: ‖∇h*(z)‖_q = %g, want ‖z‖_p/(p−1) = %g", p, got, want)
				}
				if got, want := pnormOf(z, p), pnormOf(w, q)/(q-1); math.Abs(got-want) > 1e-9*want {
					t.Fatalf("p = %g: ‖∇h(w)‖_p = %g, want ‖w‖_q/(q−1) = %g", p, got, want)
				}
			}
			m.Grad(back, back) // in place
			if e := relErr(back, z); e > 1e-12 {
				t.Fatalf("p = %g: ∇h(∇h*(z)) differs from z by %g", p, e)
			}
		}
		zero := make([]float64, 7)
		out := []float64{1, 2, 3, 4, 5, 6, 7}
		m.GradConj(out, zero)
		if maxAbsDiff(out, zero) != 0 {
			t.Fatalf("p = %g: ∇h*(0) = %v, want 0", p, out)
		}
	}
	if m := (PNorm{}); m.Exponent(1024) != 2*math.Log(1024) || m.Exponent(2) != 2 {
		t.Fatalf("default exponent: %g for d = 1024, %g for d = 2", m.Exponent(1024), m.Exponent(2))
	}
}

// TestPNormGradIsTheGradient compares ∇h with central differences of h.
func TestPNormGradIsTheGradient(t *testing.T) {
	rng := newRNG(51)
	for _, p := range []float64{2.5, 12} {
		m := PNorm{P: p}
		w := randVec(rng, 9, 1)
		g := make([]float64, len(w))
		m.Grad(g, w)
		for i := range w {
			const h = 1e-6
			wp := append([]float64(nil), w...)
			wm := append([]float64(nil), w...)
			wp[i] += h
			wm[i] -= h
			fd := (hValue(wp, p) - hValue(wm, p)) / (2 * h)
			assertClose(t, "∂h/∂w_i", g[i], fd, 1e-6)
		}
	}
}

// TestPNormCompositeOptimality: w = ∇(h + tλ‖·‖₁)*(z) satisfies
// z − ∇h(w) ∈ tλ·∂‖w‖₁ on the regularized blocks and z = ∇h(w) elsewhere,
// and no nearby point has a smaller objective −⟨z, w⟩ + tλ‖w‖₁ + h(w).
func TestPNormCompositeOptimality(t *testing.T) {
	rng := newRNG(52)
	l := testLayout()
	psi := core.Penalty{Reg: L1{}, Lambda: sched.Constant(0.7)}.At(0, l)
	reg := make([]bool, l.Dim())
	for _, b := range l.Regularized() {
		for i := b.Offset; i < b.Offset+b.Size(); i++ {
			reg[i] = true
		}
	}
	for _, p := range []float64{2, 5, 12} {
		m := PNorm{P: p}
		for trial := range 40 {
			z := randVec(rng, l.Dim(), 2)
			step := 0.3 + rng.Float64()
			a := step * psi.Lambda
			w := make([]float64, l.Dim())
			m.Composite(w, z, step, psi)
			gw := make([]float64, l.Dim())
			m.Grad(gw, w)
			nonzero := 0
			for i := range z {
				r := z[i] - gw[i]
				switch {
				case !reg[i] || w[i] != 0:
					want := 0.0
					if reg[i] {
						want = a * sign(w[i])
						nonzero++
					}
					if math.Abs(r-want) > 1e-9 {
						t.Fatalf("p = %g: coordinate %d (w = %g): z − ∇h(w) = %g, want %g", p, i, w[i], r, want)
					}
				case math.Abs(r) > a+1e-12:
					t.Fatalf("p = %g: zero coordinate %d has |z − ∇h(w)| = %g > tλ = %g", p, i, math.Abs(r), a)
				}
			}
			if trial == 0 && nonzero == 0 {
				t.Fatalf("p = %g: every regularized coordinate was thresholded; the test is vacuous", p)
			}
			obj := func(u []float64) float64 { return -dot(z, u) + step*psi.Value(u) + hValue(u, p) }
			best := obj(w)
			for range 200 {
				u := append([]float64(nil), w...)
				for i := range u {
					u[i] += 1e-3 * rng.NormFloat64()
				}
				if v := obj(u); v < best-1e-12 {
					t.Fatalf("p = %g: a perturbation lowers the composite objective from %g to %g", p, best, v)
				}
			}
			// in place, and ψ = 0 is ∇h*
			m.Composite(z, z, step, psi)
			if maxAbsDiff(z, w) > 1e-15 {
				t.Fatal("Composite in place differs")
			}
		}
	}
	none := core.Penalty{Reg: None{}, Lambda: sched.Constant(1)}.At(0, l)
	z := randVec(rng, l.Dim(), 1)
	a, b := make([]float64, len(z)), make([]float64, len(z))
	PNorm{P: 12}.Composite(a, z, 5, none)
	PNorm{P: 12}.GradConj(b, z)
	if maxAbsDiff(a, b) != 0 {
		t.Fatal("Composite with ψ = 0 is not ∇h*")
	}
}

func TestPNormCompositeRejectsOtherPenaltiesWhenTheProblemIsBuilt(t *testing.T) {
	if err := (PNorm{}).CheckComposite(core.Penalty{Name: "nuclear", Reg: Nuclear{}}); err == nil || !strings.Contains(err.Error(), `not "nuclear"`) {
		t.Errorf("nuclear: %v", err)
	}
	for _, reg := range []core.Regularizer{L1{}, None{}} {
		if err := (PNorm{}).CheckComposite(core.Penalty{Reg: reg}); err != nil {
			t.Errorf("%T refused: %v", reg, err)
		}
	}
}

func TestPNormCompositeRejectsOtherPenalties(t *testing.T) {
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "only for the regularizers l1 and none") {
			t.Fatalf("panic %v", r)
		}
	}()
	l := testLayout()
	psi := core.Penalty{Reg: L2Sq{}, Lambda: sched.Constant(1)}.At(0, l)
	z := make([]float64, l.Dim())
	PNorm{P: 4}.Composite(z, z, 1, psi)
}

// TestPNormBall: the restricted prox lands in the q-ball, equals the
// unconstrained map inside it, and beats random feasible points.
func TestPNormBall(t *testing.T) {
	rng := newRNG(53)
	for _, p := range []float64{2, 12} {
		m := PNorm{P: p}
		q := p / (p - 1)
		for trial := range 30 {
			d := 12
			c := randVec(rng, d, 1)
			z := randVec(rng, d, []float64{0.1, 3}[trial%2])
			r := 0.5
			w := make([]float64, d)
			m.Ball(w, c, z, r)
			diff := sub(w, c)
			free := make([]float64, d)
			m.GradConj(free, z)
			if n := pnormOf(free, q); n <= r {
				if maxAbsDiff(diff, free) > 1e-14 {
					t.Fatalf("p = %g: inside the ball the map should not clip", p)
				}
			} else if math.Abs(pnormOf(diff, q)-r) > 1e-12 {
				t.Fatalf("p = %g: clipped point has ‖w − c‖_q = %g, want %g", p, pnormOf(diff, q), r)
			}
			obj := func(u []float64) float64 { return -dot(z, u) + hValue(u, p) }
			best := obj(diff)
			for range 300 {
				u := randVec(rng, d, 1)
				if n := pnormOf(u, q); n > r {
					for i := range u {
						u[i] *= r / n * rng.Float64()
					}
				}
				if v := obj(u); v < best-1e-12 {
					t.Fatalf("p = %g: a feasible point has objective %g < %g", p, v, best)
				}
			}
		}
		w := make([]float64, 3)
		m.Ball(w, []float64{1, 2, 3}, []float64{0, 0, 0}, 1)
		if maxAbsDiff(w, []float64{1, 2, 3}) != 0 {
			t.Fatal("z = 0 should give the centre")
		}
	}
}

func TestPNormLargePIsFinite(t *testing.T) {
	z := []float64{1e3, -2e3, 5, 0, 1e-300}
	w := make([]float64, len(z))
	PNorm{P: 400}.GradConj(w, z)
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("∇h*(z) = %v", w)
		}
	}
	if want := 2e3 / 399 * math.Pow(1+math.Pow(0.5, 400), (2-400)/400.0); math.Abs(-w[1]-want) > 1e-12*want {
		t.Fatalf("largest entry %g, want %g", -w[1], want)
	}
}

// BenchmarkPNormGradConj is ∇h* for d = 1024 and p = 12 (the paper's shape).
func BenchmarkPNormGradConj(b *testing.B) {
	z := randVec(newRNG(54), 1024, 1)
	w := make([]float64, len(z))
	for b.Loop() {
		PNorm{P: 12}.GradConj(w, z)
	}
}
