//go:build !amd64

package gemm32

// addVector adds nothing on this architecture: AddTo is the plain loop.
func addVector(dst, src []float32) int { return 0 }
