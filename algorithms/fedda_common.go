package algorithms

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/schedules"
)

// Pieces shared by FedDA and the momentum / variance-reduced baselines of
// the FedDA paper (STEM, MIME-MVR): the step-size rule indexed by the
// global local-step counter, the MVR (STORM) estimator update and the
// initial gradient estimate.

// stepRule is the step-size rule η_t = lr/(w + t)^power. t counts the
// local steps of the run (t = τI + i), as in STEM and the FedDA paper's MVR
// variants; power = 0 is a constant step.
type stepRule struct {
	LR    float64 `param:"lr" min:"0" doc:"step-size scale (the paper's learning rate κ): η_t = lr/(w + t)^power"`
	W     float64 `param:"w" min:"0" doc:"offset w of η_t = lr/(w + t)^power; t counts local steps over the run (must be > 0 if power > 0)"`
	Power float64 `param:"power" min:"0" doc:"decay exponent of η_t: 1/3 for the MVR methods, 0 for a constant step lr"`
}

// check refuses w = 0 with power > 0 (η_0 would be infinite).
func (p stepRule) check() error {
	if p.Power > 0 && p.W == 0 {
		return fmt.Errorf("parameter \"w\" must be > 0 when power > 0 (η_0 = lr/w^power)")
	}
	return nil
}

// poly returns the rule as the registered poly schedule, which is
// evaluated at the local-step counter t rather than at the round.
func (p stepRule) poly() schedules.Poly {
	return schedules.Poly{Scale: p.LR, Offset: p.W, Power: p.Power}
}

// mvrWeight is the MVR coefficient: α_{t+1} = min(1, c·η_t²).
type mvrWeight struct {
	C float64 `param:"c" min:"0" doc:"MVR weight α = min(1, c·η_t²) on fresh information, as in STORM/STEM"`
}

// initBatch sets the sample size of the initial estimate ν₀.
type initBatch struct {
	InitBatch int `param:"init_batch" min:"0" doc:"samples per client for the initial estimate ν₀ at w₀ (every client, before round 0); 0 = all local data"`
}

// mvrAlpha is the MVR weight α = min(1, c·η²).
func mvrAlpha(c, eta float64) float64 { return min(1, c*eta*eta) }

// mvrUpdate applies the STORM / MVR estimator update in place,
//
//	ν ← ∇f(x_new; B) + (1 − α)(ν − ∇f(x_old; B)),
//
// given both gradients on the same minibatch B.
func mvrUpdate(nu, gNew, gOld []float64, alpha float64) {
	for i := range nu {
		nu[i] = gNew[i] + (1-alpha)*(nu[i]-gOld[i])
	}
}

// initialEstimate returns ν₀ = Σ_m p_m ∇F_m(w₀; B_m), the gradient at the
// initial model over every client, as in line 2 of the FedDA paper's
// Algorithm 1 (and STEM's initial large batch). B_m has batch samples drawn
// from a stream of the run's seed reserved for this purpose, or is all of
// client m's data when batch is 0. It is computed on the coordinator when
// the run starts: its samples are not counted by the "samples" metric and
// its upload is not counted as communication.
func initialEstimate(env *core.Env, batch int) []float64 {
	p := env.Problem
	s := *env.Settings
	s.Batch, s.LocalEpochs, s.LocalSteps = batch, 0, 1
	nu := make([]float64, len(env.W0))
	g := make([]float64, len(env.W0))
	for m, weight := range p.ClientWeights() {
		c := core.NewClient(p, m, &s)
		c.StartRound(s.Seed, s.Run, -1)
		c.Gradient(env.W0, g)
		floats.AddScaled(nu, weight, g)
	}
	return nu
}
