package regularizers

import (
	"fmt"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/sched"
)

// weight is the required weight λ of a penalty.
type weight struct {
	Lambda sched.Schedule `param:"lambda,required" min:"0" doc:"weight λ ≥ 0 of the penalty: a number or a schedule over rounds"`
}

// elasticNetParams are the elastic net's weight and mixing ratio.
type elasticNetParams struct {
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

// penalty registers a weighted penalty with the fixed regularizer r.
func penalty(name, doc string, r core.Regularizer) {
	registry.Define(registry.Regularizer, name, doc, weight{}, func(p weight) (core.Penalty, error) {
		return core.Penalty{Name: name, Reg: r, Lambda: p.Lambda}, nil
	})
}

// constraint registers a ball constraint of the given radius.
func constraint(name, doc string, reg func(radius float64) core.Regularizer) {
	registry.Define(registry.Regularizer, name, doc, radius{}, func(p radius) (core.Penalty, error) {
		return core.Penalty{Name: name, Reg: reg(p.Radius), Lambda: sched.Constant(1)}, nil
	})
}

func init() {
	registry.Define(registry.Regularizer, "none", "no regularization (ψ = 0)", struct{}{},
		func(struct{}) (core.Penalty, error) {
			return core.Penalty{Name: "none", Reg: None{}, Lambda: sched.Constant(1)}, nil
		})
	penalty("l1", "λ‖w‖₁ on the regularized blocks (prox: soft thresholding)", L1{})
	penalty("l2sq", "λ‖w‖²₂ (not halved) on the regularized blocks (prox: z/(1+2tλ), weight decay)", L2Sq{})
	registry.Define(registry.Regularizer, "elastic_net", "λ(α‖w‖₁ + (1−α)/2‖w‖²₂) on the regularized blocks, α = l1_ratio",
		elasticNetParams{L1Ratio: 0.5}, func(p elasticNetParams) (core.Penalty, error) {
			return core.Penalty{Name: "elastic_net", Reg: ElasticNet{L1Ratio: p.L1Ratio}, Lambda: p.Lambda}, nil
		})
	penalty("nuclear", "λ·Σσᵢ, the nuclear norm of each regularized block as a Rows×Cols matrix (prox: SVD thresholding)", Nuclear{})
	constraint("l1_ball", "constraint ‖B‖₁ ≤ radius for each regularized block B (exact sort-based projection)",
		func(r float64) core.Regularizer { return L1Ball{Radius: r} })
	constraint("l2_ball", "constraint ‖B‖₂ ≤ radius (Frobenius) for each regularized block B",
		func(r float64) core.Regularizer { return L2Ball{Radius: r} })

	registry.Define(registry.Mirror, "euclidean", "h = ½‖w‖²₂; the composite map is the proximal operator", struct{}{},
		func(struct{}) (core.Mirror, error) { return core.Euclidean{}, nil })
}
