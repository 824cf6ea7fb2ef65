package gemm32

import "golang.org/x/sys/cpu"

// addVector adds the first multiple of 8 floats of src to dst with AVX2,
// if the CPU has it, and returns how many it added.
func addVector(dst, src []float32) int {
	n := len(src) &^ 7
	if !cpu.X86.HasAVX2 || n == 0 {
		return 0
	}
	addAVX2(&dst[0], &src[0], n)
	return n
}

// addAVX2 adds the n floats at src to those at dst, n a positive multiple
// of 8 (add_amd64.s).
//
//go:noescape
func addAVX2(dst, src *float32, n int)
