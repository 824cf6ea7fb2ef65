package gemm32

import "golang.org/x/sys/cpu"

// kernel and kernelDirect are the micro-kernels: the AVX2/FMA assembly when
// the CPU has both, else kernelGo and kernelDirectGo.
var kernel, kernelDirect = pickKernels()

func pickKernels() (func(k int, a, b *float32, ldb int, c *float32, ldc int, acc bool), func(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, acc bool)) {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return kernelAVX2, kernelDirectAVX2
	}
	return kernelGo, kernelDirectGo
}

// kernelAVX2 is kernelGo in AVX2/FMA assembly (kernel_amd64.s).
//
//go:noescape
func kernelAVX2(k int, a, b *float32, ldb int, c *float32, ldc int, acc bool)

// kernelDirectAVX2 is kernelDirectGo in AVX2/FMA assembly (kernel_amd64.s).
//
//go:noescape
func kernelDirectAVX2(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, acc bool)
