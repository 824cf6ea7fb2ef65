package losses

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/floats"
)

// softmaxCrossEntropy returns −log softmax(z)_c and, if g is not nil,
// writes scale·(softmax(z) − e_c), the scaled gradient in z, into g.
func softmaxCrossEntropy(z []float64, c int, g []float64, scale float64) float64 {
	lse := floats.LogSumExp(z)
	if g != nil {
		for k, v := range z {
			g[k] = math.Exp(v-lse) * scale
		}
		g[c] -= scale
	}
	return lse - z[c]
}

// classIndex converts a stored label to a class index in 0..K−1, panicking
// (for the engine to report as a failed run) on a label that the loss's
// Layout check would have rejected.
func classIndex(loss string, y float64, K int) int {
	k := int(y)
	if float64(k) != y || k < 0 || k >= K {
		panic(fmt.Sprintf("losses: %s: label %g is not a class index in 0..%d", loss, y, K-1))
	}
	return k
}

// denseForward computes out = in·kernel + bias for n rows (in: n × rows,
// kernel: rows × cols, out: n × cols, row-major), then ReLU if relu.
func denseForward(out, in, kernel, bias []float64, n, rows, cols int, relu bool) {
	for r := range n {
		copy(out[r*cols:(r+1)*cols], bias)
	}
	mlpGemm(blas.NoTrans, blas.NoTrans, n, cols, rows, 1, in, rows, kernel, cols, 1, out, cols)
	if relu {
		for i, v := range out {
			if v < 0 {
				out[i] = 0
			}
		}
	}
}
