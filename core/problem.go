package core

import (
	"fmt"
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
}

// Reference is a high-precision solution of the problem at a fixed λ.
type Reference struct {
	W         []float64
	Objective float64
	Lambda    float64
	Iters     int
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
		if se, ok := ev.(SparseEvaluator); ok && grad != nil && d.Sparse != nil {
			if touched == nil {
				touched = NewIndexed()
			}
			val += weights[m] * sparseGradient(se, d, w, grad, weights[m], touched)
			continue
		}
		var g []float64
		if grad != nil {
			g = scratch
		}
		val += weights[m] * ev.Eval(w, d, nil, g)
		if grad != nil {
			for i, v := range scratch {
				grad[i] += weights[m] * v
			}
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
// round 0, computed once (FISTA on the full data; see Solve).
func (p *Problem) Reference() (*Reference, error) {
	p.refOnce.Do(func() {
		psi := p.Penalty.At(0, p.Layout)
		p.ref, p.refErr = Solve(p, psi, nil, p.RefSettings)
	})
	return p.ref, p.refErr
}
