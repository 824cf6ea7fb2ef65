package algorithms

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules"
)

// estimator is a gradient-estimator rule U of the FedDA paper, chosen when
// the algorithm is built.
type estimator int

const (
	// estimatorMVR is eq. 5 (STORM / momentum-based variance reduction).
	estimatorMVR estimator = iota
	// estimatorMomentum is eq. 6 (an exponential moving average of gradients).
	estimatorMomentum
	// estimatorSGD is the plain stochastic gradient.
	estimatorSGD
)

// estimatorNames are the parameter values of the estimators.
var estimatorNames = map[string]estimator{"mvr": estimatorMVR, "momentum": estimatorMomentum, "sgd": estimatorSGD}

// feddaVariant is a named instantiation FedDA-i-j of the paper (Sec. 8):
// i picks the estimator (1 = MVR, 2 = momentum), j the adaptive matrix
// (1 = diagonal eq. 7, 2 = scalar eq. 8). Defaults are the paper's CIFAR-10
// hyper-parameters.
type feddaVariant struct {
	name, doc string
	estimator estimator
	precond   precondRule
	rate      stepRule
	c, alpha  float64
}

var feddaVariants = []feddaVariant{
	{name: "fedda_mvr", doc: "FedDA-MVR = FedDA-1-1: MVR estimator, diagonal adaptive matrix from the averaged dual state (eq. 5 + eq. 7)",
		estimator: estimatorMVR, precond: precondDiag, rate: stepRule{LR: 0.02, W: 1e5, Power: 1.0 / 3}, c: 1e6},
	{name: "fedda_1_2", doc: "FedDA-1-2: MVR estimator, scalar norm-based adaptive matrix (eq. 5 + eq. 8)",
		estimator: estimatorMVR, precond: precondNorm, rate: stepRule{LR: 1, W: 5000, Power: 1.0 / 3}, c: 100},
	{name: "fedda_2_1", doc: "FedDA-2-1: momentum estimator, diagonal adaptive matrix (eq. 6 + eq. 7)",
		estimator: estimatorMomentum, precond: precondDiag, rate: stepRule{LR: 0.001}, alpha: 0.9},
	{name: "fedda_2_2", doc: "FedDA-2-2: momentum estimator, scalar norm-based adaptive matrix (eq. 6 + eq. 8)",
		estimator: estimatorMomentum, precond: precondNorm, rate: stepRule{LR: 0.01}, alpha: 0.9},
}

// momentumWeight is the coefficient of the momentum estimator.
type momentumWeight struct {
	Alpha float64 `param:"alpha" min:"0" max:"1" doc:"momentum coefficient α of eq. 6 (see convention)"`
}

// feddaCommon are the parameters of every FedDA instance.
type feddaCommon struct {
	Beta           float64 `param:"beta" min:"0" max:"1" doc:"EMA coefficient β of the adaptive-matrix state μ (see convention)"`
	Eps            float64 `param:"eps" min:"0" doc:"ε of H = Diag(√μ + ε) or (μ + ε)I, > 0 (the paper's \"τ\"); H₀ = εI"`
	MirrorScale    float64 `param:"mirror_scale" min:"0" doc:"λ of the mirror map ½λ⁻¹(x − x_τ)ᵀH(x − x_τ), > 0 (unreported in the paper; 1)"`
	Convention     string  `param:"convention" choices:"adam|paper" doc:"adam: β and α weight the old state (μ ← βμ + (1−β)new); paper: they weight the new term, as eqs. 6–8 are printed"`
	BiasCorrection bool    `param:"bias_correction" doc:"divide μ by 1 − (old-state weight)^rounds as Adam does (the paper has none)"`
	initBatch
}

var defaultFedDACommon = feddaCommon{Beta: 0.999, Eps: 0.01, MirrorScale: 1, Convention: "adam"}

// FedDAParams are the parameters of the generic fedda: the estimator, the
// H rule and every coefficient.
type FedDAParams struct {
	Estimator string `param:"estimator" choices:"mvr|momentum|sgd" doc:"gradient estimator U: mvr (eq. 5, two gradients on one minibatch), momentum (eq. 6) or sgd"`
	Precond   string `param:"precond" choices:"diag|norm|identity" doc:"adaptive matrix V: diag (eq. 7), norm (eq. 8) or identity (H = I)"`
	stepRule
	mvrWeight
	momentumWeight
	feddaCommon
}

// feddaMVRParams are the parameters of a named variant with the MVR estimator.
type feddaMVRParams struct {
	stepRule
	mvrWeight
	feddaCommon
}

// feddaMomentumParams are the parameters of a named variant with the momentum estimator.
type feddaMomentumParams struct {
	stepRule
	momentumWeight
	feddaCommon
}

