package pool32

import "golang.org/x/sys/cpu"

var enabled = cpu.X86.HasAVX2

// hasAVX512 reports whether the CPU runs the AVX-512F kernels.
var hasAVX512 = cpu.X86.HasAVX2 && cpu.X86.HasAVX512F

// wide reports whether the AVX-512F kernels run (sixteen channels at a
// time) instead of the AVX2 ones (eight); both give the same bits.
var wide = hasAVX512

// pool2Kernel runs Pool2's kernel: a0 is the index of out[at].
func pool2Kernel(n, C int, out *float32, next, a0 int, b, pooled *float32, arg *int32) {
	if wide {
		pool2AVX512(n, C, out, next, a0, b, pooled, arg)
		return
	}
	pool2AVX2(n, C, out, next, a0, b, pooled, arg)
}

// unpool2Kernel runs Unpool2's kernel: a0 is the index of dout[at].
func unpool2Kernel(n, C int, dp, pooled *float32, arg *int32, a0 int, dout *float32, next int, gb *float32) {
	if wide {
		unpool2AVX512(n, C, dp, pooled, arg, a0, dout, next, gb)
		return
	}
	unpool2AVX2(n, C, dp, pooled, arg, a0, dout, next, gb)
}

// pool2AVX2 is Pool2's kernel in AVX2 assembly (pool_amd64.s).
//
//go:noescape
func pool2AVX2(n, C int, out *float32, next, a0 int, b, pooled *float32, arg *int32)

// unpool2AVX2 is Unpool2's kernel in AVX2 assembly (pool_amd64.s).
//
//go:noescape
func unpool2AVX2(n, C int, dp, pooled *float32, arg *int32, a0 int, dout *float32, next int, gb *float32)

// pool2AVX512 is pool2AVX2 with AVX-512F (pool_amd64.s).
//
//go:noescape
func pool2AVX512(n, C int, out *float32, next, a0 int, b, pooled *float32, arg *int32)

// unpool2AVX512 is unpool2AVX2 with AVX-512F (pool_amd64.s).
//
//go:noescape
func unpool2AVX512(n, C int, dp, pooled *float32, arg *int32, a0 int, dout *float32, next int, gb *float32)
