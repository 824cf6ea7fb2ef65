//go:build !amd64

package gemm32

// roundVector rounds nothing on this architecture: Round is the plain loop.
func roundVector(dst []float32, src []float64) int { return 0 }

// widenVector widens nothing on this architecture: Widen is the plain loop.
func widenVector(dst []float64, src []float32) int { return 0 }
