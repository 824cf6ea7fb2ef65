package gemm32

import "golang.org/x/sys/cpu"

// convGrad9x32AVX512 adds n pixels' terms to a 9×32 tile of a kernel
// gradient (Conv.AddGrad): three groups of three positions, thirty-two
// channels in two registers per position (grad_amd64.s).
//
//go:noescape
func convGrad9x32AVX512(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask0, mask1 int, s *float32, rows, skip int)

// convGrad25x8AVX512 adds n pixels' terms to the kernel gradient of a 5×5
// patch and at most eight channels (cout), the patch positions in the
// lanes: two registers per channel (grad_amd64.s).
//
//go:noescape
func convGrad25x8AVX512(n int, src *float32, xs, rowoff int, dg *float32, ldg int, cout int, s *float32, rows, skip int)

// addTransposedAVX512 adds a block of at most 16×16 floats, transposed,
// to gw (grad_amd64.s).
//
//go:noescape
func addTransposedAVX512(gw *float32, ldg int, s *float32, lds, npos, nch int)

// addTransposedVector is addTransposed with AVX-512F if the CPU has it;
// it reports whether it ran.
func addTransposedVector(gw []float32, ldg int, s []float32, lds, npos, nch int) bool {
	if !cpu.X86.HasAVX512F {
		return false
	}
	addTransposedAVX512(&gw[0], ldg, &s[0], lds, npos, nch)
	return true
}
