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

// addRowsVector is AddRows with AVX2 if the CPU has it (n, rows > 0); it
// reports whether it ran.
func addRowsVector(dst []float32, ds int, src []float32, ss, rows, n int) bool {
	if !cpu.X86.HasAVX2 {
		return false
	}
	addRowsAVX2(&dst[0], ds, &src[0], ss, rows, n, &convMask[8-n%8])
	return true
}

// addRowsAVX2 is AddRows for n, rows > 0, eight floats at a time and the
// last n mod 8 of each row under mask (add_amd64.s).
//
//go:noescape
func addRowsAVX2(dst *float32, ds int, src *float32, ss, rows, n int, mask *int32)
