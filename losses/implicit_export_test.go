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
