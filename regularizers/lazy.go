package regularizers

import (
	"math"

	"github.com/fedlab/fedlab/core"
)

// Regularizers with closed-form repeated steps, for lazy local steps on
// sparse data (core.RepeatedProx, core.RepeatedSubgradient).
var (
	_ core.RepeatedProx        = None{}
	_ core.RepeatedProx        = L1{}
	_ core.RepeatedProx        = L2Sq{}
	_ core.RepeatedProx        = ElasticNet{}
	_ core.RepeatedSubgradient = None{}
	_ core.RepeatedSubgradient = L1{}
	_ core.RepeatedSubgradient = L2Sq{}
)

// ProxRepeat returns z: the prox of 0 is the identity.
func (None) ProxRepeat(z, _ float64, _ int) float64 { return z }

// SubgradientRepeat returns z: the subgradient of 0 is 0.
func (None) SubgradientRepeat(z, _ float64, _ int) float64 { return z }

// ProxRepeat returns soft(z, k·t): consecutive soft thresholds compose
// into one with the summed threshold.
func (L1) ProxRepeat(z, t float64, k int) float64 { return soft(z, float64(k)*t) }

// SubgradientRepeat returns z after k steps z ← z − t·sign(z): the
// iterate moves towards 0 by t per step until |z| < t, then alternates
// between r·sign(z) and (r − t)·sign(z), r = |z| − m·t with m = ⌊|z|/t⌋
// (it stays at 0 if it lands there).
func (L1) SubgradientRepeat(z, t float64, k int) float64 {
	a := math.Abs(z)
	if k == 0 || t <= 0 || a == 0 {
		return z
	}
	s := sign(z)
	if a >= float64(k)*t {
		return z - float64(k)*t*s
	}
	m := math.Floor(a / t)
	r := a - m*t
	if r == 0 || (k-int(m))%2 == 0 {
		return s * r
	}
	return s * (r - t)
}

// ProxRepeat returns z/(1+2t)ᵏ.
func (L2Sq) ProxRepeat(z, t float64, k int) float64 { return z * math.Pow(1/(1+2*t), float64(k)) }

// SubgradientRepeat returns z·(1−2t)ᵏ (gradient steps on ‖z‖²).
func (L2Sq) SubgradientRepeat(z, t float64, k int) float64 { return z * math.Pow(1-2*t, float64(k)) }

// ProxRepeat composes p(x) = f·soft(x, a), a = tα, f = 1/(1+t(1−α)), k
// times: since soft(f·x, a) = f·soft(x, a/f) for f > 0,
// pᵏ(x) = fᵏ·soft(x, a·Σ_{i<k} f⁻ⁱ).
func (e ElasticNet) ProxRepeat(z, t float64, k int) float64 {
	a, f := t*e.L1Ratio, 1/(1+t*(1-e.L1Ratio))
	if k == 0 {
		return z
	}
	sum := float64(k)
	if f < 1 {
		sum = (math.Pow(f, -float64(k)) - 1) / (1/f - 1)
	}
	return math.Pow(f, float64(k)) * soft(z, a*sum)
}
