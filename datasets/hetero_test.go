package datasets

import (
	"math"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules/sched"
)

func heteroTestSpec(d, n int) heteroSpec {
	return heteroSpec{Dim: d, Support: 8, Clients: 8, Samples: n, Scale: 5, Threshold: 1, CovVar: 1.5, Mode: "random", Seed: 3}
}

func unregularized(t *testing.T, f *core.Federated, loss core.Loss) *core.Problem {
	t.Helper()
	p, err := core.NewProblem(f, loss, core.Penalty{Name: "none", Reg: regularizers.None{}, Lambda: sched.Constant(1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHeteroLinRegIsExact: the design is whitened exactly, the optima are
// dense with a sparse average, the training objective equals the closed
// form (47) everywhere, and its minimizer (core.Solve) is w*.
func TestHeteroLinRegIsExact(t *testing.T) {
	const d, n = 64, 96
	for _, mode := range []string{"random", "all_one"} {
		s := heteroTestSpec(d, n)
		s.Mode = mode
		h, err := NewHeteroLinReg(s, 0.7)
		if err != nil {
			t.Fatal(err)
		}
		X := h.Data.Train[0].X
		for a := range d {
			for b := range d {
				g := 0.0
				for i := range n {
					g += X[i*d+a] * X[i*d+b]
				}
				want := 0.0
				switch {
				case a == b && a == 0:
					want = 1
				case a == b:
					want = s.CovVar
				}
				if math.Abs(g/n-want) > 1e-12 {
					t.Fatalf("%s: (XᵀX/n)[%d][%d] = %g, want %g", mode, a, b, g/n, want)
				}
			}
		}
		for j := range d {
			nonzero := 0
			for _, w := range h.Optima {
				if w[j] != 0 {
					nonzero++
				}
			}
			if nonzero != s.Clients {
				t.Fatalf("%s: coordinate %d is zero at some client optimum", mode, j)
			}
			if j >= s.Support && h.Optimum[j] != 0 {
				t.Fatalf("%s: w*[%d] = %g off the support", mode, j, h.Optimum[j])
			}
		}
		p := unregularized(t, h.Data, losses.Squared{Half: true})
		ev := p.Loss.NewEvaluator(p.Layout)
		rng := newRNG(9, 9)
		for range 5 {
			w := make([]float64, d)
			for i := range w {
				w[i] = 3 * rng.NormFloat64()
			}
			got, want := p.Smooth(ev, w, false, nil, nil), h.Objective(w)
			if math.Abs(got-want) > 1e-10*want {
				t.Fatalf("%s: training objective %.15g, closed form %.15g", mode, got, want)
			}
		}
		ref, err := p.Reference()
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range ref.W {
			if math.Abs(v-h.Optimum[j]) > 1e-8 {
				t.Fatalf("%s: FISTA optimum differs from w* at %d: %g vs %g", mode, j, v, h.Optimum[j])
			}
		}
		if math.Abs(ref.Objective-h.Objective(h.Optimum)) > 1e-10 {
			t.Fatalf("%s: optimal value %g, closed form %g", mode, ref.Objective, h.Objective(h.Optimum))
		}
	}
	if _, err := NewHeteroLinReg(heteroTestSpec(64, 64), 1); err == nil {
		t.Fatal("n = d was accepted")
	}
}

// TestHeteroLogRegOptimumIsSparse: the paired clients make the empirical
// optimum vanish off the support; the truth is the solver's optimum and
// has zero gradient.
func TestHeteroLogRegOptimumIsSparse(t *testing.T) {
	s := heteroTestSpec(40, 30)
	h, err := NewHeteroLogReg(s, 1e-12)
	if err != nil {
		t.Fatal(err)
	}
	for j := range s.Support {
		if h.Optimum[j] == 0 {
			t.Fatalf("w*[%d] = 0 on the support", j)
		}
	}
	for m := range s.Clients / 2 {
		a, b := h.Optima[m], h.Optima[m+s.Clients/2]
		for j := range a {
			if (j < s.Support && a[j] != b[j]) || (j >= s.Support && a[j] != -b[j]) {
				t.Fatalf("clients %d and %d are not paired as (α, ±β)", m, m+s.Clients/2)
			}
		}
	}
	p := unregularized(t, h.Data, losses.Logistic{})
	free, err := core.Solve(p, p.Penalty.At(0, p.Layout), nil, core.SolveSettings{Tol: 1e-12, MaxIters: 100000})
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range free.W {
		want := 0.0
		if j < s.Support {
			want = h.Optimum[j]
		}
		if math.Abs(v-want) > 1e-6 {
			t.Fatalf("unrestricted optimum differs from the sparse truth at %d: %g vs %g", j, v, want)
		}
	}
	g, scratch := make([]float64, s.Dim), make([]float64, s.Dim)
	p.Smooth(p.Loss.NewEvaluator(p.Layout), h.Optimum, false, g, scratch)
	for j, v := range g {
		if math.Abs(v) > 1e-9 {
			t.Fatalf("gradient at the truth: [%d] = %g", j, v)
		}
	}
}
