package losses

import (
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/gemm32"
)

// mlpEval32 evaluates an MLP (MLP.Float32) in float32 with gemm32, over
// chunks of mlpChunk rows. As in cnnEval32, precision is converted at the
// loss boundary only: the model and the chunk's rows are rounded to float32
// on entry, the gradient accumulated in float32 and written to grad as
// float64, and the softmax cross-entropy computed in float64 from the
// float32 logits. Buffers are sized on first use.
type mlpEval32 struct {
	mlp      *mlpEval // layout blocks, sizes and argument checks
	gemm     gemm32.Gemm
	w32, g32 []float32 // the model and the gradient being accumulated
	x        []float32 // a chunk's input rows
	head     dense32
}

// check checks the arguments (mlpEval.check) and sizes the buffers on
// first use.
func (e *mlpEval32) check(w []float64, d *core.Data, grad []float64) {
	e.mlp.check(w, d, grad)
	if e.x != nil {
		return
	}
	e.w32, e.g32 = make([]float32, e.mlp.dim), make([]float32, e.mlp.dim)
	e.x = make([]float32, mlpChunk*e.mlp.sizes[0])
	e.head = newDense32("mlp", e.mlp.sizes, e.mlp.kernels, e.mlp.biases, mlpChunk, false)
}

// load rounds the model to float32.
func (e *mlpEval32) load(w []float64) {
	gemm32.Round(e.w32, w[:e.mlp.dim])
}

// input rounds the m input rows of a chunk starting at position start of
// the batch (rows idx, or all rows if idx is nil) to float32.
func (e *mlpEval32) input(d *core.Data, idx []int, start, m int) []float32 {
	F := e.mlp.sizes[0]
	for r := range m {
		row32(e.x[r*F:(r+1)*F], d, mlpRow(idx, start+r))
	}
	return e.x[:m*F]
}

// forward computes the chunk's logits in the head.
func (e *mlpEval32) forward(x []float32, m int) { e.head.forward(&e.gemm, e.w32, x, m) }

// backward adds the chunk's gradient to g32.
func (e *mlpEval32) backward(x []float32, m int) { e.head.backward(&e.gemm, e.w32, e.g32, x, m) }

// store writes the float32 gradient to grad.
func (e *mlpEval32) store(grad []float64) {
	gemm32.Widen(grad, e.g32)
}

// parts returns the dense head and the float32 gradient (see net32).
func (e *mlpEval32) parts() (*dense32, []float32) { return &e.head, e.g32 }

// Eval returns the mean loss over the rows idx of d (all rows if idx is nil)
// and, if grad is not nil, overwrites grad with the gradient. With no rows
// it returns 0 and a zero gradient.
func (e *mlpEval32) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	e.check(w, d, grad)
	return evalChunks(e, w, d, idx, grad, e.mlp.dim, mlpChunk)
}

// Accuracy returns the fraction of rows of d whose label is the class of
// largest float32 logit (the first one on ties); NaN if d has no rows.
func (e *mlpEval32) Accuracy(w []float64, d *core.Data) float64 {
	e.check(w, d, nil)
	return accuracyChunks(e, w, d, mlpChunk)
}
