package regularizers

import (
	"fmt"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// Typed plans: each component's parameters are an exported type named
// after it (L1Params for "l1", ...), used with plan.Of (see docs/library.md).

// weight is the required weight λ of a penalty.
type weight struct {
	Lambda sched.Schedule `param:"lambda,required" min:"0" doc:"weight λ ≥ 0 of the penalty: a number or a schedule over rounds"`
}

// L1Params are the parameters of the regularizer "l1".
type L1Params struct{ weight }

// L2SqParams are the parameters of the regularizer "l2sq".
type L2SqParams struct{ weight }

// NuclearParams are the parameters of the regularizer "nuclear".
type NuclearParams struct{ weight }

// ElasticNetParams are the parameters of the regularizer "elastic_net":
// its weight and mixing ratio.
type ElasticNetParams struct {
	weight
	L1Ratio float64 `param:"l1_ratio" min:"0" max:"1" doc:"mixing weight α ∈ [0, 1] of the ℓ1 term (1 is l1, 0 is ½‖w‖²₂)"`
}

// radius is the required radius of a constraint set.
type radius struct {
	Radius float64 `param:"radius,required" min:"0" doc:"radius (> 0) of the ball each regularized block is constrained to"`
}

// Check refuses an empty ball.
func (p radius) Check() error {
	if p.Radius <= 0 {
		return fmt.Errorf("parameter \"radius\" must be > 0, got %g", p.Radius)
	}
	return nil
}

// L1BallParams are the parameters of the regularizer "l1_ball".
type L1BallParams struct{ radius }

// L2BallParams are the parameters of the regularizer "l2_ball".
type L2BallParams struct{ radius }

// NoneParams are the parameters of the regularizer "none" (there are none).
type NoneParams struct{}

// EuclideanParams are the parameters of the mirror map "euclidean" (there
// are none).
type EuclideanParams struct{}

// penalty registers a weighted penalty with the fixed regularizer r.
func penalty[P interface{ lambda() sched.Schedule }](name, doc string, r core.Regularizer) {
	var defaults P
	registry.Define(registry.Regularizer, name, doc, defaults, func(p P) (core.Penalty, error) {
		return core.Penalty{Name: name, Reg: r, Lambda: p.lambda()}, nil
	})
}

// lambda is the penalty's weight.
func (w weight) lambda() sched.Schedule { return w.Lambda }

// constraint registers a ball constraint of the given radius.
func constraint[P interface{ size() float64 }](name, doc string, reg func(radius float64) core.Regularizer) {
	var defaults P
	registry.Define(registry.Regularizer, name, doc, defaults, func(p P) (core.Penalty, error) {
		return core.Penalty{Name: name, Reg: reg(p.size()), Lambda: sched.Constant(1)}, nil
	})
}

// size is the ball's radius.
func (r radius) size() float64 { return r.Radius }

func init() {
	registry.Define(registry.Regularizer, "none", "no regularization (ψ = 0)", NoneParams{},
		func(NoneParams) (core.Penalty, error) {
			return core.Penalty{Name: "none", Reg: None{}, Lambda: sched.Constant(1)}, nil
		})
	penalty[L1Params]("l1", "λ‖w‖₁ on the regularized blocks (prox: soft thresholding)", L1{})
	penalty[L2SqParams]("l2sq", "λ‖w‖²₂ (not halved) on the regularized blocks (prox: z/(1+2tλ), weight decay)", L2Sq{})
	registry.Define(registry.Regularizer, "elastic_net", "λ(α‖w‖₁ + (1−α)/2‖w‖²₂) on the regularized blocks, α = l1_ratio",
		ElasticNetParams{L1Ratio: 0.5}, func(p ElasticNetParams) (core.Penalty, error) {
			return core.Penalty{Name: "elastic_net", Reg: ElasticNet{L1Ratio: p.L1Ratio}, Lambda: p.Lambda}, nil
		})
	penalty[NuclearParams]("nuclear", "λ·Σσᵢ, the nuclear norm of each regularized block as a Rows×Cols matrix (prox: SVD thresholding)", Nuclear{})
	constraint[L1BallParams]("l1_ball", "constraint ‖B‖₁ ≤ radius for each regularized block B (exact sort-based projection)",
		func(r float64) core.Regularizer { return L1Ball{Radius: r} })
	constraint[L2BallParams]("l2_ball", "constraint ‖B‖₂ ≤ radius (Frobenius) for each regularized block B",
		func(r float64) core.Regularizer { return L2Ball{Radius: r} })

	registry.Define(registry.Mirror, "euclidean", "h = ½‖w‖²₂; the composite map is the proximal operator", EuclideanParams{},
		func(EuclideanParams) (core.Mirror, error) { return core.Euclidean{}, nil })
}
