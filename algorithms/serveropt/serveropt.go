// Package serveropt holds fedlab's server optimizers (registry kind
// "optimizer", Lua fedlab.opt.*), in the spirit of optax: a FedAvg-style
// algorithm hands the round's pseudo-gradient Δ (the weighted mean of the
// clients' model differences, a descent direction) to its server
// optimizer, which moves the server point by η_s·lr·u(Δ), η_s being the
// algorithm's server learning-rate schedule and lr the optimizer's own
// constant rate. With the default sgd{lr = 1}, the step is FedAvg's η_s·Δ
// bit for bit.
//
// Adam, Yogi and AdaGrad follow Algorithm 2 of Reddi, Charles, Zaheer,
// Garrett, Rush, Konečný, Kumar & McMahan, "Adaptive Federated
// Optimization", ICLR 2021: without bias correction, m₋₁ = 0 and
// v₋₁ = τ² (the paper requires v₋₁ ≥ τ²; τ² is its smallest value), so
// the first step is not the sign-like step m/√v that v₋₁ = 0 would give.
package serveropt

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

func init() {
	registry.Define(registry.Optimizer, "sgd",
		"server SGD: x ← x + η_s·lr·Δ (FedAvg's server step)",
		SGD{LR: 1}, func(p SGD) (core.ServerOptimizer, error) { return p, nil })
	registry.Define(registry.Optimizer, "momentum",
		"heavy-ball server momentum (FedAvgM, Hsu et al. 2019): m ← βm + Δ, x ← x + η_s·lr·m",
		Momentum{LR: 1, Beta: 0.9}, func(p Momentum) (core.ServerOptimizer, error) { return p, nil })
	adaptive := Adaptive{LR: 0.01, Beta1: 0.9, Beta2: 0.99, Tau: 1e-3}
	registry.Define(registry.Optimizer, "adam",
		"server Adam (FedAdam, Reddi et al. 2021 Alg. 2): v ← β₂v + (1−β₂)Δ², x ← x + η_s·lr·m/(√v + τ), v₋₁ = τ²",
		Adam{adaptive}, func(p Adam) (core.ServerOptimizer, error) { return p, nil })
	registry.Define(registry.Optimizer, "yogi",
		"server Yogi (FedYogi, Reddi et al. 2021 Alg. 2): v ← v − (1−β₂)Δ²·sign(v − Δ²), v₋₁ = τ²",
		Yogi{adaptive}, func(p Yogi) (core.ServerOptimizer, error) { return p, nil })
	registry.Define(registry.Optimizer, "adagrad",
		"server AdaGrad (FedAdagrad, Reddi et al. 2021 Alg. 2): v ← v + Δ², v₋₁ = τ²",
		AdaGrad{LR: 0.01, Beta1: 0.9, Tau: 1e-3},
		func(p AdaGrad) (core.ServerOptimizer, error) { return p, nil })
}

// SGD is server SGD: x ← x + η_s·lr·Δ.
type SGD struct {
	LR float64 `param:"lr" min:"0" doc:"learning rate lr, multiplied by the algorithm's η_s"`
}

// Start returns the (stateless) stepper.
func (o SGD) Start(int) core.ServerStepper { return o }

// Step applies x ← x + (scale·lr)·Δ.
func (o SGD) Step(x, delta []float64, scale float64) { floats.AddScaled(x, scale*o.LR, delta) }

// Rate is lr.
func (o SGD) Rate() float64 { return o.LR }

// State: server SGD keeps no state (core.Stateful).
func (o SGD) State(*core.State) {}

// Momentum is heavy-ball server momentum (FedAvgM of Hsu, Qi & Brown,
// "Measuring the Effects of Non-Identical Data Distribution", 2019):
// m ← βm + Δ, x ← x + η_s·lr·m, with m₋₁ = 0.
type Momentum struct {
	LR   float64 `param:"lr" min:"0" doc:"learning rate lr, multiplied by the algorithm's η_s"`
	Beta float64 `param:"beta" min:"0" max:"1" doc:"momentum coefficient β (weight of the old velocity)"`
}

// Start returns a zero velocity.
func (o Momentum) Start(dim int) core.ServerStepper {
	return &momentumState{Momentum: o, m: make([]float64, dim)}
}

