package losses

import "github.com/fedlab/fedlab/core"

// SetDirectConvOff switches the direct convolution of the float32 CNN off
// (every layer through im2col and the GEMM) or back on for evaluators
// created afterwards, and returns the previous setting.
func SetDirectConvOff(off bool) (previous bool) {
	previous, directConvOff = directConvOff, off
	return previous
}

// DirectConvLayers reports, for a float32 CNN evaluator that has evaluated
// once, which convolutional layers it computes directly.
func DirectConvLayers(ev core.Evaluator) []bool {
	e := ev.(*cnnEval32)
	var direct []bool
	for _, c := range e.conv {
		direct = append(direct, c != nil)
	}
	return direct
}
