// Package argmax32 keeps running maxima and their positions over float32
// vectors: the inner step of the float32 CNN's max-pool, in AVX2 assembly
// on amd64 CPUs that have it (compare and blend, no branches) and in plain
// Go elsewhere.
package argmax32

import (
	"fmt"
	"math"
)

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

// foldGo is Fold in plain Go, with masks instead of branches (the random
// comparisons of a max-pool would mispredict about half of them).
func foldGo(v []float32, a int32, best []float32, arg []int32) {
	best, arg = best[:len(v)], arg[:len(v)]
	for c, x := range v {
		var m uint32 // all ones where x > best[c]
		if x > best[c] {
			m = math.MaxUint32
		}
		b := math.Float32bits(best[c])&^m | math.Float32bits(x)&m
		k := uint32(arg[c])&^m | uint32(a+int32(c))&m
		best[c], arg[c] = math.Float32frombits(b), int32(k)
	}
}
