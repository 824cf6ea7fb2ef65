package losses

import (
	"math"

	"github.com/fedlab/fedlab/core"
)

// net64 is a float64 network evaluated a chunk of rows at a time: the CNN
// and the MLP share the driver below (as their float32 paths share
// evalChunks and accuracyChunks) and differ in these steps.
type net64 interface {
	input(d *core.Data, idx []int, start, m int) []float64 // a chunk's rows, gathered if needed
	forward(w, x []float64, m int)                         // the chunk's logits, into logits()
	backward(w, x []float64, m int, grad []float64)        // adds the chunk's gradient to grad, from the logits' gradient
	logits() (z, dz []float64, classes int)                // the chunk's logits and their gradient, classes per row
	label(y float64) int                                   // a stored label's class index
}

// evalChunks64 is the mean loss of net over the rows idx of d (all rows if
// idx is nil), chunk rows at a time, with its gradient written to grad
// (the first dim entries) when grad is not nil; 0 and a zero gradient with
// no rows.
func evalChunks64(net net64, w []float64, d *core.Data, idx []int, grad []float64, dim, chunk int) float64 {
	if grad != nil {
		clear(grad[:dim])
	}
	n := rows(d, idx)
	if n == 0 {
		return 0
	}
	inv := 1 / float64(n)
	sum := 0.0
	for start := 0; start < n; start += chunk {
		m := min(chunk, n-start)
		x := net.input(d, idx, start, m)
		net.forward(w, x, m)
		logits, dl, K := net.logits()
		for r := range m {
			z := logits[r*K : (r+1)*K]
			c := net.label(d.Y[mlpRow(idx, start+r)])
			var g []float64
			if grad != nil {
				g = dl[r*K : (r+1)*K]
			}
			sum += softmaxCrossEntropy(z, c, g, inv)
		}
		if grad != nil {
			net.backward(w, x, m, grad)
		}
	}
	return sum * inv
}

// accuracyChunks64 is the fraction of rows of d whose label is the class
// of largest logit of net (the first one on ties), chunk rows at a time;
// NaN if d has no rows.
func accuracyChunks64(net net64, w []float64, d *core.Data, chunk int) float64 {
	if d.N == 0 {
		return math.NaN()
	}
	correct := 0
	for start := 0; start < d.N; start += chunk {
		m := min(chunk, d.N-start)
		net.forward(w, net.input(d, nil, start, m), m)
		logits, _, K := net.logits()
		for r := range m {
			z := logits[r*K : (r+1)*K]
			best := 0
			for k, v := range z {
				if v > z[best] {
					best = k
				}
			}
			if best == net.label(d.Y[start+r]) {
				correct++
			}
		}
	}
	return float64(correct) / float64(d.N)
}