// check validates the coefficients every FedDA instance shares.
func (p feddaCommon) check(precond precondRule) error {
	switch {
	case p.Eps <= 0 && precond != precondIdentity:
		return fmt.Errorf("parameter \"eps\" must be > 0 (H₀ = εI)")
	case p.MirrorScale <= 0:
		return fmt.Errorf("parameter \"mirror_scale\" must be > 0")
	}
	return nil
}

// Check validates the step-size rule and the coefficients.
func (p FedDAParams) Check() error {
	return errors.Join(p.stepRule.check(), p.feddaCommon.check(precondNames[p.Precond]))
}

// Check validates the step-size rule and the coefficients (H is diag or norm).
func (p feddaMVRParams) Check() error {
	return errors.Join(p.stepRule.check(), p.feddaCommon.check(precondDiag))
}

// Check validates the step-size rule and the coefficients (H is diag or norm).
func (p feddaMomentumParams) Check() error {
	return errors.Join(p.stepRule.check(), p.feddaCommon.check(precondDiag))
}

func init() {
	registry.Define(registry.Algorithm, "fedda",
		"FedDA framework: restarted dual averaging with a server-side adaptive matrix H frozen during local steps; estimator and H rule as parameters",
		FedDAParams{Estimator: "mvr", Precond: "diag", stepRule: stepRule{LR: 0.02, W: 1e5, Power: 1.0 / 3},
			mvrWeight: mvrWeight{C: 1e6}, momentumWeight: momentumWeight{Alpha: 0.9}, feddaCommon: defaultFedDACommon},
		func(p FedDAParams) (core.Algorithm, error) {
			return newFedDA(estimatorNames[p.Estimator], precondNames[p.Precond], p.stepRule, p.C, p.Alpha, p.feddaCommon), nil
		})
	defineMVRVariant[FedDAMVRParams](feddaVariants[0])
	defineMVRVariant[FedDA12Params](feddaVariants[1])
	defineMomentumVariant[FedDA21Params](feddaVariants[2])
	defineMomentumVariant[FedDA22Params](feddaVariants[3])
}

// FedDAMVRParams are the parameters of the algorithm "fedda_mvr".
type FedDAMVRParams struct{ feddaMVRParams }

// FedDA12Params are the parameters of the algorithm "fedda_1_2".
type FedDA12Params struct{ feddaMVRParams }

// FedDA21Params are the parameters of the algorithm "fedda_2_1".
type FedDA21Params struct{ feddaMomentumParams }

// FedDA22Params are the parameters of the algorithm "fedda_2_2".
type FedDA22Params struct{ feddaMomentumParams }

// defineMVRVariant registers the MVR variant v with the params type P.
func defineMVRVariant[P ~struct{ feddaMVRParams }](v feddaVariant) {
	if v.estimator != estimatorMVR {
		panic("algorithms: " + v.name + " is not an MVR variant")
	}
	registry.Define(registry.Algorithm, v.name, v.doc,
		P{feddaMVRParams{stepRule: v.rate, mvrWeight: mvrWeight{C: v.c}, feddaCommon: defaultFedDACommon}},
		func(p P) (core.Algorithm, error) {
			q := struct{ feddaMVRParams }(p).feddaMVRParams
			return newFedDA(v.estimator, v.precond, q.stepRule, q.C, 0, q.feddaCommon), nil
		})
}

// defineMomentumVariant registers the momentum variant v with the params
// type P.
func defineMomentumVariant[P ~struct{ feddaMomentumParams }](v feddaVariant) {
	if v.estimator != estimatorMomentum {
		panic("algorithms: " + v.name + " is not a momentum variant")
	}
	registry.Define(registry.Algorithm, v.name, v.doc,
		P{feddaMomentumParams{stepRule: v.rate, momentumWeight: momentumWeight{Alpha: v.alpha}, feddaCommon: defaultFedDACommon}},
		func(p P) (core.Algorithm, error) {
			q := struct{ feddaMomentumParams }(p).feddaMomentumParams
			return newFedDA(v.estimator, v.precond, q.stepRule, 0, q.Alpha, q.feddaCommon), nil
		})
}

// newFedDA builds FedDA with the given estimator, H rule and coefficients.
func newFedDA(est estimator, precond precondRule, rule stepRule, c, alpha float64, p feddaCommon) *FedDA {
	f := &FedDA{est: est, hRule: precond, rate: rule.poly(), c: c, nuKeep: alpha,
		muKeep: p.Beta, eps: p.Eps, lambda: p.MirrorScale,
		biasCorrection: p.BiasCorrection, initBatch: p.InitBatch}
	if p.Convention == "paper" {
		f.muKeep, f.nuKeep = 1-f.muKeep, 1-f.nuKeep
	}
	return f
}