// Rate is lr.
func (o Momentum) Rate() float64 { return o.LR }

type momentumState struct {
	Momentum
	m []float64
}

// State declares the velocity m (core.Stateful).
func (s *momentumState) State(st *core.State) { st.Floats("momentum velocity", s.m) }

func (s *momentumState) Step(x, delta []float64, scale float64) {
	floats.Scale(s.Beta, s.m)
	floats.Add(s.m, delta)
	floats.AddScaled(x, scale*s.LR, s.m)
}

// Adaptive holds the parameters shared by Adam and Yogi.
type Adaptive struct {
	LR    float64 `param:"lr" min:"0" doc:"learning rate η of x += η·m/(√v + τ), multiplied by the algorithm's η_s"`
	Beta1 float64 `param:"beta1" min:"0" max:"1" doc:"first-moment coefficient β₁ (weight of the old m)"`
	Beta2 float64 `param:"beta2" min:"0" max:"1" doc:"second-moment coefficient β₂ (weight of the old v)"`
	Tau   float64 `param:"tau" min:"0" doc:"adaptivity τ of x += η·m/(√v + τ); v starts at τ²"`
}

// Adam is FedAdam's server step: v ← β₂v + (1−β₂)Δ².
type Adam struct{ Adaptive }

// Start returns m₋₁ = 0, v₋₁ = τ².
func (o Adam) Start(dim int) core.ServerStepper {
	p := o.Adaptive
	return newMoments(dim, p.LR, p.Beta1, p.Tau, func(v, d2 float64) float64 { return p.Beta2*v + (1-p.Beta2)*d2 })
}

// Yogi is FedYogi's server step: v ← v − (1−β₂)Δ²·sign(v − Δ²).
type Yogi struct{ Adaptive }

// Start returns m₋₁ = 0, v₋₁ = τ².
func (o Yogi) Start(dim int) core.ServerStepper {
	p := o.Adaptive
	return newMoments(dim, p.LR, p.Beta1, p.Tau, func(v, d2 float64) float64 { return v - (1-p.Beta2)*d2*sign(v-d2) })
}

// AdaGrad is FedAdagrad's server step: v ← v + Δ² (no β₂).
type AdaGrad struct {
	LR    float64 `param:"lr" min:"0" doc:"learning rate η of x += η·m/(√v + τ), multiplied by the algorithm's η_s"`
	Beta1 float64 `param:"beta1" min:"0" max:"1" doc:"first-moment coefficient β₁ (weight of the old m)"`
	Tau   float64 `param:"tau" min:"0" doc:"adaptivity τ of x += η·m/(√v + τ); v starts at τ²"`
}

// Start returns m₋₁ = 0, v₋₁ = τ².
func (o AdaGrad) Start(dim int) core.ServerStepper {
	return newMoments(dim, o.LR, o.Beta1, o.Tau, func(v, d2 float64) float64 { return v + d2 })
}

// moments is the state of Reddi et al.'s Algorithm 2: m ← β₁m + (1−β₁)Δ,
// v ← second(v, Δ²), x ← x + η_s·lr·m/(√v + τ).
type moments struct {
	lr, beta1, tau float64
	second         func(v, d2 float64) float64
	m, v           []float64
}

func newMoments(dim int, lr, beta1, tau float64, second func(v, d2 float64) float64) *moments {
	s := &moments{lr: lr, beta1: beta1, tau: tau, second: second, m: make([]float64, dim), v: make([]float64, dim)}
	for i := range s.v {
		s.v[i] = tau * tau
	}
	return s
}

// State declares the moments m and v (core.Stateful).
func (s *moments) State(st *core.State) {
	st.Floats("first moment", s.m)
	st.Floats("second moment", s.v)
}

func (s *moments) Step(x, delta []float64, scale float64) {
	eta := scale * s.lr
	for i, d := range delta {
		s.m[i] = s.beta1*s.m[i] + (1-s.beta1)*d
		s.v[i] = s.second(s.v[i], d*d)
		x[i] += eta * s.m[i] / (math.Sqrt(s.v[i]) + s.tau)
	}
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
