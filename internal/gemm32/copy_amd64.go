package gemm32

import "golang.org/x/sys/cpu"

// copyRowsVector is CopyRows with AVX-512 if the CPU has it (n, rows > 0);
// it reports whether it ran.
func copyRowsVector(dst []float32, ds int, src []float32, ss, rows, n int) bool {
	if !cpu.X86.HasAVX512F {
		return false
	}
	copyRowsAVX512(&dst[0], ds, &src[0], ss, rows, n, 1<<(n%16)-1)
	return true
}

// copyRowsAVX512 is CopyRows for n, rows > 0, sixteen floats at a time and
// the last n mod 16 of each row under the low bits of mask (copy_amd64.s).
//
//go:noescape
func copyRowsAVX512(dst *float32, ds int, src *float32, ss, rows, n int, mask int)
