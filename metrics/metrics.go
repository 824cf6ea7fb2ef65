// Package metrics registers fedlab's evaluation metrics: objective and
// losses, accuracy, recovery errors against a ground truth, support
// recovery, rank, the optimality gap to a reference optimum, and
// communication counters.
package metrics

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// Func is a metric given by a name and a function of the evaluation context.
type Func struct {
	Label string
	F     func(e *core.Eval) float64
}

// Name is the column name.
func (m Func) Name() string { return m.Label }

// Eval calls F.
func (m Func) Eval(e *core.Eval) float64 { return m.F(e) }

// threshold is the magnitude above which a weight counts as nonzero.
type threshold struct {
	Threshold float64 `param:"threshold" min:"0" doc:"a weight (or singular value) counts as nonzero if its magnitude exceeds this"`
}

// PrecisionParams are the parameters of the metric "precision".
type PrecisionParams struct{ threshold }

// RecallParams are the parameters of the metric "recall".
type RecallParams struct{ threshold }

// F1Params are the parameters of the metric "f1".
type F1Params struct{ threshold }

// DensityParams are the parameters of the metric "density".
type DensityParams struct{ threshold }

// NNZParams are the parameters of the metric "nnz".
type NNZParams struct{ threshold }

// RankParams are the parameters of the metric "rank".
type RankParams struct{ threshold }

// thresholded registers a metric of the weights above a threshold, with
// the params type P.
func thresholded[P ~struct{ threshold }](name, doc string, f func(e *core.Eval, t float64) float64) {
	registry.Define(registry.Metric, name, doc, P{threshold{Threshold: 1e-2}}, func(p P) (core.Metric, error) {
		t := struct{ threshold }(p).Threshold
		return Func{Label: name, F: func(e *core.Eval) float64 { return f(e, t) }}, nil
	})
}

// simple registers a metric without parameters.
func simple(name, doc string, f func(e *core.Eval) float64) {
	registry.Define(registry.Metric, name, doc, struct{}{}, func(struct{}) (core.Metric, error) {
		return Func{Label: name, F: f}, nil
	})
}

func init() {
	simple("objective", "training objective Φ(w) = F(w) + ψ(w) at the current λ", (*core.Eval).Objective)
	simple("train_loss", "training loss F(w) = Σ_m p_m F_m(w)", (*core.Eval).TrainLoss)
	simple("test_loss", "test loss (NaN without test data)", (*core.Eval).TestLoss)
	simple("regularizer", "ψ(w) at the current λ", func(e *core.Eval) float64 { return e.Psi.Value(e.W) })
	for _, test := range []bool{false, true} {
		name, doc := "train_accuracy", "fraction of training samples classified correctly (classification losses)"
		if test {
			name, doc = "test_accuracy", "fraction of test samples classified correctly (classification losses)"
		}
		registry.Define(registry.Metric, name, doc, struct{}{}, func(struct{}) (core.Metric, error) {
			return accuracyFunc{Func{Label: name, F: func(e *core.Eval) float64 { return accuracy(e, test) }}}, nil
		})
	}
	simple("l2_error", "‖w − w_true‖₂ on the regularized weights (NaN without ground truth)",
		func(e *core.Eval) float64 { return truthError(e, 2) })
	simple("l1_error", "‖w − w_true‖₁ on the regularized weights (NaN without ground truth)",
		func(e *core.Eval) float64 { return truthError(e, 1) })
	simple("fro_error", "Frobenius error ‖W − W_true‖_F of the weight matrix (same as l2_error)",
		func(e *core.Eval) float64 { return truthError(e, 2) })
	simple("op_error", "operator-norm error ‖W − W_true‖₂ of the weight matrix (NaN without ground truth)", opError)
	registry.Define(registry.Metric, "opt_gap", "Φ(w) − Φ(w*) with w* the reference optimum (pooled data, λ of round 0; see fedlab.optimum)",
		struct{}{}, func(struct{}) (core.Metric, error) { return referenceFunc{Func{Label: "opt_gap", F: optGap}}, nil })
	simple("comm_up", "cumulative floats sent client → server", func(e *core.Eval) float64 { return float64(e.Up) })
	simple("comm_down", "cumulative floats sent server → client", func(e *core.Eval) float64 { return float64(e.Down) })
	simple("comm", "cumulative floats sent in both directions", func(e *core.Eval) float64 { return float64(e.Up + e.Down) })
	simple("comm_rounds", "rounds that communicated so far (rounds an algorithm skips are not counted)",
		func(e *core.Eval) float64 { return float64(e.CommRounds) })
	simple("samples", "cumulative samples whose gradient clients evaluated", func(e *core.Eval) float64 { return float64(e.Samples) })
	support[PrecisionParams]("precision", "support precision |Ŝ ∩ S| / |Ŝ| against the ground truth's support", supportCounts.precision)
	support[RecallParams]("recall", "support recall |Ŝ ∩ S| / |S| against the ground truth's support", supportCounts.recall)
	support[F1Params]("f1", "support F1 score 2PR/(P+R) against the ground truth's support", supportCounts.f1)
	support[DensityParams]("density", "fraction of regularized weights with magnitude above the threshold",
		func(s supportCounts) float64 { return float64(s.found) / float64(s.dim) })
	support[NNZParams]("nnz", "number of regularized weights with magnitude above the threshold",
		func(s supportCounts) float64 { return float64(s.found) })
	thresholded[RankParams]("rank", "number of singular values of the weight matrix above the threshold", rank)
}

