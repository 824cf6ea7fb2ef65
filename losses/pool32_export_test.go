package losses

import "github.com/fedlab/fedlab/core"

// SetPoolKernelsOff makes float32 CNN evaluators created afterwards pool
// with maxPool32 and unpool32 instead of pool32's kernels (off) or back,
// and returns the previous setting.
func SetPoolKernelsOff(off bool) (previous bool) {
	previous, poolKernelsOff = poolKernelsOff, off
	return previous
}

// PoolKernels reports whether a float32 CNN evaluator that has evaluated
// once pools with pool32's kernels.
func PoolKernels(ev core.Evaluator) bool { return ev.(*cnnEval32).poolKern }
