//go:build !amd64

package gemm32

// addTransposedVector adds nothing on this architecture: addTransposed is
// the plain loop.
func addTransposedVector(gw []float32, ldg int, s []float32, lds, npos, nch int) bool { return false }
