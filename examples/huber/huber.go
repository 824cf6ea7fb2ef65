// Package huber is the example loss of docs/library.md ("Your own fedlab
// binary"), kept compiling and tested here: the Huber loss of a linear
// model, registered as fedlab.loss.huber.
package huber

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// params declares the loss's parameter once, as a tagged field.
type params struct {
	Delta float64 `param:"delta" min:"0" doc:"where the loss turns from quadratic to linear (> 0)"`
}

func init() {
	registry.Define(registry.Loss, "huber", "Huber loss of a linear model: ½r² for |r| ≤ δ, δ(|r| − ½δ) beyond, r = xᵀw − y",
		params{Delta: 1}, func(p params) (core.Loss, error) {
			if !(p.Delta > 0) {
				return nil, fmt.Errorf("parameter \"delta\": want a number > 0, got %g", p.Delta)
			}
			return Huber{Delta: p.Delta}, nil
		})
}

// Huber is the Huber loss of xᵀw with residual r = xᵀw − y: ½r² for |r| ≤
// Delta, Delta·(|r| − ½Delta) beyond; its derivative in r is r clipped to
// [−Delta, Delta].
type Huber struct{ Delta float64 }

// Layout is one regularized kernel of a weight per feature.
func (h Huber) Layout(f *core.Federated) (core.Layout, error) {
	return core.NewLayout(core.Block{Name: "kernel", Rows: f.Features, Cols: 1, Regularized: true}), nil
}

// NewEvaluator returns the loss itself: it keeps no buffers.
func (h Huber) NewEvaluator(core.Layout) core.Evaluator { return h }

// Eval returns the mean loss over the rows idx of d (all if nil) and
// writes its gradient into grad (if not nil). Rows are read with Dot and
// AddRow, so dense, sparse and 8-bit data all work.
func (h Huber) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	if grad != nil {
		clear(grad)
	}
	n, sum := 0, 0.0
	visit := func(i int) {
		r := d.Dot(i, w) - d.Y[i]
		if math.Abs(r) <= h.Delta {
			sum += r * r / 2
		} else {
			sum += h.Delta * (math.Abs(r) - h.Delta/2)
		}
		if grad != nil {
			d.AddRow(grad, max(-h.Delta, min(h.Delta, r)), i)
		}
		n++
	}
	if idx == nil {
		for i := range d.N {
			visit(i)
		}
	} else {
		for _, i := range idx {
			visit(i)
		}
	}
	for j := range grad {
		grad[j] /= float64(n)
	}
	return sum / float64(n)
}