// support registers a metric of the support above a threshold, with the
// params type P.
func support[P ~struct{ threshold }](name, doc string, pick func(s supportCounts) float64) {
	thresholded[P](name, doc, func(e *core.Eval, t float64) float64 { return pick(countSupport(e, t)) })
}

func accuracy(e *core.Eval, test bool) float64 {
	p, ok := e.Evaluator().(core.Predictor)
	if !ok {
		return math.NaN()
	}
	parts := e.Problem.Data.Train
	if test {
		parts = e.Problem.Data.Test
	}
	correct, total := 0.0, 0
	for _, d := range parts {
		if d == nil || d.N == 0 {
			continue // Accuracy is NaN on no rows
		}
		if e.Stopped() {
			return math.NaN()
		}
		correct += p.Accuracy(e.W, d) * float64(d.N)
		total += d.N
	}
	if total == 0 {
		return math.NaN()
	}
	return correct / float64(total)
}

func truthError(e *core.Eval, norm int) float64 {
	t := e.Problem.Data.Truth
	if t == nil {
		return math.NaN()
	}
	w := e.Problem.Layout.Weights(e.W)
	if len(w) != len(t.Weights) {
		return math.NaN()
	}
	s := 0.0
	for i, v := range w {
		d := math.Abs(v - t.Weights[i])
		if norm == 1 {
			s += d
		} else {
			s += d * d
		}
	}
	if norm == 2 {
		s = math.Sqrt(s)
	}
	return s
}

// referenceFunc is a metric of the reference optimum (core.ReferenceUser):
// the optimum is computed before its runs start.
type accuracyFunc struct{ Func }

// CheckProblem refuses a problem whose loss makes no predictions (a
// regression loss: the accuracy would be NaN at every round).
func (m accuracyFunc) CheckProblem(p *core.Problem) error {
	if _, ok := p.Loss.NewEvaluator(p.Layout).(core.Predictor); !ok {
		return fmt.Errorf("metric %q needs a classification loss (logistic, multinomial, mlp, cnn); this problem's loss makes no class predictions", m.Label)
	}
	return nil
}

type referenceFunc struct{ Func }

// UsesReference is true.
func (referenceFunc) UsesReference() bool { return true }

func optGap(e *core.Eval) float64 {
	ref, err := e.Problem.Reference()
	if err != nil {
		return math.NaN()
	}
	return e.Objective() - ref.Objective
}
