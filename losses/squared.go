package losses

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
)

// Squared and Trace are least squares (coordinate descent solves their
// reference optimum with an ℓ1 or elastic-net penalty).
var (
	_ core.LeastSquaresLoss = Squared{}
	_ core.LeastSquaresLoss = Trace{}
)

// Squared is the least-squares loss
//
//	f(w, b) = (c/n) Σᵢ (xᵢᵀw + b − yᵢ)²
//
// with c = ½ if Half (the registry default) and c = 1 otherwise (the plain
// mean squared error of the FCO paper). The kernel is Features×1; the bias
// is 1×1 if Intercept. The registry defaults are Half = Intercept = true.
type Squared struct {
	Half      bool // c = ½ instead of 1
	Intercept bool // fit an unregularized intercept b
}

// Layout lays out a Features×1 kernel and, if Intercept, a 1×1 bias.
func (s Squared) Layout(f *core.Federated) (core.Layout, error) {
	if f.Features <= 0 {
		return core.Layout{}, fmt.Errorf("loss %q: the dataset has no features", "squared")
	}
	if err := checkLabels("squared", f, "regression targets must be finite", finite); err != nil {
		return core.Layout{}, err
	}
	return linearLayout(f.Features, 1, s.Intercept, 1), nil
}

// NewEvaluator returns an evaluator of the loss for models laid out as l.
func (s Squared) NewEvaluator(l core.Layout) core.Evaluator {
	return newSquaredEval("squared", l, s.Half)
}

// LeastSquares returns c and the kernel and bias blocks of l: the
// reference optimum with an ℓ1 or elastic-net penalty is then found by
// coordinate descent (core.LeastSquaresLoss).
func (s Squared) LeastSquares(l core.Layout) (c float64, kernel, bias core.Block, hasBias bool) {
	return leastSquares("squared", l, s.Half)
}

// Trace is trace regression for low-rank matrices: each sample's features
// are a rows×cols matrix X (flattened row-major, Federated.Shape = [rows,
// cols]), the kernel is a rows×cols matrix W flattened the same way and the
// prediction is ⟨X, W⟩ + b. The loss is that of Squared. The registry
// defaults are Half = Intercept = true.
type Trace struct {
	Half      bool // c = ½ instead of 1
	Intercept bool // fit an unregularized intercept b
}

// Layout lays out a Shape[0]×Shape[1] kernel and, if Intercept, a 1×1 bias.
func (t Trace) Layout(f *core.Federated) (core.Layout, error) {
	r, c := f.Shape[0], f.Shape[1]
	switch {
	case r == 0 && c == 0:
		return core.Layout{}, fmt.Errorf("loss %q: dataset %q has no matrix shape (Federated.Shape is unset); trace regression needs samples that are rows×cols matrices", "trace", f.Name)
	case r <= 0 || c <= 0:
		return core.Layout{}, fmt.Errorf("loss %q: dataset %q has invalid matrix shape %d×%d", "trace", f.Name, r, c)
	case r*c != f.Features:
		return core.Layout{}, fmt.Errorf("loss %q: dataset %q has matrix shape %d×%d (%d entries) but %d features", "trace", f.Name, r, c, r*c, f.Features)
	}
	if err := checkLabels("trace", f, "regression targets must be finite", finite); err != nil {
		return core.Layout{}, err
	}
	return linearLayout(r, c, t.Intercept, 1), nil
}

// NewEvaluator returns an evaluator of the loss for models laid out as l.
func (t Trace) NewEvaluator(l core.Layout) core.Evaluator {
	return newSquaredEval("trace", l, t.Half)
}

// LeastSquares returns c and the kernel and bias blocks of l
// (core.LeastSquaresLoss; the kernel's row-major flattening is matched with
// the features).
func (t Trace) LeastSquares(l core.Layout) (c float64, kernel, bias core.Block, hasBias bool) {
	return leastSquares("trace", l, t.Half)
}

