package regularizers

import (
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
)

// feasTol is the relative tolerance of the constraint checks in Value:
// a block is feasible if its norm is at most Radius·(1 + feasTol).
const feasTol = 1e-9

// L1Ball is the indicator of {w : ‖B‖₁ ≤ Radius for every regularized block
// B of w}: each block is constrained (and projected) separately.
type L1Ball struct {
	Radius float64
}

// L2Ball is the indicator of {w : ‖B‖₂ ≤ Radius for every regularized block
// B of w}, with ‖B‖₂ the Frobenius norm of the block.
type L2Ball struct {
	Radius float64
}

// sortBufs holds *[]float64 sort buffers for L1Ball.Prox. A pool (rather than
// a buffer in the struct) lets concurrent clients share one L1Ball without
// allocating in steady state.
var sortBufs = sync.Pool{New: func() any { return new([]float64) }}

// Value returns 0 if every regularized block lies in the ball (up to a
// relative tolerance of 1e-9) and +Inf otherwise.
func (c L1Ball) Value(w []float64, l core.Layout) float64 {
	for _, b := range l.Blocks {
		if b.Regularized && floats.Norm(b.Of(w), 1) > c.Radius*(1+feasTol) {
			return math.Inf(1)
		}
	}
	return 0
}

// Prox projects each regularized block onto the ℓ1 ball with the exact
// sort-based method of Duchi et al. (2008); t is ignored.
func (c L1Ball) Prox(dst, z []float64, _ float64, l core.Layout) {
	for _, b := range l.Blocks {
		d, v := b.Of(dst), b.Of(z)
		if !b.Regularized {
			copy(d, v)
			continue
		}
		projectL1(d, v, c.Radius)
	}
}

// Subgradient writes zeros: 0 belongs to the normal cone ∂χ(w) at every
// feasible w (outside the set the subdifferential is empty).
func (L1Ball) Subgradient(dst, _ []float64, l core.Layout) {
	for _, b := range l.Blocks {
		clear(b.Of(dst))
	}
}

// projectL1 writes the Euclidean projection of v onto {‖x‖₁ ≤ s} into d
// (d may alias v): with u = sort(|v|) descending and cssv its cumulative
// sums, ρ is the last j with u_j·j > cssv_j − s, θ = (cssv_ρ − s)/ρ and
// d = soft(v, θ).
func projectL1(d, v []float64, s float64) {
	if floats.Norm(v, 1) <= s {
		copy(d, v)
		return
	}
	if s <= 0 {
		clear(d)
		return
	}
	bp := sortBufs.Get().(*[]float64)
	u := slices.Grow((*bp)[:0], len(v))[:len(v)]
	for i, x := range v {
		u[i] = math.Abs(x)
	}
	slices.Sort(u) // ascending; read from the end for descending order
	css, theta := 0.0, 0.0
	for j := 1; j <= len(u); j++ {
		uj := u[len(u)-j]
		css += uj
		if uj*float64(j) > css-s {
			theta = (css - s) / float64(j)
		}
	}
	*bp = u
	sortBufs.Put(bp)
	for i, x := range v {
		d[i] = soft(x, theta)
	}
}

// Value returns 0 if every regularized block lies in the ball (up to a
// relative tolerance of 1e-9) and +Inf otherwise.
func (c L2Ball) Value(w []float64, l core.Layout) float64 {
	for _, b := range l.Blocks {
		if b.Regularized && floats.Norm(b.Of(w), 2) > c.Radius*(1+feasTol) {
			return math.Inf(1)
		}
	}
	return 0
}

// Prox scales each regularized block B to B/max(‖B‖₂/Radius, 1); t is ignored.
func (c L2Ball) Prox(dst, z []float64, _ float64, l core.Layout) {
	for _, b := range l.Blocks {
		d, v := b.Of(dst), b.Of(z)
		if !b.Regularized {
			copy(d, v)
			continue
		}
		n := floats.Norm(v, 2)
		if n <= c.Radius {
			copy(d, v)
			continue
		}
		f := 0.0
		if c.Radius > 0 {
			f = c.Radius / n
		}
		for i, x := range v {
			d[i] = f * x
		}
	}
}

// Subgradient writes zeros: 0 belongs to the normal cone ∂χ(w) at every
// feasible w (outside the set the subdifferential is empty).
func (L2Ball) Subgradient(dst, _ []float64, l core.Layout) {
	for _, b := range l.Blocks {
		clear(b.Of(dst))
	}
}
