package losses

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
)

// Logistic is binary logistic regression,
//
//	f(w, b) = (1/n) Σᵢ log(1 + exp(−sᵢ (xᵢᵀw + b))),
//
// where sᵢ = +1 if yᵢ > 0 and −1 otherwise, so labels may be {0, 1} or
// {−1, +1}. It is evaluated without overflow for any margin. The kernel is
// Features×1; the bias is 1×1 if Intercept (the registry default).
// Its evaluators implement core.Predictor.
type Logistic struct {
	Intercept bool // fit an unregularized intercept b
}

// Layout lays out a Features×1 kernel and, if Intercept, a 1×1 bias. It
// rejects datasets with more than two classes and labels other than −1, 0
// and 1.
func (l Logistic) Layout(f *core.Federated) (core.Layout, error) {
	if f.Features <= 0 {
		return core.Layout{}, fmt.Errorf("loss %q: the dataset has no features", "logistic")
	}
	if f.Classes > 2 {
		return core.Layout{}, fmt.Errorf("loss %q: dataset %q has %d classes; logistic regression is binary (use \"multinomial\")", "logistic", f.Name, f.Classes)
	}
	binary := func(y float64) bool { return y == 0 || y == 1 || y == -1 }
	if err := checkLabels("logistic", f, "binary labels must be 0/1 or -1/+1", binary); err != nil {
		return core.Layout{}, err
	}
	return linearLayout(f.Features, 1, l.Intercept, 1), nil
}

// NewEvaluator returns an evaluator of the loss for models laid out as l.
// It also implements core.Predictor.
func (l Logistic) NewEvaluator(lay core.Layout) core.Evaluator {
	m := readModel("logistic", lay)
	return &logisticEval{model: m, features: m.kernel.Size()}
}

type logisticEval struct {
	model
	features int
	z        []float64 // margins, then ∂f/∂zᵢ (full data)
}

// margins writes z = X w + b for all rows of d into the scratch buffer.
func (e *logisticEval) margins(wk []float64, b float64, d *core.Data) []float64 {
	n, F := d.N, e.features
	e.z = grow(e.z, n)
	z := e.z
	e.gemv(blas.NoTrans, 1, d, wk[:F], 0, z)
	if b != 0 {
		floats.AddConst(b, z)
	}
	return z
}

func (e *logisticEval) params(w []float64) ([]float64, float64) {
	b := 0.0
	if e.hasBias {
		b = e.bias.Of(w)[0]
	}
	return e.kernel.Of(w), b
}

// sampleLoss returns the loss of margin z with label y and ∂loss/∂z.
func sampleLoss(z, y float64) (loss, dz float64) {
	if y > 0 {
		return softplus(-z), -sigmoid(-z)
	}
	return softplus(z), sigmoid(z)
}

// Eval returns the mean loss over the rows idx of d (all rows if idx is nil)
// and, if grad is not nil, overwrites grad with the gradient. With no rows
// it returns 0 and a zero gradient.
func (e *logisticEval) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	e.check(w, d, e.features, grad)
	wk, b := e.params(w)
	var gk []float64
	if grad != nil {
		clear(grad[:e.dim])
		gk = e.kernel.Of(grad)
	}
	n := rows(d, idx)
	if n == 0 {
		return 0
	}
	inv := 1 / float64(n)
	sum, gb := 0.0, 0.0
	if idx == nil && d.Sparse == nil {
		z := e.margins(wk, b, d)
		for i, zi := range z {
			l, dz := sampleLoss(zi, d.Y[i])
			sum += l
			z[i] = dz * inv
			gb += z[i]
		}
		if grad != nil {
			e.gemv(blas.Trans, 1, d, z, 0, gk[:e.features])
		}
	} else {
		sum, gb = e.rows(wk, b, d, idx, gk, inv)
	}
	if grad != nil && e.hasBias {
		e.bias.Of(grad)[0] = gb
	}
	return sum * inv
}

// rows returns the summed loss over the rows idx (all if nil) and, if gk is
// not nil, adds scale times the summed kernel gradient to gk and returns
// scale times the summed bias gradient.
func (e *logisticEval) rows(wk []float64, b float64, d *core.Data, idx []int, gk []float64, scale float64) (sum, gb float64) {
	for k := range rows(d, idx) {
		i := row(idx, k)
		hintNext(d, idx, k)
		l, dz := sampleLoss(e.dot(d, i, wk)+b, d.Y[i])
		sum += l
		if gk != nil {
			e.addRow(gk, dz*scale, d, i)
			gb += dz * scale
		}
	}
	return sum, gb
}

// Support touches the kernel entries of the rows' features and the bias.
func (e *logisticEval) Support(d *core.Data, idx []int, g *core.Indexed) { e.support(d, idx, g) }

// EvalSparse returns the mean loss over the rows idx of sparse d at the
// model values g.At and writes its gradient into g.Val, in O(nonzeros of
// the rows).
func (e *logisticEval) EvalSparse(d *core.Data, idx []int, g *core.Indexed) float64 {
	n := rows(d, idx)
	if n == 0 {
		clear(g.Val)
		return 0
	}
	inv := 1 / float64(n)
	return e.linearSparse(d, idx, g, inv, sampleLoss) * inv
}

// Accuracy returns the fraction of rows of d whose predicted class (positive
// iff xᵀw + b > 0) agrees with the label (positive iff y > 0); NaN if d has
// no rows.
func (e *logisticEval) Accuracy(w []float64, d *core.Data) float64 {
	e.check(w, d, e.features, nil)
	if d.N == 0 {
		return math.NaN()
	}
	wk, b := e.params(w)
	correct := 0
	if d.Sparse != nil {
		for i := range d.N {
			if (d.Dot(i, wk)+b > 0) == (d.Y[i] > 0) {
				correct++
			}
		}
		return float64(correct) / float64(d.N)
	}
	z := e.margins(wk, b, d)
	for i, zi := range z {
		if (zi > 0) == (d.Y[i] > 0) {
			correct++
		}
	}
	return float64(correct) / float64(d.N)
}
