package losses

import (
	"math"
	"slices"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/gemm32"
)

// dense32 is the float32 dense part shared by cnnEval32 and mlpEval32:
// layers sizes[0] → … → sizes[L] (kernel in×out, bias, ReLU on all but the
// last) and a softmax cross-entropy output, over chunks of up to chunk rows.
// act[ℓ] holds layer ℓ's outputs (ℓ = 1..L; the last are the logits) and
// delta[ℓ] the loss gradient at its pre-activations; delta[0] receives the
// gradient at the input when the caller needs it.
type dense32 struct {
	name            string // the loss's name, for label errors
	sizes           []int
	kernels, biases []core.Block
	act, delta      [][]float32
	deltaT          []float32 // an input gradient transposed (layer input × rows), see backward
	z, gz           []float64 // one row's logits and their gradient, in float64
}

// newDense32 sizes the buffers for chunks of up to chunk rows; delta[0] is
// allocated if inputGrad.
func newDense32(loss string, sizes []int, kernels, biases []core.Block, chunk int, inputGrad bool) dense32 {
	L := len(sizes) - 1
	h := dense32{name: loss, sizes: sizes, kernels: kernels, biases: biases,
		act: make([][]float32, L+1), delta: make([][]float32, L+1),
		z: make([]float64, sizes[L]), gz: make([]float64, sizes[L])}
	if inputGrad {
		h.delta[0] = make([]float32, chunk*sizes[0])
	}
	if L > 1 || inputGrad {
		h.deltaT = make([]float32, min(chunk, transposedRows)*slices.Max(sizes[:L]))
	}
	for l := 1; l <= L; l++ {
		h.act[l] = make([]float32, chunk*sizes[l])
		h.delta[l] = make([]float32, chunk*sizes[l])
	}
	return h
}

// input is the m rows fed to layer l (1-based): in for l = 1.
func (h *dense32) input(in []float32, l, m int) []float32 {
	if l == 1 {
		return in[:m*h.sizes[0]]
	}
	return h.act[l-1][:m*h.sizes[l-1]]
}

// forward propagates the m rows in (m × sizes[0]) with the float32 model
// w32 and leaves the logits in act[L].
func (h *dense32) forward(g *gemm32.Gemm, w32, in []float32, m int) {
	L := len(h.sizes) - 1
	for l := 1; l <= L; l++ {
		rows, cols := h.sizes[l-1], h.sizes[l]
		out := h.act[l][:m*cols]
		g.Do(false, false, m, cols, rows, 1, h.input(in, l, m), rows, of32(h.kernels[l-1], w32), cols, 0, out, cols)
		b := of32(h.biases[l-1], w32)
		for r := 0; r < len(out); r += cols {
			row := out[r : r+cols]
			for k := range row {
				row[k] += b[k]
				if l < L {
					row[k] = max(0, row[k])
				}
			}
		}
	}
}

// loss returns the sum over the chunk's m rows, at batch positions start..
// of d's rows idx, of the softmax cross-entropy of the logits (in float64),
// and if grad leaves scale times its gradient in delta[L].
func (h *dense32) loss(d *core.Data, idx []int, start, m int, scale float64, grad bool) float64 {
	K := h.sizes[len(h.sizes)-1]
	logits, dl := h.act[len(h.sizes)-1], h.delta[len(h.sizes)-1]
	sum := 0.0
	for r := range m {
		for k, v := range logits[r*K : (r+1)*K] {
			h.z[k] = float64(v)
		}
		var g []float64
		if grad {
			g = h.gz
		}
		sum += softmaxCrossEntropy(h.z, classIndex(h.name, d.Y[mlpRow(idx, start+r)], K), g, scale)
		for k, v := range g {
			dl[r*K+k] = float32(v)
		}
	}
	return sum
}

