package gemm32

import "fmt"

// AddTo adds src to dst element by element (dst[i] += src[i] for i <
// len(src)), with AVX2 where the CPU has it: the same bits as the loop,
// one rounded addition per element.
func AddTo(dst, src []float32) {
	dst = dst[:len(src)]
	n := addVector(dst, src)
	for i, v := range src[n:] {
		dst[n+i] += v
	}
}

// AddRows adds rows rows of n floats of src, ss floats apart, to those of
// dst, ds floats apart, row after row (dst[r·ds + i] += src[r·ss + i]),
// with AVX2 where the CPU has it: the same bits as the loop.
func AddRows(dst []float32, ds int, src []float32, ss, rows, n int) {
	if rows <= 0 || n <= 0 {
		return
	}
	if ds < 0 || ss < 0 || len(dst) < (rows-1)*ds+n || len(src) < (rows-1)*ss+n {
		panic(fmt.Sprintf("gemm32: %d rows of %d floats, %d and %d apart, in %d and %d floats", rows, n, ds, ss, len(dst), len(src)))
	}
	if addRowsVector(dst, ds, src, ss, rows, n) {
		return
	}
	for r := range rows {
		d, s := dst[r*ds:r*ds+n], src[r*ss:r*ss+n]
		for i, v := range s {
			d[i] += v
		}
	}
}
