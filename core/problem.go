package core

import (
	"fmt"
	"math"
	"sync"
)

// Problem is a federated composite problem
//
//	min_w Φ(w) = F(w) + ψ(w),  F(w) = Σ_m p_m F_m(w),
//
// with p_m = 1/M (the FCO objective) or p_m = n_m/n when WeightBySamples is
// set. The same weights, renormalized over the sampled clients, aggregate
// client replies.
type Problem struct {
	Data            *Federated
	Loss            Loss
	Penalty         Penalty
	Mirror          Mirror
	Layout          Layout
	WeightBySamples bool

	refOnce sync.Once
	ref     *Reference
	refErr  error
	// RefSettings controls the reference-optimum solve (zero value: defaults).
	RefSettings SolveSettings
	// RefStore, if set, keeps the reference optimum across sessions: a
	// stored reference is used instead of a solve, and a solved one is
	// stored. It must identify the problem up to the penalty's λ (stage
	// copies of the problem share it with another λ).
	RefStore ReferenceStore
}

// ReferenceStore keeps reference optima of one problem, by the λ of the
// penalty, the solver (SolverFor) and its settings. Its methods may be
// called from several goroutines.
type ReferenceStore interface {
	// LoadReference returns the reference stored for λ, solver and s
	// (false if there is none).
	LoadReference(lambda float64, solver string, s SolveSettings) (*Reference, bool, error)
	// StoreReference stores ref, solved by ref.Solver with settings s.
	StoreReference(ref *Reference, s SolveSettings) error
}

// Reference is a high-precision solution of the problem at a fixed λ.
type Reference struct {
	W         []float64
	Objective float64
	Lambda    float64
	Iters     int
	// Change is the relative change ‖x_{t+1} − x_t‖ / max(1, ‖x_t‖) of
	// the last iteration (FISTA; +Inf after a momentum restart) or sweep
	// (coordinate descent).
	Change float64
	// Residual is the optimality certificate K(W) of Certificate, the same
	// for every solver (≤ the settings' Tol unless the solve ran out of
	// iterations).
	Residual float64
	// Solver names the method that solved it (SolverFISTA or SolverCD).
	Solver string
}

// NewProblem checks the parts and lays out the model.
func NewProblem(data *Federated, loss Loss, pen Penalty, mirror Mirror) (*Problem, error) {
	if err := data.Check(); err != nil {
		return nil, err
	}
	l, err := loss.Layout(data)
	if err != nil {
		return nil, err
	}
	if mirror == nil {
		mirror = Euclidean{}
	}
	if pen.Reg == nil {
		return nil, fmt.Errorf("problem needs a regularizer (use \"none\")")
	}
	if c, ok := mirror.(CompositeChecker); ok {
		if err := c.CheckComposite(pen); err != nil {
			return nil, err
		}
	}
	return &Problem{Data: data, Loss: loss, Penalty: pen, Mirror: mirror, Layout: l}, nil
}

// Dim is the number of model parameters.
func (p *Problem) Dim() int { return p.Layout.Dim() }

// ClientWeights returns p_m for every client (summing to one).
func (p *Problem) ClientWeights() []float64 {
	M := p.Data.Clients()
	w := make([]float64, M)
	total := float64(p.Data.Samples())
	for m, d := range p.Data.Train {
		if p.WeightBySamples {
			w[m] = float64(d.N) / total
		} else {
			w[m] = 1 / float64(M)
		}
	}
	return w
}

// Smooth returns F(w) = Σ_m p_m F_m(w) on the training (or test) data and,
// if grad is not nil, writes ∇F(w) into grad using scratch (length Dim).
// Sparse clients whose loss has O(nnz) gradients cost O(their nonzeros),
// so a reference optimum stays affordable with thousands of clients.
func (p *Problem) Smooth(ev Evaluator, w []float64, test bool, grad, scratch []float64) float64 {
	return p.smooth(ev, w, test, grad, scratch, nil)
}

