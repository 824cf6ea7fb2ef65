package losses

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
)

// Multinomial is softmax cross-entropy over K = Classes classes,
//
//	f(W, b) = (1/n) Σᵢ [log Σₖ exp(zᵢₖ) − zᵢ,yᵢ],  zᵢₖ = Σⱼ xᵢⱼ Wⱼₖ + bₖ,
//
// with labels yᵢ ∈ {0, …, K−1} stored as floats, evaluated with a stable
// log-sum-exp. The kernel W is Features×K, row-major (kernel[j*K+k] is the
// weight of feature j for class k); the bias is 1×K if Bias (the registry
// default). Its evaluators implement core.Predictor.
type Multinomial struct {
	Bias bool // fit an unregularized bias per class
}

// Layout lays out a Features×Classes kernel and, if Bias, a 1×Classes bias.
// The dataset must have at least two classes and integral labels in
// 0..Classes−1.
func (m Multinomial) Layout(f *core.Federated) (core.Layout, error) {
	if f.Features <= 0 {
		return core.Layout{}, fmt.Errorf("loss %q: the dataset has no features", "multinomial")
	}
	switch {
	case f.Classes == 0:
		return core.Layout{}, fmt.Errorf("loss %q: the dataset %q has no classes (a regression dataset?)", "multinomial", f.Name)
	case f.Classes < 2:
		return core.Layout{}, fmt.Errorf("loss %q: the dataset %q has %d class; at least 2 are needed", "multinomial", f.Name, f.Classes)
	}
	K := f.Classes
	label := func(y float64) bool { return y == math.Trunc(y) && y >= 0 && y < float64(K) }
	if err := checkLabels("multinomial", f, fmt.Sprintf("labels must be class indices 0..%d", K-1), label); err != nil {
		return core.Layout{}, err
	}
	return linearLayout(f.Features, K, m.Bias, K), nil
}

// NewEvaluator returns an evaluator of the loss for models laid out as l.
// It also implements core.Predictor.
func (m Multinomial) NewEvaluator(l core.Layout) core.Evaluator {
	md := readModel("multinomial", l)
	return &multinomialEval{model: md, features: md.kernel.Rows, classes: md.kernel.Cols}
}

// multinomialEval keeps the kernel transposed (K×F) so that logits and
// gradient updates run over contiguous rows of length F.
type multinomialEval struct {
	model
	features, classes int
	wt, gt            []float64 // Wᵀ and the gradient's transpose, K×F
	z, gb             []float64 // logits and bias gradient, K
}

// prepare transposes the kernel of w into e.wt and sizes the buffers.
func (e *multinomialEval) prepare(w []float64) {
	F, K := e.features, e.classes
	e.wt = grow(e.wt, K*F)
	e.gt = grow(e.gt, K*F)
	e.z = grow(e.z, K)
	e.gb = grow(e.gb, K)
	wk := e.kernel.Of(w)
	for j := range F {
		row := wk[j*K : (j+1)*K]
		for k, v := range row {
			e.wt[k*F+j] = v
		}
	}
}

// logits writes z = Wᵀx + b into e.z.
func (e *multinomialEval) logits(x, bias []float64) []float64 {
	F := e.features
	z := e.z
	for k := range z {
		z[k] = floats.Dot(e.wt[k*F:(k+1)*F], x)
	}
	if bias != nil {
		floats.Add(z, bias)
	}
	return z
}

// label converts a stored label to a class index.
func (e *multinomialEval) label(y float64) int { return classIndex("multinomial", y, e.classes) }

// sample adds the loss of row x with label y and, if grad, scale times its
// gradient to e.gt and e.gb.
func (e *multinomialEval) sample(x []float64, y float64, bias []float64, grad bool, scale float64) float64 {
	c := e.label(y)
	z := e.logits(x, bias)
	lse := floats.LogSumExp(z)
	loss := lse - z[c]
	if grad {
		F := e.features
		for k, v := range z {
			p := math.Exp(v - lse)
			if k == c {
				p -= 1
			}
			p *= scale
			floats.AddScaled(e.gt[k*F:(k+1)*F], p, x)
			e.gb[k] += p
		}
	}
	return loss
}

// Eval returns the mean loss over the rows idx of d (all rows if idx is nil)
// and, if grad is not nil, overwrites grad with the gradient. With no rows
// it returns 0 and a zero gradient.
func (e *multinomialEval) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	e.check(w, d, e.features, grad)
	hasGrad := grad != nil
	if hasGrad {
		clear(grad[:e.dim])
	}
	n := rows(d, idx)
	if n == 0 {
		return 0
	}
	if d.Sparse != nil {
		var gk, gb []float64
		if hasGrad {
			gk = e.kernel.Of(grad)
			if e.hasBias {
				gb = e.bias.Of(grad)
			}
		}
		return e.sparseRows(w, d, idx, gk, gb)
	}
	e.prepare(w)
	var bias []float64
	if e.hasBias {
		bias = e.bias.Of(w)
	}
	if hasGrad {
		clear(e.gt)
		clear(e.gb)
	}
	inv := 1 / float64(n)
	sum := 0.0
	if idx == nil {
		for i := range d.N {
			sum += e.sample(e.dense(d, i), d.Y[i], bias, hasGrad, inv)
		}
	} else {
		for k, i := range idx {
			hintNext(d, idx, k)
			sum += e.sample(e.dense(d, i), d.Y[i], bias, hasGrad, inv)
		}
	}
	if hasGrad {
		F, K := e.features, e.classes
		gk := e.kernel.Of(grad)
		for j := range F {
			row := gk[j*K : (j+1)*K]
			for k := range row {
				row[k] = e.gt[k*F+j]
			}
		}
		if e.hasBias {
			copy(e.bias.Of(grad), e.gb)
		}
	}
	return sum * inv
}

