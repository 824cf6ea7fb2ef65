//go:build !amd64

package pool32

// enabled is false: only amd64 has the kernels.
const enabled = false

func pool2AVX2(n, C int, out *float32, next, a0 int, b, pooled *float32, arg *int32) {
	panic("pool32: no kernels on this architecture")
}

func unpool2AVX2(n, C int, dp, pooled *float32, arg *int32, a0 int, dout *float32, next int, gb *float32) {
	panic("pool32: no kernels on this architecture")
}