// smooth is Smooth, returning NaN as soon as stopped (if not nil) reports
// true between two clients.
func (p *Problem) smooth(ev Evaluator, w []float64, test bool, grad, scratch []float64, stopped func() bool) float64 {
	parts := p.Data.Train
	if test {
		parts = p.Data.Test
	}
	weights := p.ClientWeights()
	if test {
		// Clients without test data (Split leaves none for tiny clients) take
		// no part in the test loss: renormalize over the others.
		total, clients := 0, 0
		for _, d := range parts {
			total += d.N
			if d.N > 0 {
				clients++
			}
		}
		weights = make([]float64, len(parts))
		for m, d := range parts {
			switch {
			case d.N == 0:
			case p.WeightBySamples:
				weights[m] = float64(d.N) / float64(total)
			default:
				weights[m] = 1 / float64(clients)
			}
		}
	}
	if grad != nil {
		clear(grad)
	}
	val := 0.0
	var touched *Indexed // O(nnz) gradients of sparse clients (see sparseGradient)
	for m, d := range parts {
		if d.N == 0 {
			continue
		}
		if stopped != nil && stopped() {
			return math.NaN()
		}
		if se, ok := ev.(SparseEvaluator); ok && grad != nil && d.Sparse != nil {
			if touched == nil {
				touched = NewIndexed()
			}
			val = addWeighted(val, weights[m], sparseGradient(se, d, w, grad, weights[m], touched))
			continue
		}
		var g []float64
		if grad != nil {
			g = scratch
		}
		val = addWeighted(val, weights[m], ev.Eval(w, d, nil, g))
		if grad != nil {
			for i, v := range scratch {
				grad[i] += weights[m] * v
			}
		}
	}
	return val
}

// addWeighted returns val + weight·loss, the product rounded on its own
// (never fused into one multiply-add), so that smooth and a cohort's
// client-by-client pass (sumWeighted) round alike on every build.
func addWeighted(val, weight, loss float64) float64 { return val + float64(weight*loss) }

// sumWeighted is the training loss smooth computes, from the clients'
// losses computed separately: Σ weights[m]·losses[m] over the clients
// with data, in client order.
func sumWeighted(weights, losses []float64, parts []*Data) float64 {
	val := 0.0
	for m, d := range parts {
		if d.N > 0 {
			val = addWeighted(val, weights[m], losses[m])
		}
	}
	return val
}

// sparseGradient adds weight times the full-batch gradient of client data
// d at w into grad, through g, in O(nonzeros of d) instead of the O(d)
// passes of a dense gradient, and returns the client's loss.
func sparseGradient(se SparseEvaluator, d *Data, w, grad []float64, weight float64, g *Indexed) float64 {
	g.Reset()
	se.Support(d, nil, g)
	for s, j := range g.Idx {
		g.At[s] = w[j]
	}
	v := se.EvalSparse(d, nil, g)
	for s, j := range g.Idx {
		grad[j] += weight * g.Val[s]
	}
	return v
}

// Reference returns the problem's reference optimum at the penalty's λ of
// round 0, computed once (on the full data by the solver of its class; see
// Solve), or read from RefStore when it holds it (a solved reference is
// stored there). It is safe for concurrent use.
func (p *Problem) Reference() (*Reference, error) {
	p.refOnce.Do(func() { p.ref, p.refErr = p.reference() })
	return p.ref, p.refErr
}

func (p *Problem) reference() (*Reference, error) {
	psi := p.Penalty.At(0, p.Layout)
	s := p.RefSettings.withDefaults()
	if p.RefStore != nil {
		ref, ok, err := p.RefStore.LoadReference(psi.Lambda, SolverFor(p, psi), s)
		if err != nil || ok {
			return ref, err
		}
	}
	ref, err := Solve(p, psi, nil, s)
	if err != nil || p.RefStore == nil {
		return ref, err
	}
	if err := p.RefStore.StoreReference(ref, s); err != nil {
		return nil, fmt.Errorf("storing the reference optimum: %w", err)
	}
	return ref, nil
}

// ReferenceUser is implemented by the metrics that need the problem's
// reference optimum, so that it can be computed (in parallel for the
// problems of one call) before their runs start.
type ReferenceUser interface {
	UsesReference() bool
}
