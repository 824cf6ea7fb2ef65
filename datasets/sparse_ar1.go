package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// The synthetic problems of Bao, Crawshaw, Luo & Liu, "Fast Composite
// Optimization and Statistical Recovery in Federated Learning" (ICML 2022),
// Sec. 4 and Examples 3.1–3.2.

// regressionCommon are the parameters Bao et al.'s two generators share.
type regressionCommon struct {
	Clients     int     `param:"clients" min:"1" doc:"number of clients K"`
	Samples     int     `param:"samples" min:"1" doc:"training samples n_k per client"`
	TestSamples int     `param:"test_samples" min:"0" doc:"test samples per client, from the client's distribution (0 = no test set)"`
	Shift       float64 `param:"shift" min:"0" doc:"standard deviation of the entries of each client's mean shift (0 = iid clients)"`
	Noise       float64 `param:"noise" min:"0" doc:"standard deviation of the label noise ε"`
	Seed        int     `param:"seed" min:"0" doc:"random seed (same parameters and seed give bit-identical data)"`
}

// SparseAR1Params are the sparse regression generator's parameters.
type SparseAR1Params struct {
	Dim     int `param:"dim" min:"1" doc:"dimension p"`
	Support int `param:"support" min:"0" doc:"sparsity s: w* = (1_s, 0_{p−s})"`
	regressionCommon
	Rho float64 `param:"rho" min:"0" max:"0.999" doc:"AR(1) correlation: the within-client covariance is Σ_ij = rho^|i−j|"`
}

// LowRankShiftParams are the trace regression generator's parameters.
type LowRankShiftParams struct {
	Size int `param:"size" min:"1" doc:"matrix side: X and W are size×size, flattened row-major"`
	Rank int `param:"rank" min:"0" doc:"rank r*: W* = diag(1_r, 0)"`
	regressionCommon
}

func init() {
	common := regressionCommon{Clients: 64, Samples: 128, TestSamples: 32, Shift: 1, Noise: 1, Seed: 1}
	registry.Define(registry.Dataset, "sparse_ar1",
		"Bao et al. (2022) sparse linear regression: y = xᵀw* + ε, x = δ_k + z, z ~ N(0, Σ) with Σ_ij = 0.5^|i−j|, no intercept",
		SparseAR1Params{Dim: 1024, Support: 512, regressionCommon: common, Rho: 0.5}, buildSparseAR1)
	registry.Define(registry.Dataset, "lowrank_shift",
		"Bao et al. (2022) low-rank trace regression: y = ⟨X, W*⟩ + ε, X = Z_k + A with a different Gaussian shift Z_k per client, no intercept",
		LowRankShiftParams{Size: 32, Rank: 16, regressionCommon: common}, buildLowRankShift)
}

// RegressionSpec describes a linear regression y = xᵀw* + ε whose client k
// draws x = δ_k + z with a fixed mean δ_k ~ N(0, Shift²·I) and z ~ N(0, Σ),
// Σ_ij = Rho^|i−j| (Rho = 0: Σ = I).
type RegressionSpec struct {
	Name        string
	Weights     []float64 // w* (its length is the feature count)
	Clients     int
	Samples     int // training samples per client
	TestSamples int // test samples per client (0: none)
	Rho         float64
	Shift       float64
	Noise       float64
	Seed        int
	Shape       [2]int // copied to Federated.Shape (trace regression)
}

// GenerateRegression draws the data of s. Every client uses its own random
// streams (one for δ_k and its training samples, one for its test samples),
// so the clients are drawn in parallel and a client's data does not depend
// on the number of clients or of test samples. z is drawn as the stationary
// AR(1) process z_1 = e_1, z_j = ρ z_{j−1} + √(1−ρ²) e_j, whose covariance is
// exactly ρ^|i−j|. The truth has no intercept.
func GenerateRegression(s RegressionSpec) *core.Federated {
	d := len(s.Weights)
	f := &core.Federated{
		Name:     s.Name,
		Train:    make([]*core.Data, s.Clients),
		Features: d,
		Shape:    s.Shape,
		Truth:    &core.Truth{Weights: append([]float64(nil), s.Weights...)},
	}
	if s.TestSamples > 0 {
		f.Test = make([]*core.Data, s.Clients)
	}
	eachClient(s.Clients, func(k int) {
		rng := newRNG(s.Seed, uint64(2*k+1))
		delta := make([]float64, d)
		for i := range delta {
			delta[i] = s.Shift * rng.NormFloat64()
		}
		f.Train[k] = drawAR1(rng, delta, s, s.Samples)
		if s.TestSamples > 0 {
			f.Test[k] = drawAR1(newRNG(s.Seed, uint64(2*k+2)), delta, s, s.TestSamples)
		}
	})
	return f
}

// drawAR1 draws n samples x = delta + z, y = xᵀw* + ε.
func drawAR1(rng *rand.Rand, delta []float64, s RegressionSpec, n int) *core.Data {
	d := len(delta)
	out := &core.Data{X: make([]float64, n*d), Y: make([]float64, n), N: n, Features: d}
	c := math.Sqrt(1 - s.Rho*s.Rho)
	for i := range n {
		row := out.X[i*d : (i+1)*d]
		z, y := 0.0, 0.0
		for j := range row {
			e := rng.NormFloat64()
			if j == 0 {
				z = e
			} else {
				z = s.Rho*z + c*e
			}
			row[j] = delta[j] + z
			y += s.Weights[j] * row[j]
		}
		out.Y[i] = y + s.Noise*rng.NormFloat64()
	}
	return out
}

func buildSparseAR1(a SparseAR1Params) (*core.Federated, error) {
	p, s := a.Dim, a.Support
	if s > p {
		return nil, fmt.Errorf("support %d exceeds dim %d", s, p)
	}
	w := make([]float64, p)
	for i := range s {
		w[i] = 1
	}
	spec := RegressionSpec{Weights: w, Clients: a.Clients, Samples: a.Samples,
		TestSamples: a.TestSamples, Rho: a.Rho, Shift: a.Shift, Noise: a.Noise, Seed: a.Seed}
	spec.Name = fmt.Sprintf("sparse_ar1 (p=%d, s=%d, K=%d, n=%d)", p, s, spec.Clients, spec.Samples)
	f := GenerateRegression(spec)
	return f, f.Check()
}

func buildLowRankShift(a LowRankShiftParams) (*core.Federated, error) {
	n, r := a.Size, a.Rank
	if r > n {
		return nil, fmt.Errorf("rank %d exceeds size %d", r, n)
	}
	w := make([]float64, n*n)
	for i := range r {
		w[i*n+i] = 1
	}
	spec := RegressionSpec{Weights: w, Clients: a.Clients, Samples: a.Samples,
		TestSamples: a.TestSamples, Shift: a.Shift, Noise: a.Noise, Seed: a.Seed,
		Shape: [2]int{n, n}}
	spec.Name = fmt.Sprintf("lowrank_shift (%d×%d, r=%d, K=%d, n=%d)", n, n, r, spec.Clients, spec.Samples)
	f := GenerateRegression(spec)
	return f, f.Check()
}
