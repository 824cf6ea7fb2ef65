// Package privacy registers client-level differential privacy (kind
// "privacy", fedlab.privacy.* in Lua) and the metric epsilon.
//
// The mechanism is DP-FedAvg's (McMahan et al., "Learning Differentially
// Private Recurrent Language Models", ICLR 2018): each client's update is
// clipped to ℓ2 norm C, the server averages the n replies and adds
// N(0, (σC/n)²) per coordinate. The accountant is the Rényi-DP analysis of
// the sampled Gaussian mechanism (Mironov, Talwar & Zhang, "Rényi
// Differential Privacy of the Sampled Gaussian Mechanism", 2019) at integer
// orders, composed over the rounds and converted to (ε, δ) with Mironov
// (2017), Proposition 3. docs/realism.md states the guarantee and its
// assumptions.
package privacy

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/metrics"
	"github.com/fedlab/fedlab/registry"
)

func init() {
	registry.Define(registry.Privacy, "gaussian", "client-level DP: clip each client's update to norm clip, server adds N(0, (noise·clip/n)²) to the mean of n replies; RDP accountant",
		Gaussian{Delta: 1e-5}, func(g Gaussian) (core.Privacy, error) {
			switch {
			case g.C <= 0:
				return nil, fmt.Errorf("clip must be > 0, got %g", g.C)
			case g.Delta <= 0 || g.Delta >= 1:
				return nil, fmt.Errorf("delta must be in (0, 1), got %g", g.Delta)
			case !(g.C*g.Sigma*g.C*g.Sigma <= math.MaxFloat64) || !(g.C*g.Local*g.C*g.Local <= math.MaxFloat64):
				// math.huge is the largest float, not ∞: the noise variance (σ·C)² would overflow to +Inf
				return nil, fmt.Errorf("clip = %g with noise = %g and local_noise = %g: the noise variance (noise·clip)² overflows; "+
					"give a clipping norm and noise multipliers of the size of the updates (e.g. clip = 1, noise = 1)", g.C, g.Sigma, g.Local)
			}
			return g, nil
		})
	registry.Define(registry.Metric, "epsilon", "ε of the (ε, δ) client-level DP guarantee spent so far (NaN without fedlab.privacy)",
		struct{}{}, func(struct{}) (core.Metric, error) {
			return metrics.Func{Label: "epsilon", F: func(e *core.Eval) float64 { return e.Epsilon }}, nil
		})
}

// Gaussian is the client-level Gaussian mechanism with clipping norm C,
// server noise multiplier Sigma, local noise multiplier Local and the δ of
// the reported guarantee.
type Gaussian struct {
	C     float64 `param:"clip,required" min:"0" doc:"ℓ2 clipping norm C > 0 of each client's update"`
	Sigma float64 `param:"noise,required" min:"0" doc:"noise multiplier σ ≥ 0 of the server's Gaussian noise (0: no guarantee, ε = +Inf)"`
	Delta float64 `param:"delta" min:"0" max:"1" doc:"δ of the reported (ε, δ) guarantee, in (0, 1)"`
	Local float64 `param:"local_noise" min:"0" doc:"multiplier σ_l ≥ 0 of N(0, (σ_l·clip)²) each client adds to its clipped update (not counted in ε)"`
}

// Clip is C.
func (g Gaussian) Clip() float64 { return g.C }

// Noise is σ.
func (g Gaussian) Noise() float64 { return g.Sigma }

// LocalNoise is σ_l.
func (g Gaussian) LocalNoise() float64 { return g.Local }

// Epsilon is ε at δ after the given rounds at client sampling rate q.
func (g Gaussian) Epsilon(q float64, rounds int) float64 {
	eps, _ := Epsilon(q, g.Sigma, rounds, g.Delta)
	return eps
}

// MaxOrder is the largest Rényi order the accountant tries (orders 2…MaxOrder).
const MaxOrder = 256

// RDP is the Rényi-DP ε of one step of the sampled Gaussian mechanism
// (sampling rate q, noise multiplier sigma) at integer order alpha ≥ 2:
// log(A_α)/(α−1) with A_α = Σ_k C(α,k) (1−q)^(α−k) q^k exp((k²−k)/(2σ²))
// (Mironov, Talwar & Zhang 2019, Section 3.3), summed in log space.
func RDP(q, sigma float64, alpha int) float64 {
	switch {
	case q == 0:
		return 0
	case sigma == 0:
		return math.Inf(1)
	case q == 1:
		return float64(alpha) / (2 * sigma * sigma)
	}
	a := float64(alpha)
	lq, l1q := math.Log(q), math.Log1p(-q)
	terms := make([]float64, alpha+1)
	hi := math.Inf(-1)
	for k := 0; k <= alpha; k++ {
		kf := float64(k)
		t := logBinomial(alpha, k) + (a-kf)*l1q + kf*lq + (kf*kf-kf)/(2*sigma*sigma)
		terms[k] = t
		hi = math.Max(hi, t)
	}
	sum := 0.0
	for _, t := range terms {
		sum += math.Exp(t - hi)
	}
	return (hi + math.Log(sum)) / (a - 1)
}

// Epsilon converts rounds-fold composition of the sampled Gaussian
// mechanism to (ε, δ): ε = min over α of T·RDP(α) + log(1/δ)/(α−1)
// (Mironov 2017, Proposition 3), returning ε and the best order.
func Epsilon(q, sigma float64, rounds int, delta float64) (float64, int) {
	best, order := math.Inf(1), 0
	if rounds == 0 || q == 0 {
		return 0, 0
	}
	for a := 2; a <= MaxOrder; a++ {
		e := float64(rounds)*RDP(q, sigma, a) + math.Log(1/delta)/float64(a-1)
		if e < best {
			best, order = e, a
		}
	}
	return best, order
}

func logBinomial(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
