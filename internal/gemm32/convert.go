package gemm32

// Round sets dst[i] = float32(src[i]) for i < len(src), four at a time with
// AVX where the CPU has it: the same bits as the loop (one rounding to
// nearest per element, NaNs quieted alike).
func Round(dst []float32, src []float64) {
	dst = dst[:len(src)]
	n := roundVector(dst, src)
	for i, v := range src[n:] {
		dst[n+i] = float32(v)
	}
}

// Widen sets dst[i] = float64(src[i]) for i < len(src) (exact), four at a
// time with AVX where the CPU has it: the same bits as the loop.
func Widen(dst []float64, src []float32) {
	dst = dst[:len(src)]
	n := widenVector(dst, src)
	for i, v := range src[n:] {
		dst[n+i] = float64(v)
	}
}
