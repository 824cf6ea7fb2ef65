package losses

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// sparseFixture draws n rows of dimension f with about nnz nonzeros each and
// labels for the given number of classes (0: regression).
func sparseFixture(n, f, nnz, classes int, seed uint64) *core.Data {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := make([]float64, n*f)
	y := make([]float64, n)
	for i := range n {
		for range nnz {
			x[i*f+rng.IntN(f)] = rng.NormFloat64()
		}
		if classes == 0 {
			y[i] = rng.NormFloat64()
		} else {
			y[i] = float64(rng.IntN(classes))
		}
	}
	return &core.Data{X: x, Y: y, N: n, Features: f}
}

// TestSparseLossesEqualDense checks, for every loss with a sparse path, that
// the loss and gradient on CSR data equal those on the same dense data
// (full batch and minibatch), and that EvalSparse gives the same gradient on
// the support Support reports and nothing outside it.
func TestSparseLossesEqualDense(t *testing.T) {
	const n, f = 40, 300
	cases := []struct {
		name    string
		loss    core.Loss
		classes int
	}{
		{"squared", Squared{Half: true, Intercept: true}, 0},
		{"logistic", Logistic{Intercept: true}, 2},
		{"multinomial", Multinomial{Bias: true}, 4},
		{"multinomial-nobias", Multinomial{}, 3},
	}
	for _, tc := range cases {
		dense := sparseFixture(n, f, 6, tc.classes, 3)
		sp := dense.ToSparse()
		fed := &core.Federated{Name: tc.name, Train: []*core.Data{sp}, Features: f, Classes: tc.classes}
		lay, err := tc.loss.Layout(fed)
		if err != nil {
			t.Fatal(err)
		}
		dim := lay.Dim()
		rng := rand.New(rand.NewPCG(5, 5))
		w := make([]float64, dim)
		for i := range w {
			w[i] = 0.3 * rng.NormFloat64()
		}
		ev := tc.loss.NewEvaluator(lay)
		for _, idx := range [][]int{nil, {3, 17, 17, 39, 0}} {
			gd, gs := make([]float64, dim), make([]float64, dim)
			vd := ev.Eval(w, dense, idx, gd)
			vs := ev.Eval(w, sp, idx, gs)
			if !nearRel(vd, vs) {
				t.Errorf("%s idx=%v: loss dense %g sparse %g", tc.name, idx, vd, vs)
			}
			for j := range gd {
				if !nearRel(gd[j], gs[j]) {
					t.Fatalf("%s idx=%v: grad[%d] dense %g sparse %g", tc.name, idx, j, gd[j], gs[j])
				}
			}
			se := ev.(core.SparseEvaluator)
			g := core.NewIndexed()
			g.Touch(0) // a stale entry from an earlier batch must go
			g.Val[0] = 123
			g.Reset()
			se.Support(sp, idx, g)
			for s, j := range g.Idx {
				g.At[s] = w[j]
			}
			vi := se.EvalSparse(sp, idx, g)
			if !nearRel(vd, vi) {
				t.Errorf("%s idx=%v: EvalSparse loss %g, dense %g", tc.name, idx, vi, vd)
			}
			got := make([]float64, dim)
			for s, j := range g.Idx {
				got[j] = g.Val[s]
			}
			for j := range gd {
				if g.Slot(j) < 0 && gd[j] != 0 {
					t.Fatalf("%s idx=%v: gradient %g at %d outside the reported support", tc.name, idx, gd[j], j)
				}
				if !nearRel(gd[j], got[j]) {
					t.Fatalf("%s idx=%v: EvalSparse grad[%d] = %g, dense %g", tc.name, idx, j, got[j], gd[j])
				}
			}
		}
		if p, ok := ev.(core.Predictor); ok {
			if a, b := p.Accuracy(w, dense), p.Accuracy(w, sp); a != b {
				t.Errorf("%s: accuracy dense %g sparse %g", tc.name, a, b)
			}
		}
	}
}

// TestDenseOnlyLossesRefuseSparseData checks the error of losses without a
// sparse path.
func TestDenseOnlyLossesRefuseSparseData(t *testing.T) {
	sp := sparseFixture(5, 4, 2, 2, 1).ToSparse()
	fed := &core.Federated{Name: "s", Train: []*core.Data{sp}, Features: 4, Classes: 2}
	for _, l := range []core.Loss{MLP{Hidden: []int{3}}, Quadratic{}} {
		if _, err := l.Layout(fed); err == nil || !strings.Contains(err.Error(), `format = "dense"`) {
			t.Errorf("%T on sparse data: err = %v", l, err)
		}
	}
}

func nearRel(a, b float64) bool { return math.Abs(a-b) <= 1e-12*(1+math.Abs(a)+math.Abs(b)) }
