package regularizers

import (
	"math"

	"github.com/fedlab/fedlab/core"
)

// Compile-time checks that every regularizer implements core.Regularizer.
var (
	_ core.Regularizer = None{}
	_ core.Regularizer = L1{}
	_ core.Regularizer = L2Sq{}
	_ core.Regularizer = ElasticNet{}
	_ core.Regularizer = Nuclear{}
	_ core.Regularizer = L1Ball{}
	_ core.Regularizer = L2Ball{}

	_ core.L1L2Regularizer = L1{}
	_ core.L1L2Regularizer = ElasticNet{}
)

// None is ψ₁ = 0: Prox is the identity and the subgradient is zero.
type None struct{}

// Value returns 0.
func (None) Value([]float64, core.Layout) float64 { return 0 }

// Prox copies every block of z into dst.
func (None) Prox(dst, z []float64, _ float64, l core.Layout) {
	for _, b := range l.Blocks {
		copy(b.Of(dst), b.Of(z))
	}
}

// Subgradient writes zeros into every block.
func (None) Subgradient(dst, _ []float64, l core.Layout) {
	for _, b := range l.Blocks {
		clear(b.Of(dst))
	}
}

// L1 is ψ₁(w) = ‖w‖₁ over the regularized blocks.
type L1 struct{}

// Value returns the sum of absolute values of the regularized blocks.
func (L1) Value(w []float64, l core.Layout) float64 {
	s := 0.0
	for _, b := range l.Blocks {
		if b.Regularized {
			for _, x := range b.Of(w) {
				s += math.Abs(x)
			}
		}
	}
	return s
}

// Prox soft-thresholds the regularized blocks: u = sign(z)·max(|z|−t, 0).
func (L1) Prox(dst, z []float64, t float64, l core.Layout) {
	for _, b := range l.Blocks {
		d, v := b.Of(dst), b.Of(z)
		if !b.Regularized {
			copy(d, v)
			continue
		}
		for i, x := range v {
			d[i] = soft(x, t)
		}
	}
}

// L1L2 returns (1, 0): ψ₁ = ‖w‖₁ (core.L1L2Regularizer, for the
// coordinate-descent reference solver).
func (L1) L1L2() (l1, l2 float64) { return 1, 0 }

// Subgradient writes sign(w) with sign(0) = 0.
func (L1) Subgradient(dst, w []float64, l core.Layout) {
	for _, b := range l.Blocks {
		d, v := b.Of(dst), b.Of(w)
		if !b.Regularized {
			clear(d)
			continue
		}
		for i, x := range v {
			d[i] = sign(x)
		}
	}
}

// L2Sq is ψ₁(w) = ‖w‖²₂ (not halved) over the regularized blocks: weight decay.
type L2Sq struct{}

// Value returns the sum of squares of the regularized blocks.
func (L2Sq) Value(w []float64, l core.Layout) float64 {
	s := 0.0
	for _, b := range l.Blocks {
		if b.Regularized {
			for _, x := range b.Of(w) {
				s += x * x
			}
		}
	}
	return s
}

// Prox shrinks the regularized blocks: u = z/(1+2t).
func (L2Sq) Prox(dst, z []float64, t float64, l core.Layout) {
	f := 1 / (1 + 2*t)
	for _, b := range l.Blocks {
		d, v := b.Of(dst), b.Of(z)
		if !b.Regularized {
			copy(d, v)
			continue
		}
		for i, x := range v {
			d[i] = f * x
		}
	}
}

// Subgradient writes the gradient 2w.
func (L2Sq) Subgradient(dst, w []float64, l core.Layout) {
	for _, b := range l.Blocks {
		d, v := b.Of(dst), b.Of(w)
		if !b.Regularized {
			clear(d)
			continue
		}
		for i, x := range v {
			d[i] = 2 * x
		}
	}
}

// ElasticNet is ψ₁(w) = α‖w‖₁ + (1−α)/2·‖w‖²₂ over the regularized blocks,
// with α = L1Ratio in [0, 1].
type ElasticNet struct {
	L1Ratio float64
}

// Value returns α‖w‖₁ + (1−α)/2·‖w‖²₂ of the regularized blocks.
func (e ElasticNet) Value(w []float64, l core.Layout) float64 {
	return e.L1Ratio*L1{}.Value(w, l) + (1-e.L1Ratio)/2*L2Sq{}.Value(w, l)
}

// L1L2 returns (α, 1−α) (core.L1L2Regularizer, for the coordinate-descent
// reference solver).
func (e ElasticNet) L1L2() (l1, l2 float64) { return e.L1Ratio, 1 - e.L1Ratio }

// Prox writes u = soft(z, tα)/(1+t(1−α)) on the regularized blocks.
func (e ElasticNet) Prox(dst, z []float64, t float64, l core.Layout) {
	a, f := t*e.L1Ratio, 1/(1+t*(1-e.L1Ratio))
	for _, b := range l.Blocks {
		d, v := b.Of(dst), b.Of(z)
		if !b.Regularized {
			copy(d, v)
			continue
		}
		for i, x := range v {
			d[i] = f * soft(x, a)
		}
	}
}

// Subgradient writes α·sign(w) + (1−α)·w with sign(0) = 0.
func (e ElasticNet) Subgradient(dst, w []float64, l core.Layout) {
	for _, b := range l.Blocks {
		d, v := b.Of(dst), b.Of(w)
		if !b.Regularized {
			clear(d)
			continue
		}
		for i, x := range v {
			d[i] = e.L1Ratio*sign(x) + (1-e.L1Ratio)*x
		}
	}
}
