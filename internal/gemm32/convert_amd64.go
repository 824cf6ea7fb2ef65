package gemm32

import "golang.org/x/sys/cpu"

// roundVector rounds the first multiple of 16 values of src into dst with
// AVX, if the CPU has it, and returns how many it rounded.
func roundVector(dst []float32, src []float64) int {
	n := len(src) &^ 15
	if !cpu.X86.HasAVX || n == 0 {
		return 0
	}
	roundAVX(&dst[0], &src[0], n)
	return n
}

// widenVector is roundVector for Widen.
func widenVector(dst []float64, src []float32) int {
	n := len(src) &^ 15
	if !cpu.X86.HasAVX || n == 0 {
		return 0
	}
	widenAVX(&dst[0], &src[0], n)
	return n
}

// roundAVX rounds the n float64s at src to the float32s at dst, n a
// positive multiple of 16 (convert_amd64.s).
//
//go:noescape
func roundAVX(dst *float32, src *float64, n int)

// widenAVX widens the n float32s at src to the float64s at dst, n a
// positive multiple of 16 (convert_amd64.s).
//
//go:noescape
func widenAVX(dst *float64, src *float32, n int)
