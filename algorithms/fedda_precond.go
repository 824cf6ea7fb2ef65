package algorithms

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
)

// precondRule is an adaptive-matrix rule V of the FedDA paper, chosen when
// the algorithm is built.
type precondRule int

const (
	// precondDiag is eq. 7: μ ← EMA of (z/η)², H = Diag(√μ + ε).
	precondDiag precondRule = iota
	// precondNorm is eq. 8: μ ← EMA of ‖z‖/η (a scalar), H = (μ + ε)·I.
	precondNorm
	// precondIdentity is H = I (no adaptivity; FedDA is then STEM-like).
	precondIdentity
)

// precondNames are the parameter values of the rules.
var precondNames = map[string]precondRule{"diag": precondDiag, "norm": precondNorm, "identity": precondIdentity}

// adaptive is FedDA's adaptive matrix H and its state μ, kept on the server
// and updated once per round from the averaged dual state.
type adaptive struct {
	rule    precondRule
	keep    float64 // weight of the old state: μ ← keep·μ + (1 − keep)·new
	eps     float64 // the paper's ε (printed "τ" in its hyper-parameter lists)
	correct bool    // Adam-style bias correction μ/(1 − keep^n)
	updates int     // updates applied so far

	mu []float64 // diag: per-coordinate state
	h  []float64 // diag: the diagonal of H
	m  float64   // norm: scalar state
	hs float64   // norm and identity: H = hs·I
}

// newAdaptive returns H₀: εI for the adaptive rules (μ₀ = 0), I for identity.
func newAdaptive(rule precondRule, keep, eps float64, correct bool, dim int) *adaptive {
	a := &adaptive{rule: rule, keep: keep, eps: eps, correct: correct}
	switch rule {
	case precondDiag:
		a.mu = make([]float64, dim)
		a.h = make([]float64, dim)
		for i := range a.h {
			a.h[i] = eps
		}
	case precondNorm:
		a.hs = eps
	default:
		a.hs = 1
	}
	return a
}

// update applies V to the round's averaged dual state z, normalized by the
// round's last local step size eta (the paper's η_{τ+1,I−1}).
func (a *adaptive) update(z []float64, eta float64) {
	if a.rule == precondIdentity {
		return
	}
	a.updates++
	corr := 1.0
	if a.correct && a.keep < 1 {
		corr = 1 / (1 - math.Pow(a.keep, float64(a.updates)))
	}
	if a.rule == precondDiag {
		for i, v := range z {
			q := v / eta
			a.mu[i] = a.keep*a.mu[i] + (1-a.keep)*q*q
			a.h[i] = math.Sqrt(corr*a.mu[i]) + a.eps
		}
		return
	}
	a.m = a.keep*a.m + (1-a.keep)*floats.Norm(z, 2)/eta
	a.hs = corr*a.m + a.eps
}

// feddaPrimal writes FedDA's primal point for the dual state z accumulated
// since the anchor x0 (the round-start model):
//
//	u = argmin_u −⟨z, u⟩ + e·ψ(u) + (1/2λ)(u − x0)ᵀH(u − x0),
//
// that is the prox of λe·ψ in the H-norm at v = x0 + λH⁻¹z. H is the
// diagonal h when h is not nil, else hs·I. e is the accumulated step size
// Σ η over the round (ψ enters dual averaging once per step). For diagonal
// H the prox is the regularizer's diagonal-metric prox diag (checked in
// Init) with the per-coordinate step λe/h_j. For scalar H it is the
// regularizer's own prox with step λe/hs, so any regularizer or
// constraint works.
func feddaPrimal(dst, x0, z, h []float64, hs, lambda, e float64, psi core.Psi, diag core.DiagonalProx) {
	if h == nil {
		s := lambda / hs
		for i := range dst {
			dst[i] = x0[i] + s*z[i]
		}
		psi.Prox(dst, dst, lambda*e/hs)
		return
	}
	for i := range dst {
		dst[i] = x0[i] + lambda*z[i]/h[i]
	}
	diag.ProxDiag(dst, dst, h, lambda*e*psi.Lambda, psi.Layout)
}

// state declares the preconditioner's state.
func (a *adaptive) state(st *core.State) {
	st.Count("preconditioner updates", &a.updates)
	st.Vector("preconditioner moments", &a.mu)
	st.Vector("preconditioner diagonal", &a.h)
	st.Float("preconditioner scalar moment", &a.m)
	st.Float("preconditioner scale", &a.hs)
}
