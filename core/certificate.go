package core

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// CertificateName names the optimality certificate every reference solver
// stops on and records (Reference.Residual); it is part of a stored
// optimum's key, so that a change of its definition invalidates them.
const CertificateName = "kkt-residual-unit-step/1"

// Certificate returns the optimality certificate of Φ = F + ψ at w, shared
// by every reference solver: the norm of the proximal-gradient mapping with
// unit step (the "natural residual"), relative to the gradient's scale,
//
//	K(w) = ‖w − prox_ψ(w − ∇F(w))‖₂ / max(1, ‖∇F(w)‖₂).
//
// K(w) = 0 exactly at the minimizers of Φ, and for convex ψ its numerator
// is at most dist(0, ∂Φ(w)) (the norm of the shortest subgradient). The
// unit step needs no Lipschitz estimate, so the value does not depend on
// the solver that produced w. It also returns F(w), so that Φ(w) costs no
// further pass over the data.
func Certificate(p *Problem, psi Psi, w []float64) (k, f float64) {
	c := newCertifier(p)
	k, f, _ = c.at(psi, w)
	return k, f
}

// certifier evaluates Certificate with buffers kept across calls.
type certifier struct {
	p                   *Problem
	ev                  Evaluator
	grad, scratch, prox []float64
}

func newCertifier(p *Problem) *certifier {
	d := p.Dim()
	return &certifier{p: p, ev: p.Loss.NewEvaluator(p.Layout),
		grad: make([]float64, d), scratch: make([]float64, d), prox: make([]float64, d)}
}

// at returns K(w), F(w) and ‖∇F(w)‖₂.
func (c *certifier) at(psi Psi, w []float64) (k, f, gnorm float64) {
	f = c.p.Smooth(c.ev, w, false, c.grad, c.scratch)
	for i, g := range c.grad {
		c.prox[i] = w[i] - g
	}
	psi.Prox(c.prox, c.prox, 1)
	floats.Sub(c.prox, w) // prox_ψ(w − ∇F(w)) − w
	gnorm = floats.Norm(c.grad, 2)
	return floats.Norm(c.prox, 2) / math.Max(1, gnorm), f, gnorm
}
