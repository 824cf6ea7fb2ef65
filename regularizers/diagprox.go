package regularizers

import "github.com/fedlab/fedlab/core"

// The separable regularizers have a closed-form prox in a diagonal metric
// (core.DiagonalProx): per coordinate j it is their scalar prox with the
// step t/h_j.
var (
	_ core.DiagonalProx = None{}
	_ core.DiagonalProx = L1{}
	_ core.DiagonalProx = L2Sq{}
	_ core.DiagonalProx = ElasticNet{}
)

// proxDiag applies prox(z_j, t/h_j) to the regularized blocks and copies
// the others, where prox(·, s) is a unit-weight scalar prox with step s.
func proxDiag(dst, z, h []float64, t float64, l core.Layout, prox func(x, s float64) float64) {
	for _, b := range l.Blocks {
		d, v := b.Of(dst), b.Of(z)
		if !b.Regularized {
			copy(d, v)
			continue
		}
		hb := b.Of(h)
		for i, x := range v {
			d[i] = prox(x, t/hb[i])
		}
	}
}

// ProxDiag copies z (ψ₁ = 0).
func (None) ProxDiag(dst, z, _ []float64, _ float64, l core.Layout) { None{}.Prox(dst, z, 0, l) }

// ProxDiag soft-thresholds coordinate j at t/h_j.
func (L1) ProxDiag(dst, z, h []float64, t float64, l core.Layout) {
	proxDiag(dst, z, h, t, l, soft)
}

// ProxDiag shrinks coordinate j to z_j/(1 + 2t/h_j).
func (L2Sq) ProxDiag(dst, z, h []float64, t float64, l core.Layout) {
	proxDiag(dst, z, h, t, l, func(x, s float64) float64 { return x / (1 + 2*s) })
}

// ProxDiag writes soft(z_j, sα)/(1 + s(1−α)) with s = t/h_j.
func (e ElasticNet) ProxDiag(dst, z, h []float64, t float64, l core.Layout) {
	proxDiag(dst, z, h, t, l, func(x, s float64) float64 { return soft(x, s*e.L1Ratio) / (1 + s*(1-e.L1Ratio)) })
}
