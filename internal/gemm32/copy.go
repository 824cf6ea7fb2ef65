package gemm32

import "fmt"

// CopyRows copies rows rows of n floats of src, ss floats apart, to those
// of dst, ds floats apart (dst[r·ds + i] = src[r·ss + i]), with AVX-512
// where the CPU has it; dst and src must not overlap. It builds the
// patches of an im2col matrix from a padded image: one kernel row of many
// output pixels a call.
func CopyRows(dst []float32, ds int, src []float32, ss, rows, n int) {
	if rows <= 0 || n <= 0 {
		return
	}
	if ds < 0 || ss < 0 || len(dst) < (rows-1)*ds+n || len(src) < (rows-1)*ss+n {
		panic(fmt.Sprintf("gemm32: %d rows of %d floats, %d and %d apart, in %d and %d floats", rows, n, ds, ss, len(dst), len(src)))
	}
	if copyRowsVector(dst, ds, src, ss, rows, n) {
		return
	}
	for r := range rows {
		copy(dst[r*ds:r*ds+n], src[r*ss:r*ss+n])
	}
}
