//go:build !amd64

package gemm32

// addVector adds nothing on this architecture: AddTo is the plain loop.
func addVector(dst, src []float32) int { return 0 }

// addRowsVector adds nothing on this architecture: AddRows is the plain loop.
func addRowsVector(dst []float32, ds int, src []float32, ss, rows, n int) bool { return false }

// copyRowsVector copies nothing on this architecture: CopyRows is the
// plain loop.
func copyRowsVector(dst []float32, ds int, src []float32, ss, rows, n int) bool { return false }
