package core

import (
	"fmt"
	"math"
)

// UnmovedEvaluation is the evaluated round, counted after the run's start
// (round 0 or Settings.RoundOffset), at which the engine compares the
// model with the run's initial model: the second one (or the last, for a
// run that evaluates fewer rounds after its start). A model that is still
// its initial value, bit for bit, there sets Result.Unmoved.
const UnmovedEvaluation = 2

// unmovedRound returns the rounds done after which the engine compares
// the model with the initial one (see UnmovedEvaluation): the
// UnmovedEvaluation-th t ≥ 1 with evalAt[t], or the last such t when
// there are fewer; 0 when no round after the start is evaluated.
func unmovedRound(evalAt []bool) int {
	at, n := 0, 0
	for t := 1; t < len(evalAt) && n < UnmovedEvaluation; t++ {
		if evalAt[t] {
			at, n = t, n+1
		}
	}
	return at
}

// checkUnmoved sets Result.Unmoved to round when the model is bit for bit
// the initial model, and forgets the initial model (it is compared once).
func (e *engine) checkUnmoved(round int) {
	if e.initial == nil {
		return
	}
	if sameBits(e.model, e.initial) {
		e.res.Unmoved = round
	}
	e.initial = nil
}

// sameBits reports whether a and b hold the same float64 bit patterns
// (so 0 and -0 differ: a model that became -0 moved).
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// UnmovedNote is what the run's status says of a model that did not move
// (Result.Unmoved = round): the fact, and its two explanations, since a
// model can legitimately stay where it started (zero under an ℓ1 penalty
// large enough to make zero optimal) as well as be stuck (zero steps, or
// a neural network started from zeros, whose gradients vanish).
func UnmovedNote(round int) string {
	return fmt.Sprintf("model did not move: at round %d it was bit for bit its initial value "+
		"(expected only if the initial model is already optimal, e.g. zero under a large λ; otherwise check init and the step sizes)", round)
}