// backward adds the chunk's gradient to g32, starting from delta[L], and
// leaves the gradient at the input in delta[0] if it was allocated.
func (h *dense32) backward(g *gemm32.Gemm, w32, g32, in []float32, m int) {
	for l := len(h.sizes) - 1; l >= 1; l-- {
		rows, cols := h.sizes[l-1], h.sizes[l]
		a := h.input(in, l, m)
		dl := h.delta[l][:m*cols]
		g.Do(true, false, rows, cols, m, 1, a, rows, dl, cols, 1, of32(h.kernels[l-1], g32), cols)
		addColumnSums32(of32(h.biases[l-1], g32), dl)
		if l == 1 && h.delta[0] == nil {
			break
		}
		prev := h.delta[l-1][:m*rows]
		if m <= transposedRows {
			// prevᵀ = W·dlᵀ reads W in place where dl·Wᵀ packs all of it
			// for a few rows; each entry is the same sum over the layer's
			// outputs (gemm32's depth blocks depend on that depth alone).
			t := h.deltaT[:rows*m]
			g.Do(false, true, rows, m, cols, 1, of32(h.kernels[l-1], w32), cols, dl, cols, 0, t, m)
			for r := range m {
				for i := range prev[r*rows : (r+1)*rows] {
					prev[r*rows+i] = t[i*m+r]
				}
			}
		} else {
			g.Do(false, true, m, rows, cols, 1, dl, cols, of32(h.kernels[l-1], w32), cols, 0, prev, rows)
		}
		if l > 1 {
			for i, v := range a {
				if v <= 0 {
					prev[i] = 0
				}
			}
		}
	}
}

// transposedRows is the largest chunk whose input gradients backward
// computes transposed: for a few rows, packing the transposed kernel
// costs more than the product. Either way gives the same bits (tests set
// it to 0 to compare the two ways).
var transposedRows = 32

// correct counts the chunk's rows (batch positions start.. of all rows of
// d) whose label is the class of largest logit (the first one on ties).
func (h *dense32) correct(d *core.Data, start, m int) int {
	K := h.sizes[len(h.sizes)-1]
	n := 0
	for r := range m {
		z := h.act[len(h.sizes)-1][r*K : (r+1)*K]
		best := 0
		for k, v := range z {
			if v > z[best] {
				best = k
			}
		}
		if best == classIndex(h.name, d.Y[start+r], K) {
			n++
		}
	}
	return n
}

// addColumnSums32 adds the column sums of the matrix x (rows of len(sum)
// values) to sum, row after row.
func addColumnSums32(sum, x []float32) {
	for r := 0; r < len(x); r += len(sum) {
		gemm32.AddTo(sum, x[r:r+len(sum)])
	}
}

// of32 is block b of the float32 vector w (core.Block.Of for float32).
func of32(b core.Block, w []float32) []float32 { return w[b.Offset : b.Offset+b.Size()] }

// net32 is a float32 network evaluated a chunk of rows at a time: the CNN
// and the MLP share the driver below and differ in these steps.
type net32 interface {
	load(w []float64)                                      // the model, rounded to float32
	input(d *core.Data, idx []int, start, m int) []float32 // a chunk's rows, rounded to float32
	forward(x []float32, m int)                            // the chunk's logits, into the head
	backward(x []float32, m int)                           // adds the chunk's gradient to the float32 gradient
	store(grad []float64)                                  // the float32 gradient, written to grad
	parts() (head *dense32, g32 []float32)
}

// evalChunks is the mean loss of net over the rows idx of d (all rows if
// idx is nil), chunk rows at a time, with its gradient written to grad
// (the first dim entries) when grad is not nil; 0 and a zero gradient with
// no rows.
func evalChunks(net net32, w []float64, d *core.Data, idx []int, grad []float64, dim, chunk int) float64 {
	if grad != nil {
		clear(grad[:dim])
	}
	n := rows(d, idx)
	if n == 0 {
		return 0
	}
	head, g32 := net.parts()
	net.load(w)
	clear(g32)
	inv := 1 / float64(n)
	sum := 0.0
	for start := 0; start < n; start += chunk {
		m := min(chunk, n-start)
		x := net.input(d, idx, start, m)
		net.forward(x, m)
		sum += head.loss(d, idx, start, m, inv, grad != nil)
		if grad != nil {
			net.backward(x, m)
		}
	}
	if grad != nil {
		net.store(grad)
	}
	return sum * inv
}

// accuracyChunks is the fraction of rows of d that net classifies
// correctly, chunk rows at a time; NaN if d has no rows.
func accuracyChunks(net net32, w []float64, d *core.Data, chunk int) float64 {
	if d.N == 0 {
		return math.NaN()
	}
	head, _ := net.parts()
	net.load(w)
	correct := 0
	for start := 0; start < d.N; start += chunk {
		m := min(chunk, d.N-start)
		net.forward(net.input(d, nil, start, m), m)
		correct += head.correct(d, start, m)
	}
	return float64(correct) / float64(d.N)
}