// leastSquares implements LeastSquares of Squared and Trace.
func leastSquares(loss string, l core.Layout, half bool) (c float64, kernel, bias core.Block, hasBias bool) {
	m := readModel(loss, l)
	return squaredScale(half), m.kernel, m.bias, m.hasBias
}

// squaredScale is c of the loss: ½ if half, else 1.
func squaredScale(half bool) float64 {
	if half {
		return 0.5
	}
	return 1
}

// squaredEval evaluates (c/n) Σ (xᵀw + b − y)²; the kernel may have any
// shape, its row-major flattening being matched with each row of X.
type squaredEval struct {
	model
	c        float64
	features int
	r        []float64 // residuals (full data)
}

func newSquaredEval(loss string, l core.Layout, half bool) *squaredEval {
	m := readModel(loss, l)
	return &squaredEval{model: m, c: squaredScale(half), features: m.kernel.Size()}
}

// Eval returns the mean loss over the rows idx of d (all rows if idx is nil)
// and, if grad is not nil, overwrites grad with the gradient. With no rows
// it returns 0 and a zero gradient.
func (e *squaredEval) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	e.check(w, d, e.features, grad)
	wk := e.kernel.Of(w)
	b := 0.0
	if e.hasBias {
		b = e.bias.Of(w)[0]
	}
	var gk []float64
	if grad != nil {
		clear(grad[:e.dim])
		gk = e.kernel.Of(grad)
	}
	n := rows(d, idx)
	if n == 0 {
		return 0
	}
	scale := 2 * e.c / float64(n) // ∂/∂r of (c/n) r²  is scale·r
	F := e.features
	sum, gb := 0.0, 0.0
	if idx == nil && d.Sparse == nil {
		// r = X w + b − y, loss = (c/n)‖r‖², ∇_w = (2c/n) Xᵀ r.
		e.r = grow(e.r, n)
		r := e.r
		copy(r, d.Y[:n])
		e.gemv(blas.NoTrans, 1, d, wk[:F], -1, r)
		if b != 0 {
			floats.AddConst(b, r)
		}
		sum = floats.Dot(r, r)
		if grad != nil {
			e.gemv(blas.Trans, scale, d, r, 0, gk[:F])
			gb = scale * floats.Sum(r)
		}
	} else {
		sum, gb = e.rows(wk, b, d, idx, gk, scale)
	}
	if grad != nil && e.hasBias {
		e.bias.Of(grad)[0] = gb
	}
	return e.c * sum / float64(n)
}

// rows returns Σ rᵢ² over the rows idx (all if nil) with rᵢ = xᵢᵀw + b − yᵢ
// and, if gk is not nil, adds scale·Σ rᵢxᵢ to gk and returns scale·Σ rᵢ as
// the bias gradient.
func (e *squaredEval) rows(wk []float64, b float64, d *core.Data, idx []int, gk []float64, scale float64) (sum, gb float64) {
	for k := range rows(d, idx) {
		i := row(idx, k)
		hintNext(d, idx, k)
		ri := e.dot(d, i, wk) + b - d.Y[i]
		sum += ri * ri
		if gk != nil {
			e.addRow(gk, scale*ri, d, i)
			gb += scale * ri
		}
	}
	return sum, gb
}

// Support touches the kernel entries of the rows' features and the bias.
func (e *squaredEval) Support(d *core.Data, idx []int, g *core.Indexed) { e.support(d, idx, g) }

// EvalSparse returns the mean loss over the rows idx of sparse d at the
// model values g.At and writes its gradient into g.Val, in O(nonzeros of
// the rows).
func (e *squaredEval) EvalSparse(d *core.Data, idx []int, g *core.Indexed) float64 {
	n := rows(d, idx)
	if n == 0 {
		clear(g.Val)
		return 0
	}
	sum := e.linearSparse(d, idx, g, 2*e.c/float64(n), func(z, y float64) (float64, float64) {
		r := z - y
		return r * r, r
	})
	return e.c * sum / float64(n)
}
