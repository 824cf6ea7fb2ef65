package core

import (
	"context"
	"fmt"
	"math"
)

// ProxGrad is a (fast) proximal-gradient iteration on the full training
// objective Φ = F + ψ: FISTA (Beck & Teboulle 2009) with the function-value
// restart of O'Donoghue & Candès, or plain proximal gradient descent. With a
// zero step it finds 1/L by backtracking. The Euclidean geometry is used
// whatever the problem's mirror map: the optimum does not depend on it.
type ProxGrad struct {
	X []float64 // current iterate

	p                           *Problem
	ev                          Evaluator
	step, l, t                  float64
	accelerated                 bool
	y, prev, grad, scratch, try []float64
	phi                         float64
}

// NewProxGrad starts at w0 (nil: zeros). step > 0 fixes the step size;
// step = 0 backtracks on the Lipschitz constant.
func NewProxGrad(p *Problem, w0 []float64, step float64, accelerated bool) *ProxGrad {
	d := p.Dim()
	s := &ProxGrad{p: p, ev: p.Loss.NewEvaluator(p.Layout), step: step, l: 1, t: 1, accelerated: accelerated,
		X: make([]float64, d), y: make([]float64, d), prev: make([]float64, d),
		grad: make([]float64, d), scratch: make([]float64, d), try: make([]float64, d), phi: math.Inf(1)}
	if w0 != nil {
		copy(s.X, w0)
	}
	copy(s.y, s.X)
	return s
}

// Step takes one iteration with penalty psi and returns Φ at the new iterate
// and the relative change ‖x_{t+1} − x_t‖ / max(1, ‖x_t‖) (+Inf after a
// momentum restart, which leaves the iterate in place).
func (s *ProxGrad) Step(psi Psi) (phi, change float64) {
	fy := s.p.Smooth(s.ev, s.y, false, s.grad, s.scratch)
	var ft float64
	for {
		eta := s.step
		if eta == 0 {
			eta = 1 / s.l
		}
		for i := range s.try {
			s.try[i] = s.y[i] - eta*s.grad[i]
		}
		psi.Prox(s.try, s.try, eta)
		ft = s.p.Smooth(s.ev, s.try, false, nil, nil)
		if s.step > 0 || s.l > 1e20 {
			break
		}
		lin, sq := 0.0, 0.0
		for i := range s.try {
			d := s.try[i] - s.y[i]
			lin += s.grad[i] * d
			sq += d * d
		}
		if ft <= fy+lin+s.l/2*sq+1e-12*math.Abs(fy) {
			break
		}
		s.l *= 2
	}
	phiTry := ft + psi.Value(s.try)
	if s.accelerated && phiTry > s.phi && s.t > 1 {
		// restart: drop the momentum and retry from X next time
		s.t = 1
		copy(s.y, s.X)
		return s.phi, math.Inf(1)
	}
	copy(s.prev, s.X)
	copy(s.X, s.try)
	s.phi = phiTry
	beta := 0.0
	if s.accelerated {
		tNext := (1 + math.Sqrt(1+4*s.t*s.t)) / 2
		beta = (s.t - 1) / tNext
		s.t = tNext
	}
	moved, norm := 0.0, 0.0
	for i := range s.X {
		d := s.X[i] - s.prev[i]
		s.y[i] = s.X[i] + beta*d
		moved += d * d
		norm += s.prev[i] * s.prev[i]
	}
	return s.phi, math.Sqrt(moved) / math.Max(1, math.Sqrt(norm))
}

// SolveSettings controls Solve.
type SolveSettings struct {
	MaxIters int // iterations (FISTA) or sweeps (coordinate descent); default 20000
	// Tol stops the solve when the certificate K(w) (see Certificate) is
	// ≤ Tol; default 1e-8, the accuracy the former stopping rule (FISTA's
	// relative change ≤ 1e-10) reached on the shipped LASSO and low-rank
	// problems (K = 4e-9 … 3e-8, docs/architecture.md).
	Tol float64
	// Context, if set, stops the solve (with its cause as the error) when
	// it is done, e.g. at the session's --timeout. It is not part of the
	// settings that identify a stored reference.
	Context context.Context
}

