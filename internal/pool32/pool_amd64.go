package pool32

import "golang.org/x/sys/cpu"

var enabled = cpu.X86.HasAVX2

// pool2AVX2 is Pool2 in assembly (pool_amd64.s); a0 is the index of
// out[at].
//
//go:noescape
func pool2AVX2(n, C int, out *float32, next, a0 int, b, pooled *float32, arg *int32)

// unpool2AVX2 is Unpool2 in assembly (pool_amd64.s); a0 is the index of
// dout[at].
//
//go:noescape
func unpool2AVX2(n, C int, dp, pooled *float32, arg *int32, a0 int, dout *float32, next int, gb *float32)