// Accuracy returns the fraction of rows of d whose label is the class of
// largest logit (the first one on ties); NaN if d has no rows.
func (e *multinomialEval) Accuracy(w []float64, d *core.Data) float64 {
	e.check(w, d, e.features, nil)
	if d.N == 0 {
		return math.NaN()
	}
	if d.Sparse != nil {
		correct := 0
		for i := range d.N {
			if floats.MaxIdx(e.sparseLogits(w, d, i)) == e.label(d.Y[i]) {
				correct++
			}
		}
		return float64(correct) / float64(d.N)
	}
	e.prepare(w)
	var bias []float64
	if e.hasBias {
		bias = e.bias.Of(w)
	}
	correct := 0
	for i := range d.N {
		z := e.logits(e.dense(d, i), bias)
		if floats.MaxIdx(z) == e.label(d.Y[i]) {
			correct++
		}
	}
	return float64(correct) / float64(d.N)
}

// sparseLogits writes zₖ = Σⱼ xᵢⱼ Wⱼₖ + bₖ for sparse row i into e.z, reading
// the row-major kernel directly (K contiguous weights per feature).
func (e *multinomialEval) sparseLogits(w []float64, d *core.Data, i int) []float64 {
	K := e.classes
	e.z = grow(e.z, K)
	z := e.z
	if e.hasBias {
		copy(z, e.bias.Of(w))
	} else {
		clear(z)
	}
	wk := e.kernel.Of(w)
	ind, val := d.Sparse.Row(i)
	for t, j := range ind {
		floats.AddScaled(z, val[t], wk[int(j)*K:int(j)*K+K])
	}
	return z
}

// sparseRows returns the mean loss over the rows idx (all if nil) of sparse
// d and, if gk is not nil, adds its kernel gradient to gk (row-major F×K)
// and its bias gradient to gb (if not nil), in O(K · nonzeros of the rows).
func (e *multinomialEval) sparseRows(w []float64, d *core.Data, idx []int, gk, gb []float64) float64 {
	K := e.classes
	n := rows(d, idx)
	inv := 1 / float64(n)
	sum := 0.0
	for r := range n {
		i := row(idx, r)
		c := e.label(d.Y[i])
		z := e.sparseLogits(w, d, i)
		zmax := floats.Max(z)
		s := 0.0
		for _, v := range z {
			s += math.Exp(v - zmax)
		}
		lse := zmax + math.Log(s)
		sum += lse - z[c]
		if gk == nil {
			continue
		}
		for k, v := range z {
			p := math.Exp(v - lse)
			if k == c {
				p -= 1
			}
			z[k] = p * inv
		}
		if gb != nil {
			floats.Add(gb, z)
		}
		ind, val := d.Sparse.Row(i)
		for t, j := range ind {
			floats.AddScaled(gk[int(j)*K:int(j)*K+K], val[t], z)
		}
	}
	return sum * inv
}

// Support touches the K kernel entries of each of the rows' features and
// the bias.
func (e *multinomialEval) Support(d *core.Data, idx []int, g *core.Indexed) { e.support(d, idx, g) }

// EvalSparse returns the mean loss over the rows idx of sparse d at the
// model values g.At and writes its gradient into g.Val, in O(K · nonzeros).
func (e *multinomialEval) EvalSparse(d *core.Data, idx []int, g *core.Indexed) float64 {
	if d.Sparse == nil {
		panic("losses: multinomial: EvalSparse needs sparse data")
	}
	clear(g.Val)
	n := rows(d, idx)
	if n == 0 {
		return 0
	}
	K := e.classes
	e.z = grow(e.z, K)
	z := e.z
	bs := e.biasSlot(g)
	inv := 1 / float64(n)
	sum, pos := 0.0, 0
	for r := range n {
		i := row(idx, r)
		c := e.label(d.Y[i])
		_, val := d.Sparse.Row(i)
		refs := g.Ref[pos : pos+len(val)]
		pos += len(val)
		if bs >= 0 {
			copy(z, g.At[bs:bs+K])
		} else {
			clear(z)
		}
		for t, s := range refs {
			floats.AddScaled(z, val[t], g.At[s:int(s)+K])
		}
		zmax := floats.Max(z)
		se := 0.0
		for _, v := range z {
			se += math.Exp(v - zmax)
		}
		lse := zmax + math.Log(se)
		sum += lse - z[c]
		for k, v := range z {
			p := math.Exp(v - lse)
			if k == c {
				p -= 1
			}
			z[k] = p * inv
		}
		if bs >= 0 {
			floats.Add(g.Val[bs:bs+K], z)
		}
		for t, s := range refs {
			floats.AddScaled(g.Val[s:int(s)+K], val[t], z)
		}
	}
	return sum * inv
}
