package core

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/schedules/sched"
)

// Loss is a per-sample loss f(w; x, y) averaged over samples. It decides the
// model's parameter layout and creates evaluators that hold scratch buffers.
type Loss interface {
	// Layout returns the parameter layout for this loss on data f.
	Layout(f *Federated) (Layout, error)
	// NewEvaluator returns an evaluator for models laid out as l. An evaluator
	// is used by one goroutine at a time; it grows its buffers on first use and
	// then evaluates without allocating.
	NewEvaluator(l Layout) Evaluator
}

// Evaluator computes a loss and its gradient on a batch.
type Evaluator interface {
	// Eval returns the mean loss of w over the rows idx of d (every row if idx
	// is nil) and, if grad is not nil, overwrites grad with its gradient.
	Eval(w []float64, d *Data, idx []int, grad []float64) float64
}

// Predictor is implemented by evaluators of classification losses.
type Predictor interface {
	// Accuracy returns the fraction of rows of d that w classifies correctly.
	Accuracy(w []float64, d *Data) float64
}

// Regularizer is a convex function ψ₁ of unit weight on the regularized
// blocks of a layout (a norm, or the indicator of a constraint set). The
// weight λ lives in Penalty.
type Regularizer interface {
	// Value returns ψ₁(w); +Inf outside a constraint set.
	Value(w []float64, l Layout) float64
	// Prox writes argmin_u ½‖u−z‖² + t·ψ₁(u) into dst, copying unregularized
	// blocks unchanged. dst may alias z. Constraints ignore t (projection).
	Prox(dst, z []float64, t float64, l Layout)
	// Subgradient writes an element of ∂ψ₁(w) into dst (0 on unregularized blocks).
	Subgradient(dst, w []float64, l Layout)
}

// Penalty is a regularizer with its weight λ, which may follow a schedule
// over rounds (homotopy). Constraints and "none" have Lambda = 1.
type Penalty struct {
	Name   string
	Reg    Regularizer
	Lambda sched.Schedule
}

// At returns the penalty's state at round r as a Psi.
func (p Penalty) At(r int, l Layout) Psi {
	return Psi{Reg: p.Reg, Lambda: p.Lambda.At(r), Layout: l}
}

// Psi is ψ = λ·ψ₁ with λ fixed (the penalty during one round).
type Psi struct {
	Reg    Regularizer
	Lambda float64
	Layout Layout
}

// Value returns ψ(w).
func (p Psi) Value(w []float64) float64 {
	v := p.Reg.Value(w, p.Layout)
	if v == 0 {
		return 0
	}
	return p.Lambda * v
}

// Prox writes prox_{step·ψ}(z) = argmin_u ½‖u−z‖² + step·ψ(u) into dst.
func (p Psi) Prox(dst, z []float64, step float64) {
	p.Reg.Prox(dst, z, step*p.Lambda, p.Layout)
}

// Subgradient writes an element of ∂ψ(w) into dst.
func (p Psi) Subgradient(dst, w []float64) {
	p.Reg.Subgradient(dst, w, p.Layout)
	for i := range dst {
		dst[i] *= p.Lambda
	}
}

// Mirror is a distance-generating function h (a mirror map).
type Mirror interface {
	// Grad writes ∇h(w) into dst.
	Grad(dst, w []float64)
	// GradConj writes ∇h*(z) = (∇h)⁻¹(z) into dst.
	GradConj(dst, z []float64)
	// Composite writes ∇(h + step·ψ)*(z) = argmin_w ⟨−z, w⟩ + step·ψ(w) + h(w).
	Composite(dst, z []float64, step float64, psi Psi)
}

// CompositeChecker is implemented by mirror maps whose composite map
// exists for some penalties only: NewProblem refuses the others when the
// problem is built, instead of a run failing later.
type CompositeChecker interface {
	CheckComposite(p Penalty) error
}

// Euclidean is the mirror map h = ½‖w‖², for which ∇h is the identity and the
// composite map is the proximal operator.
type Euclidean struct{}

// Grad copies w.
func (Euclidean) Grad(dst, w []float64) { copy(dst, w) }

// GradConj copies z.
func (Euclidean) GradConj(dst, z []float64) { copy(dst, z) }

// Composite is prox_{step·ψ}(z).
func (Euclidean) Composite(dst, z []float64, step float64, psi Psi) { psi.Prox(dst, z, step) }

// Ball is the restricted prox of h = ½‖·‖²: c + min(1, r/‖z‖₂)·z.
func (Euclidean) Ball(dst, c, z []float64, r float64) {
	f := 1.0
	if n := floats.Norm(z, 2); n > r {
		f = r / n
	}
	for i, v := range z {
		dst[i] = c[i] + f*v
	}
}

// RestrictedMirror is a mirror map with a closed-form restricted prox, eq.
// (3) of Liang, Peng & Zhang (ReFedDA-GT): Ball writes
// argmin_{‖w−c‖ ≤ r} −⟨z, w−c⟩ + h(w−c) into dst (which may alias z but
// not c). Euclidean and the p-norm map implement it.
type RestrictedMirror interface {
	Mirror
	Ball(dst, c, z []float64, r float64)
}

// DiagonalProx is implemented by regularizers whose proximal map in a
// diagonal metric has a closed form (separable ones: ℓ1, ℓ2², elastic net,
// none). Algorithms with a diagonal preconditioner (FedDA's eq. 7) need it.
type DiagonalProx interface {
	Regularizer
	// ProxDiag writes argmin_u Σ_j (h_j/2)(u_j − z_j)² + t·ψ₁(u) into dst
	// (on the regularized blocks: the scalar prox with step t/h_j per
	// coordinate), copying unregularized blocks unchanged. dst may alias z.
	ProxDiag(dst, z, h []float64, t float64, l Layout)
}

// ConstrainedProx is implemented by norm regularizers ψ₁ = R that also
// solve the constrained proximal problem of C-FedDA (Bao et al. 2022):
//
//	CProx(z; c, ε, t) = argmin_u ½‖u − z‖² + t·R(u)  subject to  R(u − c) ≤ ε,
//
// the prox of t·R restricted to the R-norm ball of radius ε centred at c.
// Like Prox it acts on the regularized blocks only (R sums over them and the
// ball is one joint ball) and copies the other blocks of z into dst. dst may
// alias z but not c. ε = +Inf is the plain Prox; ε ≤ 0 gives the centre.
type ConstrainedProx interface {
	Regularizer
	CProx(dst, z, c []float64, t, eps float64, l Layout)
}
