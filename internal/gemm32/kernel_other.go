//go:build !amd64

package gemm32

// kernel is the micro-kernel; only amd64 has an assembly one.
var kernel = kernelGo
