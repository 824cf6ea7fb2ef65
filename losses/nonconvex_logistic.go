package losses

import (
	"fmt"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// NonconvexLogisticParams are the parameters of the loss
// "nonconvex_logistic".
type NonconvexLogisticParams struct {
	Alpha     float64 `param:"alpha" min:"0" doc:"α: curvature of the penalty (the paper uses 1)"`
	Beta      float64 `param:"beta" min:"0" doc:"β: weight of the penalty (the paper uses 0.1)"`
	Intercept bool    `param:"intercept" doc:"fit an unpenalized intercept b (the paper's data carry a constant feature instead)"`
}

func init() {
	registry.Define(registry.Loss, "nonconvex_logistic",
		"logistic loss plus the non-convex penalty Σ_d β·α·w_d²/(1 + α·w_d²) (FedPD paper, eq. 121)",
		NonconvexLogisticParams{Alpha: 1, Beta: 0.1}, func(p NonconvexLogisticParams) (core.Loss, error) {
			return NonconvexLogistic{Alpha: p.Alpha, Beta: p.Beta, Intercept: p.Intercept}, nil
		})
}

// NonconvexLogistic is the non-convex penalized logistic regression of the
// FedPD paper (Zhang et al., eq. 121, after Antoniadis et al.):
//
//	f(w) = (1/n) Σᵢ log(1 + exp(−sᵢ (xᵢᵀw + b))) + Σ_d β α w_d² / (1 + α w_d²),
//
// with sᵢ = +1 if yᵢ > 0 and −1 otherwise. The penalty is part of every
// sample's loss, so it appears once in the mean; it acts on the kernel only
// (never on the intercept). Its gradient is 2αβ w_d / (1 + α w_d²)², and its
// curvature lies in [−αβ/2, 2αβ], so the loss is smooth but not convex.
// Its evaluators implement core.Predictor.
type NonconvexLogistic struct {
	Alpha, Beta float64
	Intercept   bool // fit an unpenalized intercept b
}

// Layout lays out a Features×1 kernel and, if Intercept, a 1×1 bias. It
// rejects datasets with more than two classes and labels other than −1, 0
// and 1.
func (l NonconvexLogistic) Layout(f *core.Federated) (core.Layout, error) {
	const name = "nonconvex_logistic"
	if f.Features <= 0 {
		return core.Layout{}, fmt.Errorf("loss %q: the dataset has no features", name)
	}
	if f.Classes > 2 {
		return core.Layout{}, fmt.Errorf("loss %q: dataset %q has %d classes; the loss is binary", name, f.Name, f.Classes)
	}
	binary := func(y float64) bool { return y == 0 || y == 1 || y == -1 }
	if err := checkLabels(name, f, "binary labels must be 0/1 or -1/+1", binary); err != nil {
		return core.Layout{}, err
	}
	return linearLayout(f.Features, 1, l.Intercept, 1), nil
}

// NewEvaluator returns an evaluator of the loss for models laid out as lay.
// It also implements core.Predictor.
func (l NonconvexLogistic) NewEvaluator(lay core.Layout) core.Evaluator {
	inner := Logistic{Intercept: l.Intercept}.NewEvaluator(lay).(*logisticEval)
	return &nonconvexEval{lg: inner, alpha: l.Alpha, beta: l.Beta}
}

// nonconvexEval adds the penalty to the logistic evaluator's loss and
// gradient; Accuracy is the logistic one. The logistic evaluator is a named
// field, not embedded, so that its O(nnz) sparse gradient (which lacks the
// dense penalty) is not promoted.
type nonconvexEval struct {
	lg          *logisticEval
	alpha, beta float64
}

// Accuracy is the logistic regression accuracy of w on d.
func (e *nonconvexEval) Accuracy(w []float64, d *core.Data) float64 { return e.lg.Accuracy(w, d) }

// Eval returns the mean loss over the rows idx of d (all rows if idx is nil)
// and, if grad is not nil, overwrites grad with the gradient. With no rows
// it returns 0 and a zero gradient.
func (e *nonconvexEval) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	v := e.lg.Eval(w, d, idx, grad)
	if rows(d, idx) == 0 {
		return 0
	}
	wk := e.lg.kernel.Of(w)
	var gk []float64
	if grad != nil {
		gk = e.lg.kernel.Of(grad)
	}
	for i, x := range wk {
		t := 1 + e.alpha*x*x
		v += e.beta * e.alpha * x * x / t
		if gk != nil {
			gk[i] += 2 * e.alpha * e.beta * x / (t * t)
		}
	}
	return v
}
