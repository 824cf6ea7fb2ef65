package losses

import "github.com/fedlab/fedlab/core"

// ImplicitConvLayers reports, for a float32 CNN evaluator that has
// evaluated once, which convolutional layers compute their output from
// their padded images at every pixel (implicitConv).
func ImplicitConvLayers(ev core.Evaluator) []bool {
	var pix []bool
	for _, c := range ev.(*cnnEval32).pix {
		pix = append(pix, c != nil)
	}
	return pix
}

// SetConvBackOff switches the float32 CNN's direct input gradient
// (backConv) off or back on for evaluators created afterwards, and
// returns the previous setting.
func SetConvBackOff(off bool) (previous bool) {
	previous, convBackOff = convBackOff, off
	return previous
}

// BackConvLayers reports, for a float32 CNN evaluator that has evaluated
// once, which convolutional layers compute their input gradient with
// gemm32.ConvBack (backConv).
func BackConvLayers(ev core.Evaluator) []bool {
	var back []bool
	for _, c := range ev.(*cnnEval32).back {
		back = append(back, c != nil)
	}
	return back
}

// SetPoolStepOff makes the float32 CNN pool each direct layer once for
// the chunk (off) or group by group as it computes it, and returns the
// previous setting.
func SetPoolStepOff(off bool) (previous bool) {
	previous, poolStepOff = poolStepOff, off
	return previous
}
