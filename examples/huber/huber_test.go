package huber

import (
	"math"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// The loss and gradient of two rows by hand: residuals 0.5 (quadratic)
// and −2 (linear, δ = 1: 1·(2 − ½) = 1.5): loss (0.125 + 1.5)/2,
// gradient (0.5·x₁ − 1·x₂)/2.
func TestHuberByHand(t *testing.T) {
	d := &core.Data{N: 2, Features: 2, X: []float64{1, 0, 0, 2}, Y: []float64{0.5, 1}}
	w := []float64{1, -0.5} // x₁ᵀw = 1, x₂ᵀw = −1
	grad := make([]float64, 2)
	loss := Huber{Delta: 1}.Eval(w, d, nil, grad)
	if want := (0.125 + 1.5) / 2; math.Abs(loss-want) > 1e-15 {
		t.Errorf("loss %g, want %g", loss, want)
	}
	if want := []float64{0.25, -1}; math.Abs(grad[0]-want[0]) > 1e-15 || math.Abs(grad[1]-want[1]) > 1e-15 {
		t.Errorf("gradient %v, want %v", grad, want)
	}
}
