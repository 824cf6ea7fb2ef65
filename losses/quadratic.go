package losses

import (
	"fmt"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

func init() {
	registry.Define(registry.Loss, "quadratic",
		"per-sample quadratic (y/2)·‖w − x‖²: the label y is the curvature (any sign), the features x the center",
		struct{}{}, func(struct{}) (core.Loss, error) { return Quadratic{}, nil })
}

// Quadratic is the per-sample quadratic
//
//	f(w; x, y) = (y/2) ‖w − x‖²,
//
// whose label y is a curvature of any sign and whose features x are the
// center, so that a client's mean loss is a quadratic with the mean
// curvature. With one sample x = 0 of curvature +1 on one client and −1 on
// another it is the FedPD paper's counterexample f₁ = w²/2, f₂ = −w²/2
// (dataset "fedavg_counterexample"). The kernel is Features×1; there is no
// intercept.
type Quadratic struct{}

// Layout lays out a Features×1 kernel.
func (Quadratic) Layout(f *core.Federated) (core.Layout, error) {
	if f.Features <= 0 {
		return core.Layout{}, fmt.Errorf("loss %q: the dataset has no features", "quadratic")
	}
	if err := denseOnly("quadratic", f); err != nil {
		return core.Layout{}, err
	}
	if err := checkLabels("quadratic", f, "curvatures must be finite", finite); err != nil {
		return core.Layout{}, err
	}
	return linearLayout(f.Features, 1, false, 0), nil
}

// NewEvaluator returns an evaluator of the loss for models laid out as l.
func (Quadratic) NewEvaluator(l core.Layout) core.Evaluator {
	m := readModel("quadratic", l)
	return &quadraticEval{model: m, features: m.kernel.Size()}
}

type quadraticEval struct {
	model
	features int
}

// Eval returns the mean loss over the rows idx of d (all rows if idx is nil)
// and, if grad is not nil, overwrites grad with the gradient. With no rows
// it returns 0 and a zero gradient.
func (e *quadraticEval) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	e.check(w, d, e.features, grad)
	wk := e.kernel.Of(w)
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
	sum := 0.0
	for j := range n {
		i := j
		if idx != nil {
			i = idx[j]
		}
		s := d.Y[i]
		for k, x := range e.dense(d, i) {
			r := wk[k] - x
			sum += s * r * r / 2
			if gk != nil {
				gk[k] += s * r * inv
			}
		}
	}
	return sum * inv
}
