package gemm32

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
