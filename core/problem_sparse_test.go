package core_test

import (
	"math"
	"testing"

	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/datasets"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
)

// TestSmoothSparseEqualsDense: the full gradient of sparse clients (O(nnz)
// path) equals that of the same data stored densely.
func TestSmoothSparseEqualsDense(t *testing.T) {
	var grads [2][]float64
	var vals [2]float64
	for k, format := range []string{"dense", "sparse"} {
		f, err := registry.Build[*core.Federated](registry.Dataset, "sparse_federated", map[string]any{
			"dim": 200, "clients": 5, "samples": 7, "nnz": 6, "task": "classification", "format": format})
		if err != nil {
			t.Fatal(err)
		}
		pen, err := registry.Build[core.Penalty](registry.Regularizer, "l1", map[string]any{"lambda": 0.1})
		if err != nil {
			t.Fatal(err)
		}
		p, err := core.NewProblem(f, losses.Logistic{Intercept: true}, pen, nil)
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, p.Dim())
		for i := range w {
			w[i] = math.Sin(float64(i))
		}
		grads[k] = make([]float64, p.Dim())
		vals[k] = p.Smooth(p.Loss.NewEvaluator(p.Layout), w, false, grads[k], make([]float64, p.Dim()))
	}
	if math.Abs(vals[0]-vals[1]) > 1e-13 {
		t.Errorf("loss dense %g sparse %g", vals[0], vals[1])
	}
	for i := range grads[0] {
		if math.Abs(grads[0][i]-grads[1][i]) > 1e-13 {
			t.Fatalf("grad[%d]: dense %g sparse %g", i, grads[0][i], grads[1][i])
		}
	}
}
