//go:build !amd64

package pool32

// enabled is false: only amd64 has the kernels.
const enabled = false

// hasAVX512 and wide are false: only amd64 has the kernels.
const hasAVX512 = false

var wide = false

func pool2Kernel(n, C int, out *float32, next, a0 int, b, pooled *float32, arg *int32) {
	panic("pool32: no kernels on this architecture")
}

func unpool2Kernel(n, C int, dp, pooled *float32, arg *int32, a0 int, dout *float32, next int, gb *float32) {
	panic("pool32: no kernels on this architecture")
}