// FedDA is the FedDA framework of "FedDA: Faster Framework of Local Adaptive
// Gradient Methods via Restarted Dual Averaging" (Algorithms 1–2; published
// as Li, Huang & Huang, "FedDA: Faster Adaptive Gradient Methods for
// Federated Constrained Optimization", ICLR 2024).
//
// Round τ, with the server's x_τ, estimator ν_τ and adaptive matrix H_τ sent
// to the sampled clients. Each client restarts its dual state and runs
// I = c.Steps steps, i = 0..I−1, with the global step counter t = t_τ + i:
//
//	z₀ = 0, x₀ = x_τ, ν₀ = ν_τ
//	z_{i+1} = z_i − η_t ν_i
//	x_{i+1} = argmin_x −⟨z_{i+1}, x⟩ + e_{i+1}ψ(x) + (1/2λ)(x − x_τ)ᵀH_τ(x − x_τ),  e_{i+1} = Σ_{l≤i} η_l
//	ν_{i+1} = U(ν_i, x_{i+1}, x_i)
//
// (unconstrained and ψ = 0: x_{i+1} = x_τ + λH_τ⁻¹z_{i+1} = x_i − λη_tH_τ⁻¹ν_i.)
// The client sends z_I and ν_I. The server averages them (weights of the
// engine), sets x_{τ+1} by the same argmin with z̄ and the OLD H_τ, ν_{τ+1} =
// ν̄, then updates H from z̄ (so H lags one round and H₀ = εI).
//
// Estimators U (parameter estimator):
//
//	mvr:       ν ← ∇f(x_{i+1}; B) + (1 − α_{t+1})(ν − ∇f(x_i; B)),  α_{t+1} = min(1, cη_t²),
//	           B = c.NextBatch() evaluated at both points (c.GradientOn);
//	momentum:  ν ← αν + (1−α)∇f(x_{i+1}; B)  (convention "adam"; "paper": ν ← α∇f + (1−α)ν);
//	sgd:       ν_i = ∇f(x_i; B_i), fresh at every step including i = 0, so
//	           ν is neither sent nor averaged.
//
// Adaptive matrices (parameter precond), from the averaged z̄ and the round's last
// step size η_last (eqs. 7–8, with the printed eq. 7's μ_{τ+1} on the right
// read as μ_τ):
//
//	diag:      μ ← βμ + (1−β)(z̄/η_last)²,   H = Diag(√μ + ε)
//	norm:      μ ← βμ + (1−β)‖z̄‖/η_last,    H = (μ + ε)I
//	identity:  H = I
//
// Step sizes η_t = lr/(w + t)^power, t counting local steps over the run
// (the paper's MVR runs: power 1/3; its momentum runs: constant lr).
//
// Choices where the paper is ambiguous (docs/reproductions.md):
//   - β and α: the printed eqs. 6–8 weight the NEW term by β (α), which with
//     the reported β = 0.999, α = 0.9 makes μ and ν nearly memoryless; the
//     default convention "adam" weights the old state, as eq. 4 and the
//     reported values suggest. convention = "paper" gives the literal form.
//   - no bias correction by default, as printed (option bias_correction).
//   - the hyper-parameter lists' "τ" is ε.
//   - λ is never reported: mirror_scale = 1.
//   - ψ (the "ℓ1 constraint") is a penalty in the composite objective, with
//     weight e = Σ η over the round in the argmin, as dual averaging
//     prescribes for z = −Σ ην; with diagonal H the ℓ1 prox has the
//     per-coordinate threshold λ·e·λ_ψ/h_j.
//   - ν₀ averages gradients at x₀ over all clients (init_batch).
//   - the problem's mirror map must be Euclidean: FedDA's mirror map is its
//     own ½λ⁻¹‖x − x_τ‖²_H.
//
// Messages: down x_τ, ν_τ (not for sgd) and diag(H) (a scalar for norm);
// up z_I, ν_I (not for sgd) and three scalars (Σ η, η_last, I).
type FedDA struct {
	est   estimator   // the gradient-estimator rule U
	hRule precondRule // the adaptive-matrix rule V

	rate           schedules.Poly
	c              float64 // MVR: α = min(1, cη²)
	nuKeep, muKeep float64 // weights of the old ν (momentum) and old μ, after the convention
	eps, lambda    float64
	biasCorrection bool
	initBatch      int

	x, nu []float64
	h     *adaptive
	diag  core.DiagonalProx // the H-norm prox of ψ for a diagonal H
	t     int               // local steps taken so far (the step counter of η_t)
}

