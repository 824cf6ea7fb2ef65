// Package availability registers the client availability models (kind
// "availability", fedlab.availability.* in Lua): sampled clients that drop
// out (independently, or following a Markov on/off chain per client) and
// stragglers that complete only part of their local steps (a fixed
// fraction, a uniform fraction, or a heavy-tailed slowdown). The engine
// draws from a random stream of its own per (seed, run, round, client)
// (see core/effects.go).
package availability

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// FixedFractionParams are the parameters of the availability
// "fixed_fraction".
type FixedFractionParams struct {
	Fraction float64 `param:"fraction,required" min:"0" max:"1" doc:"fraction f of the local steps completed, in (0, 1]"`
}

// UniformFractionParams are the parameters of the availability
// "uniform_fraction".
type UniformFractionParams struct {
	Min float64 `param:"min,required" min:"0" max:"1" doc:"smallest fraction of the local steps, in [0, 1]"`
}

func init() {
	registry.Define(registry.Availability, "dropout", "each sampled client independently fails to reply with probability p",
		Dropout{}, func(d Dropout) (core.Availability, error) {
			if d.P >= 1 {
				return nil, fmt.Errorf("p must be in [0, 1) (with p = 1 no client ever replies), got %g", d.P)
			}
			return d, nil
		})
	registry.Define(registry.Availability, "markov", "every client is on or off by a two-state Markov chain over the rounds; sampled clients that are off do not reply",
		Markov{}, func(m Markov) (core.Availability, error) {
			if m.POff >= 1 || m.POn <= 0 {
				return nil, fmt.Errorf("need p_off in [0, 1) and p_on in (0, 1], got p_off = %g, p_on = %g", m.POff, m.POn)
			}
			return m, nil
		})
	registry.Define(registry.Availability, "fixed_fraction", "every sampled client completes ⌈f·K⌉ of its K local steps",
		FixedFractionParams{}, func(p FixedFractionParams) (core.Availability, error) {
			if p.Fraction <= 0 {
				return nil, fmt.Errorf("fraction must be in (0, 1], got %g", p.Fraction)
			}
			return Fraction{Min: p.Fraction, Max: p.Fraction}, nil
		})
	registry.Define(registry.Availability, "uniform_fraction", "every sampled client completes ⌈u·K⌉ of its K local steps, u uniform on [min, 1] per client and round",
		UniformFractionParams{}, func(p UniformFractionParams) (core.Availability, error) { return Fraction{Min: p.Min, Max: 1}, nil })
	registry.Define(registry.Availability, "pareto", "heavy-tailed stragglers: a client slowed down by T ~ Pareto(α, 1) completes max(1, ⌊K/T⌋) of its K steps by the deadline",
		Pareto{Alpha: 1.5}, func(p Pareto) (core.Availability, error) {
			if p.Alpha <= 0 {
				return nil, fmt.Errorf("alpha must be > 0, got %g", p.Alpha)
			}
			return p, nil
		})
}

// Dropout drops each sampled client independently with probability P.
type Dropout struct {
	P float64 `param:"p,required" min:"0" max:"1" doc:"drop probability, in [0, 1)"`
}

// Online is true with probability 1 − P.
func (d Dropout) Online(_, _ bool, rng *rand.Rand) bool { return rng.Float64() >= d.P }

// Steps is all k steps.
func (Dropout) Steps(k int, _ *rand.Rand) int { return k }

// Effects is core.Dropout.
func (Dropout) Effects() core.Effects { return core.Dropout }

// Markov is a two-state on/off chain per client: on → off with probability
// POff, off → on with probability POn; the first round draws the state
// from the stationary distribution, P(on) = POn/(POn + POff).
type Markov struct {
	POff float64 `param:"p_off,required" min:"0" max:"1" doc:"probability that an online client goes off in the next round, in [0, 1)"`
	POn  float64 `param:"p_on,required" min:"0" max:"1" doc:"probability that an offline client comes back in the next round, in (0, 1]"`
}

// Online draws the next state of the chain.
func (m Markov) Online(prev, first bool, rng *rand.Rand) bool {
	u := rng.Float64()
	switch {
	case first:
		return u < m.POn/(m.POn+m.POff)
	case prev:
		return u >= m.POff
	default:
		return u < m.POn
	}
}

// Steps is all k steps.
func (Markov) Steps(k int, _ *rand.Rand) int { return k }

// Effects is core.Dropout.
func (Markov) Effects() core.Effects { return core.Dropout }

// Fraction makes every client complete ⌈u·k⌉ (at least 1) of k steps, with
// u uniform on [Min, Max] (Min = Max: a fixed fraction, no random draw).
type Fraction struct{ Min, Max float64 }

// Online is always true.
func (Fraction) Online(_, _ bool, _ *rand.Rand) bool { return true }

// Steps draws the completed steps.
func (f Fraction) Steps(k int, rng *rand.Rand) int {
	u := f.Min
	if f.Max > f.Min {
		u += (f.Max - f.Min) * rng.Float64()
	}
	// the tolerance keeps ⌈0.3·10⌉ = 3 despite rounding (0.3·10 = 3.0000000000000004)
	return min(k, max(1, int(math.Ceil(u*float64(k)-1e-9))))
}

// Effects is core.UnequalSteps.
func (Fraction) Effects() core.Effects { return core.UnequalSteps }

// Pareto slows each client down by T = U^(−1/α) ≥ 1 (Pareto with scale 1);
// it completes max(1, ⌊k/T⌋) steps.
type Pareto struct {
	Alpha float64 `param:"alpha" min:"0" doc:"tail index α > 0 (smaller: heavier tail)"`
}

// Online is always true.
func (Pareto) Online(_, _ bool, _ *rand.Rand) bool { return true }

// Steps draws the completed steps.
func (p Pareto) Steps(k int, rng *rand.Rand) int {
	u := 1 - rng.Float64() // in (0, 1]
	t := math.Pow(u, -1/p.Alpha)
	return min(k, max(1, int(float64(k)/t)))
}

// Effects is core.UnequalSteps.
func (Pareto) Effects() core.Effects { return core.UnequalSteps }
