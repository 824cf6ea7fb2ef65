// Package argmax32 keeps running maxima and their positions over float32
// vectors: the inner step of the float32 CNN's max-pool, in AVX2 assembly
// on amd64 CPUs that have it (compare and blend, no branches) and in plain
// Go elsewhere.
package argmax32

import "fmt"

// Fold updates the running maxima best and their positions arg with the
// values v found at positions a, a+1, …: where v[c] > best[c], best[c] =
// v[c] and arg[c] = a + c (so ties keep the earlier position, and a NaN in
// v never replaces). best and arg must be at least as long as v.
func Fold(v []float32, a int32, best []float32, arg []int32) {
	if len(best) < len(v) || len(arg) < len(v) {
		panic(fmt.Sprintf("argmax32: %d values, %d maxima and %d positions", len(v), len(best), len(arg)))
	}
	n := len(v) &^ 7
	if n > 0 && fold8 != nil {
		fold8(&v[0], &best[0], &arg[0], n, a)
	} else {
		n = 0
	}
	foldGo(v[n:], a+int32(n), best[n:], arg[n:])
}

// foldGo is Fold in plain Go.
func foldGo(v []float32, a int32, best []float32, arg []int32) {
	best, arg = best[:len(v)], arg[:len(v)]
	for c, x := range v {
		if x > best[c] {
			best[c], arg[c] = x, a+int32(c)
		}
	}
}
