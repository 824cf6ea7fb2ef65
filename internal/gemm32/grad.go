package gemm32

import "fmt"

// addTransposed adds the npos × nch block at s (rows lds floats apart) to
// gw transposed: gw[o·ldg + q] += s[q·lds + o] for q < npos ≤ 16, o < nch
// ≤ 16, one rounded addition each (with AVX-512 where the CPU has it: the
// bits of the loop); s must hold 16 floats from each row's start.
func addTransposed(gw []float32, ldg int, s []float32, lds, npos, nch int) {
	if npos < 1 || nch < 1 || npos > 16 || nch > 16 || ldg < 0 || lds < 0 || len(gw) < (nch-1)*ldg+npos || len(s) < (npos-1)*lds+16 {
		panic(fmt.Sprintf("gemm32: a transposed %d×%d block, strides %d and %d, in %d and %d floats", npos, nch, ldg, lds, len(gw), len(s)))
	}
	if addTransposedVector(gw, ldg, s, lds, npos, nch) {
		return
	}
	for q := range npos {
		for o, v := range s[q*lds : q*lds+nch] {
			gw[o*ldg+q] += v
		}
	}
}
