package gemm32

import "golang.org/x/sys/cpu"

// kernel is the micro-kernel: the AVX2/FMA assembly when the CPU has both,
// else kernelGo.
var kernel = pickKernel()

func pickKernel() func(k int, a, b, c *float32, ldc int) {
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		return kernelAVX2
	}
	return kernelGo
}

// kernelAVX2 is kernelGo in AVX2/FMA assembly (kernel_amd64.s).
//
//go:noescape
func kernelAVX2(k int, a, b, c *float32, ldc int)
