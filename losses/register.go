package losses

import (
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// intercept is the choice of an unregularized intercept.
type intercept struct {
	Intercept bool `param:"intercept" doc:"fit an unregularized intercept b"`
}

// squaredParams are the parameters of the squared and trace losses.
type squaredParams struct {
	Half bool `param:"half" doc:"scale the mean squared residual by 1/2 (true) or use the plain mean squared error (false)"`
	intercept
}

// MultinomialParams are the parameters of the loss "multinomial".
type MultinomialParams struct {
	Bias bool `param:"bias" doc:"fit an unregularized bias per class"`
}

// SquaredParams are the parameters of the loss "squared".
type SquaredParams struct{ squaredParams }

// TraceParams are the parameters of the loss "trace".
type TraceParams struct{ squaredParams }

// LogisticParams are the parameters of the loss "logistic".
type LogisticParams struct{ intercept }

func init() {
	squared := squaredParams{Half: true, intercept: intercept{Intercept: true}}
	registry.Define(registry.Loss, "squared", "least squares (c/n)·Σ(xᵀw + b − y)², c = 1/2 if half else 1",
		SquaredParams{squared}, func(p SquaredParams) (core.Loss, error) { return Squared{Half: p.Half, Intercept: p.Intercept}, nil })
	registry.Define(registry.Loss, "logistic", "binary logistic regression (labels 0/1 or -1/+1): mean log(1 + exp(−s·(xᵀw + b)))",
		LogisticParams{intercept{Intercept: true}}, func(p LogisticParams) (core.Loss, error) { return Logistic{Intercept: p.Intercept}, nil })
	registry.Define(registry.Loss, "multinomial", "softmax cross-entropy over the dataset's classes (labels 0..K−1), kernel Features×K",
		MultinomialParams{Bias: true}, func(p MultinomialParams) (core.Loss, error) { return Multinomial{Bias: p.Bias}, nil })
	registry.Define(registry.Loss, "trace", "trace regression for low-rank matrices: squared loss of ⟨X, W⟩ + b, W shaped like the dataset's Shape",
		TraceParams{squared}, func(p TraceParams) (core.Loss, error) { return Trace{Half: p.Half, Intercept: p.Intercept}, nil })
}