// Init sets x₀ = w₀, ν₀ (see initialEstimate) and H₀.
func (a *FedDA) Init(env *core.Env) error {
	p := env.Problem
	if _, ok := p.Mirror.(core.Euclidean); !ok {
		return fmt.Errorf("fedda uses its own mirror map ½λ⁻¹‖x − x_τ‖²_H; the problem's mirror map must be euclidean")
	}
	if a.hRule == precondDiag {
		d, ok := p.Penalty.Reg.(core.DiagonalProx)
		if !ok {
			return fmt.Errorf("fedda with precond = \"diag\" needs a regularizer with a prox in a diagonal metric (none, l1, l2sq, elastic_net); use precond = \"norm\" or \"identity\" for %q", p.Penalty.Name)
		}
		a.diag = d
	}
	a.x = append([]float64(nil), env.W0...)
	if a.est != estimatorSGD {
		a.nu = initialEstimate(env, a.initBatch)
	}
	a.h = newAdaptive(a.hRule, a.muKeep, a.eps, a.biasCorrection, len(a.x))
	a.t = 0
	return nil
}

// Shape: down x, ν, diag(H) or scalar H; up z, ν and (Σ η, η_last, steps).
func (a *FedDA) Shape() (down, up core.MessageShape) {
	down, up = core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1, Scalars: 3}
	if a.est != estimatorSGD {
		down.Vecs++
		up.Vecs++
	}
	switch a.hRule {
	case precondDiag:
		down.Vecs++
	case precondNorm:
		down.Scalars = 1
	}
	return down, up
}

// Broadcast sends x_τ, ν_τ and H_τ.
func (a *FedDA) Broadcast(_ *core.Round, down *core.Message) {
	copy(down.Vecs[0], a.x)
	if a.nu != nil {
		copy(down.Vecs[1], a.nu)
	}
	switch a.hRule {
	case precondDiag:
		copy(down.Vecs[len(down.Vecs)-1], a.h.h)
	case precondNorm:
		down.Scalars[0] = a.h.hs
	}
}

// hOf returns H from a down message: the diagonal, or nil and the scalar.
func (a *FedDA) hOf(down *core.Message) ([]float64, float64) {
	switch a.hRule {
	case precondDiag:
		return down.Vecs[len(down.Vecs)-1], 0
	case precondNorm:
		return nil, down.Scalars[0]
	}
	return nil, 1
}

// ClientUpdate runs I restarted dual-averaging steps (Algorithm 2).
func (a *FedDA) ClientUpdate(rd *core.Round, c *core.Client, down, up *core.Message) {
	x0 := down.Vecs[0]
	h, hs := a.hOf(down)
	z, x, xn, nu, g, gOld := up.Vecs[0], c.Vec(0), c.Vec(1), c.Vec(2), c.Vec(3), c.Vec(4)
	if a.nu != nil {
		nu = up.Vecs[1]
		copy(nu, down.Vecs[1])
	} else {
		c.Gradient(x0, nu)
	}
	clear(z)
	copy(x, x0)
	e, eta := 0.0, 0.0
	for i := range c.Steps {
		eta = a.rate.At(a.t + i)
		floats.AddScaled(z, -eta, nu)
		e += eta
		feddaPrimal(xn, x0, z, h, hs, a.lambda, e, rd.Psi, a.diag)
		switch a.est {
		case estimatorMVR:
			batch := c.NextBatch()
			c.GradientOn(batch, xn, g)
			c.GradientOn(batch, x, gOld)
			mvrUpdate(nu, g, gOld, mvrAlpha(a.c, eta))
		case estimatorMomentum:
			c.Gradient(xn, g)
			floats.Scale(a.nuKeep, nu)
			floats.AddScaled(nu, 1-a.nuKeep, g)
		case estimatorSGD:
			if i < c.Steps-1 {
				c.Gradient(xn, nu)
			}
		}
		x, xn = xn, x
	}
	up.Scalars[0], up.Scalars[1], up.Scalars[2] = e, eta, float64(c.Steps)
}

// Aggregate sets x_{τ+1} from the averaged dual state under H_τ, averages
// ν, then updates H and the step counter.
func (a *FedDA) Aggregate(rd *core.Round, mean *core.Message, _ []*core.Message) {
	h, hs := a.h.h, a.h.hs
	if a.hRule != precondDiag {
		h = nil
	}
	z := mean.Vecs[0]
	feddaPrimal(a.x, a.x, z, h, hs, a.lambda, mean.Scalars[0], rd.Psi, a.diag)
	if a.nu != nil {
		copy(a.nu, mean.Vecs[1])
	}
	if eta := mean.Scalars[1]; eta > 0 {
		a.h.update(z, eta)
	}
	a.t += int(math.Round(mean.Scalars[2]))
}

// Model is the server model x_τ.
func (a *FedDA) Model(dst []float64) { copy(dst, a.x) }

// State declares the server model, ν, the preconditioner and the step
// counter (core.Stateful).
func (a *FedDA) State(st *core.State) {
	st.Floats("server model", a.x)
	st.Vector("gradient estimate", &a.nu)
	a.h.state(st)
	st.Count("local steps so far", &a.t)
}
