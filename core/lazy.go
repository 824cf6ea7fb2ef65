package core

// Lazy local steps. On sparse data a minibatch touches few coordinates, and
// an algorithm whose every other coordinate follows a fixed scalar map per
// step can skip those coordinates and catch them up exactly when they are
// next read. The capabilities below are what such an algorithm needs from
// a regularizer.

// RepeatedProx is implemented by regularizers whose prox acts on every
// regularized coordinate by one scalar map p_t (ψ₁ separable and the same
// on each coordinate; unregularized coordinates are left unchanged), with a
// closed form for repeated application.
type RepeatedProx interface {
	// ProxRepeat returns p_tᵏ(z): k ≥ 0 consecutive proximal steps
	// prox_{tψ₁} applied to one regularized coordinate z (k = 1 is the prox).
	ProxRepeat(z, t float64, k int) float64
}

// RepeatedSubgradient is implemented by separable regularizers for which k
// consecutive subgradient steps on one coordinate have a closed form.
type RepeatedSubgradient interface {
	// SubgradientRepeat returns z after k ≥ 0 steps z ← z − t·g(z), where
	// g(z) is the coordinate's subgradient as Subgradient writes it.
	SubgradientRepeat(z, t float64, k int) float64
}