// Names of the reference solvers (Reference.Solver; recorded with a
// stored reference, so that a change of method invalidates it).
const (
	SolverFISTA = "fista-restart-backtracking/2"
	SolverCD    = "cd-cyclic-active-set/1"
)

// certEvery is how often (in iterations) restarted FISTA evaluates the
// certificate: it costs about one gradient, so checking every tenth
// iteration adds ~5% to a solve and at most 9 iterations past the point
// where it is first met.
const certEvery = 10

// withDefaults returns s with its zero fields set to the defaults.
func (s SolveSettings) withDefaults() SolveSettings {
	if s.MaxIters == 0 {
		s.MaxIters = 20000
	}
	if s.Tol == 0 {
		s.Tol = 1e-8
	}
	return s
}

// SolverFor names the solver Solve uses for p with penalty psi: coordinate
// descent for squared loss with an ℓ1 or elastic-net penalty (see
// newCoordinateDescent), restarted FISTA otherwise.
func SolverFor(p *Problem, psi Psi) string {
	if _, ok := newCoordinateDescent(p, psi); ok {
		return SolverCD
	}
	return SolverFISTA
}

// Solve minimizes Φ = F + ψ on the full training data to high precision,
// from w0 (nil: zeros), with the fastest exact solver for the problem's
// class (SolverFor): cyclic coordinate descent for the LASSO and elastic
// net, restarted FISTA with backtracking otherwise. Every solver stops when
// the shared certificate K(w) ≤ s.Tol (Reference.Residual), or after
// s.MaxIters iterations or when they no longer lower K (its rounding floor;
// then Residual > Tol), or with an error when s.Context is done. The
// mirror map plays no part: the optimum does not depend on it.
func Solve(p *Problem, psi Psi, w0 []float64, s SolveSettings) (*Reference, error) {
	s = s.withDefaults()
	if cd, ok := newCoordinateDescent(p, psi); ok {
		return cd.solve(w0, s)
	}
	return SolveFISTA(p, psi, w0, s)
}

// SolveFISTA is Solve with restarted FISTA and backtracking whatever the
// problem's class (the comparison for the other solvers). It also stops
// when the iterate no longer moves (relative change 0: the certificate is
// then at its rounding floor and more iterations cannot lower it).
func SolveFISTA(p *Problem, psi Psi, w0 []float64, s SolveSettings) (*Reference, error) {
	s = s.withDefaults()
	pg := NewProxGrad(p, w0, 0, true)
	cert := newCertifier(p)
	phi, iters, change, k := 0.0, 0, math.Inf(1), math.Inf(1)
	for iters = 1; iters <= s.MaxIters; iters++ {
		if s.Context != nil && s.Context.Err() != nil {
			return nil, fmt.Errorf("reference solve stopped at iteration %d: %w", iters, context.Cause(s.Context))
		}
		phi, change = pg.Step(psi)
		if math.IsNaN(phi) || math.IsInf(phi, 0) {
			return nil, fmt.Errorf("reference solve diverged at iteration %d", iters)
		}
		if iters%certEvery == 0 || iters == s.MaxIters || change == 0 {
			if k, _, _ = cert.at(psi, pg.X); k <= s.Tol || change == 0 {
				break
			}
		}
	}
	iters = min(iters, s.MaxIters)
	return &Reference{W: pg.X, Objective: phi, Lambda: psi.Lambda, Iters: iters, Change: change,
		Residual: k, Solver: SolverFISTA}, nil
}

// State declares the iteration's state (Stateful): the iterate, the
// extrapolated point, the step size, the Lipschitz estimate, the momentum
// parameter and the last objective value.
func (s *ProxGrad) State(st *State) {
	st.Floats("iterate", s.X)
	st.Floats("extrapolated point", s.y)
	st.Float("step size", &s.step)
	st.Float("lipschitz estimate", &s.l)
	st.Float("momentum parameter", &s.t)
	st.Float("objective", &s.phi)
}
