package regularizers

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// PNormParams are the parameters of the mirror map "pnorm".
type PNormParams struct {
	P float64 `param:"p" min:"0" doc:"the dual exponent p ≥ 2; 0 = 2 ln d with d the model dimension (at least 2), the theory's choice"`
}

// Check refuses exponents in (0, 2).
func (p PNormParams) Check() error {
	if p.P != 0 && p.P < 2 {
		return fmt.Errorf("parameter \"p\" must be ≥ 2 (or 0 for 2 ln d), got %g", p.P)
	}
	return nil
}

func init() {
	registry.Define(registry.Mirror, "pnorm",
		"p-norm map h(w) = ‖w‖_q²/(2(q−1)), q = p/(p−1): 1-strongly convex in ‖·‖_q, for sparse high-dimensional problems; composite map with ψ = l1 or none",
		PNormParams{}, func(p PNormParams) (core.Mirror, error) { return PNorm{P: p.P}, nil })
}

var _ core.Mirror = PNorm{}

// PNorm is the p-norm mirror map (Ben-Tal, Margalit & Nemirovski 2001;
// the FedDA-GT paper's Sec. 2)
//
//	h(w) = ‖w‖_q² / (2(q−1)),   h*(z) = ‖z‖_p² / (2(p−1)),   1/p + 1/q = 1,
//
// with ∇h(w) = ‖w‖_q^{2−q}·sign(w)|w|^{q−1}/(q−1) and its inverse
// ∇h*(z) = ‖z‖_p^{2−p}·sign(z)|z|^{p−1}/(p−1). h acts on the whole model
// (every block); a penalty acts on the regularized blocks only. Both maps
// divide by the largest |entry| first, so no power overflows or
// underflows to a wrong value for large p, and 0 maps to 0. When p−1 is a
// small integer (the paper's p = 12), |z|^{p−1} is computed by repeated
// multiplication rather than math.Pow.
type PNorm struct {
	P float64 // p ≥ 2; 0 selects p = max(2, 2 ln d) for models of dimension d
}

// Exponent returns p for models of dimension d.
func (m PNorm) Exponent(d int) float64 {
	if m.P > 0 {
		return m.P
	}
	return math.Max(2, 2*math.Log(float64(d)))
}

// Grad writes ∇h(w) into dst (which may alias w).
func (m PNorm) Grad(dst, w []float64) {
	p := m.Exponent(len(w))
	powerMap(dst, w, p/(p-1), p-1) // 1/(q−1) = p−1
}

// GradConj writes ∇h*(z) = (∇h)⁻¹(z) into dst (which may alias z).
func (m PNorm) GradConj(dst, z []float64) {
	p := m.Exponent(len(z))
	powerMap(dst, z, p, 1/(p-1))
}

// Composite writes ∇(h + step·ψ)*(z) = argmin_w −⟨z, w⟩ + step·ψ(w) + h(w)
// into dst (which may alias z). For ψ = λ‖·‖₁ on the regularized blocks it
// is ∇h*(S(z)), S soft-thresholding those blocks at step·λ: ∇h preserves
// signs coordinate-wise, so z − S(z) ∈ step·λ·∂‖w‖₁ at w = ∇h*(S(z)). For
// ψ = 0 it is ∇h*(z). Other penalties have no closed form with this map
// and panic (the engine reports the run as failed with the message).
func (m PNorm) Composite(dst, z []float64, step float64, psi core.Psi) {
	if err := m.checkReg(psi.Reg, fmt.Sprintf("%T", psi.Reg)); err != nil {
		panic(err.Error())
	}
	switch psi.Reg.(type) {
	case None:
		m.GradConj(dst, z)
	case L1:
		psi.Prox(dst, z, step)
		m.GradConj(dst, dst)
	}
}

// CheckComposite refuses, when the problem is built, the penalties whose
// composite map has no closed form with this map (all but l1 and none).
func (m PNorm) CheckComposite(p core.Penalty) error { return m.checkReg(p.Reg, p.Name) }

func (m PNorm) checkReg(reg core.Regularizer, name string) error {
	switch reg.(type) {
	case None, L1:
		return nil
	}
	return fmt.Errorf("mirror map \"pnorm\": the composite map ∇(h + tψ)* has a closed form only for the regularizers l1 and none, not %q: use the euclidean mirror map, or reg = fedlab.reg.l1{...}", name)
}

// Ball writes the restricted prox of the FedDA-GT paper's eq. (3) with the
// q-norm ball,
//
//	argmin_{‖w − c‖_q ≤ r} −⟨z, w − c⟩ + h(w − c) = c + min(1, (p−1)·r/‖z‖_p)·∇h*(z),
//
// into dst (which may alias z but not c). For a fixed ‖w − c‖_q = t the best
// direction is ∇h*(z) (Hölder), and t ↦ −t‖z‖_p + t²/(2(q−1)) is minimized
// over t ≤ r at t = min(‖z‖_p/(p−1), r): the unconstrained map clipped
// radially. r = +Inf gives c + ∇h*(z).
func (m PNorm) Ball(dst, c, z []float64, r float64) {
	p := m.Exponent(len(z))
	norm := powerMap(dst, z, p, 1/(p-1))
	f := 1.0
	if lim := (p - 1) * r; norm > lim {
		f = lim / norm
	}
	for i, x := range dst {
		dst[i] = c[i] + f*x
	}
}

// powerMap writes k·‖x‖_r^{2−r}·sign(x)|x|^{r−1} into dst (which may alias
// x) and returns ‖x‖_r. With a = max|x_i|, t = |x|/a and s = Σ t_i^r, it is
// k·a·s^{(2−r)/r}·sign(x)·t^{r−1}, and ‖x‖_r = a·s^{1/r}; x = 0 gives 0,
// and non-finite entries give NaN.
func powerMap(dst, x []float64, r, k float64) float64 {
	a := 0.0
	for _, v := range x {
		if v > a {
			a = v
		} else if -v > a {
			a = -v
		}
	}
	switch {
	case a == 0:
		clear(dst)
		return 0
	case math.IsInf(a, 1): // an infinite entry: NaN, which the engine reports as divergence
		for i := range dst {
			dst[i] = math.NaN()
		}
		return math.NaN()
	}
	e := r - 1
	n := int(e)
	if float64(n) != e || n > 64 {
		n = -1 // not a small integer: math.Pow
	}
	s := 0.0
	for i, v := range x {
		t := math.Abs(v) / a
		var u float64
		if n >= 0 {
			u = ipow(t, n)
		} else {
			u = math.Pow(t, e)
		}
		s += u * t
		if v < 0 {
			u = -u
		}
		dst[i] = u
	}
	f := k * a * math.Pow(s, (2-r)/r)
	for i := range dst {
		dst[i] *= f
	}
	return a * math.Pow(s, 1/r)
}

// ipow returns t^n by binary exponentiation.
func ipow(t float64, n int) float64 {
	out := 1.0
	for ; n > 0; n >>= 1 {
		if n&1 == 1 {
			out *= t
		}
		t *= t
	}
	return out
}

// PNorm has the restricted prox of ReFedDA-GT.
var _ core.RestrictedMirror = PNorm{}
