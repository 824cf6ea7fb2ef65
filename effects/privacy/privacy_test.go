package privacy

import (
	"math"
	"testing"
)

// TestEpsilonMatchesTFPrivacyTutorial reproduces the published value of the
// TensorFlow Privacy classification tutorial
// (tensorflow/privacy, tutorials/classification_privacy.ipynb): N = 60000,
// batch 250, noise multiplier 1.3, 15 epochs (3600 steps at q = 250/60000),
// δ = 1e-5 → "eps = 1.18" (printed to three significant digits), with the
// optimal Rényi order 17. TF Privacy uses the same binomial expansion at
// integer orders and the same conversion.
func TestEpsilonMatchesTFPrivacyTutorial(t *testing.T) {
	eps, order := Epsilon(250.0/60000, 1.3, 3600, 1e-5)
	if math.Abs(eps-1.18) > 0.005 || order != 17 {
		t.Fatalf("ε = %.6f at order %d, published 1.18 at order 17", eps, order)
	}
}

// TestRDPWithoutSampling is the Gaussian mechanism's closed form α/(2σ²)
// (Mironov 2017, Proposition 7), which the expansion must approach as q → 1.
func TestRDPWithoutSampling(t *testing.T) {
	for _, sigma := range []float64{0.7, 1, 2} {
		for _, a := range []int{2, 5, 32} {
			want := float64(a) / (2 * sigma * sigma)
			if got := RDP(1-1e-12, sigma, a); math.Abs(got-want) > 1e-8*want {
				t.Errorf("σ=%g α=%d: RDP(q→1) = %g, want %g", sigma, a, got, want)
			}
		}
	}
}

// TestRDPOrderTwo checks the expansion by hand at α = 2:
// A₂ = (1−q)² + 2q(1−q) + q² e^{1/σ²} = 1 + q²(e^{1/σ²} − 1).
func TestRDPOrderTwo(t *testing.T) {
	q, sigma := 0.05, 1.5
	want := math.Log(1 + q*q*(math.Exp(1/(sigma*sigma))-1))
	if got := RDP(q, sigma, 2); math.Abs(got-want) > 1e-14 {
		t.Fatalf("RDP(α=2) = %.17g, want %.17g", got, want)
	}
}

// TestEpsilonGrowsWithRoundsAndShrinksWithNoise: composition costs privacy,
// more noise buys it back.
func TestEpsilonGrowsWithRoundsAndShrinksWithNoise(t *testing.T) {
	e1, _ := Epsilon(0.1, 1, 10, 1e-5)
	e2, _ := Epsilon(0.1, 1, 100, 1e-5)
	e3, _ := Epsilon(0.1, 2, 100, 1e-5)
	if !(e1 < e2 && e3 < e2) {
		t.Fatalf("ε(10 rounds)=%g, ε(100)=%g, ε(100, σ=2)=%g", e1, e2, e3)
	}
	if e, _ := Epsilon(0.1, 0, 10, 1e-5); !math.IsInf(e, 1) {
		t.Fatalf("no noise: ε = %g, want +Inf", e)
	}
}
