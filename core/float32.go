package core

import "fmt"

// Float32Arithmetic is implemented by losses that may compute their
// passes in float32 (a network's precision = "float32"): a value past
// float32's range (about 3.4e38) becomes Inf, then NaN, where float64
// would have held it, and a run that diverges so says so.
type Float32Arithmetic interface {
	// Float32Arithmetic reports whether the loss computes in float32.
	Float32Arithmetic() bool
}

// nonFiniteLoss is the message of a run whose training loss at round is
// NaN or Inf: with a loss computing in float32, it names float32 overflow
// and the ways out.
func nonFiniteLoss(loss Loss, round int, value float64) string {
	if f, ok := loss.(Float32Arithmetic); ok && f.Float32Arithmetic() {
		return fmt.Sprintf("diverged at round %d: the training loss is %g in float32 arithmetic (the loss's precision = \"float32\"): a value passed float32's range (about 3.4e38), which float64 may hold; give the loss precision = \"float64\", or a smaller step size (or scale the features)", round, value)
	}
	return fmt.Sprintf("diverged at round %d: the training loss is %g", round, value)
}
