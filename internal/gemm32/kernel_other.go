//go:build !amd64

package gemm32

// kernel and kernelDirect are the micro-kernels; only amd64 has assembly
// ones.
var kernel, kernelDirect = kernelGo, kernelDirectGo
