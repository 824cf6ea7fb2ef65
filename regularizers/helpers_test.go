package regularizers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/core"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// testLayout has a tall and a wide regularized block around an unregularized
// bias, so offset mistakes and bias handling both show.
func testLayout() core.Layout {
	return core.NewLayout(
		core.Block{Name: "kernel", Rows: 4, Cols: 3, Regularized: true},
		core.Block{Name: "bias", Rows: 1, Cols: 3},
		core.Block{Name: "kernel2", Rows: 2, Cols: 5, Regularized: true},
	)
}

// smallLayout is small enough for derivative-free brute force.
func smallLayout() core.Layout {
	return core.NewLayout(
		core.Block{Name: "kernel", Rows: 2, Cols: 2, Regularized: true},
		core.Block{Name: "bias", Rows: 1, Cols: 1},
	)
}

// nuclear2x2 is the nuclear norm of smallLayout's 2×2 kernel (w[:4]):
// σ₁ + σ₂ = √(‖M‖²_F + 2|det M|), as (σ₁ + σ₂)² = σ₁² + σ₂² + 2σ₁σ₂ with
// σ₁σ₂ = |det M|; the bias is not regularized.
func nuclear2x2(w []float64) float64 {
	a, b, c, d := w[0], w[1], w[2], w[3]
	return math.Sqrt(a*a + b*b + c*c + d*d + 2*math.Abs(a*d-b*c))
}

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

func randVec(rng *rand.Rand, n int, scale float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = scale * rng.NormFloat64()
	}
	return v
}

// sparsify zeroes about half of the entries, to exercise kinks.
func sparsify(rng *rand.Rand, v []float64) []float64 {
	for i := range v {
		if rng.IntN(2) == 0 {
			v[i] = 0
		}
	}
	return v
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func sub(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

func maxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// proxObjective is F(u) = ½‖u−z‖² + t·ψ₁(u), the function Prox minimizes.
func proxObjective(r core.Regularizer, u, z []float64, t float64, l core.Layout) float64 {
	d := sub(u, z)
	return 0.5*dot(d, d) + t*r.Value(u, l)
}

func prox(r core.Regularizer, z []float64, t float64, l core.Layout) []float64 {
	u := make([]float64, len(z))
	r.Prox(u, z, t, l)
	return u
}

// patternSearch minimizes f from x0 by derivative-free search along the
// coordinate axes and random directions with a shrinking step: a generic
// method that knows nothing about the regularizer. Before shrinking the step
// it tries many more random directions, since near a kink (x_i = 0, a rank
// drop) the cone of descent directions can be narrow.
func patternSearch(rng *rand.Rand, f func([]float64) float64, x0 []float64) []float64 {
	n := len(x0)
	x := append([]float64(nil), x0...)
	fx := f(x)
	y := make([]float64, n)
	d := make([]float64, n)
	// try moves x ± h·d along the k-th direction; true if one improved.
	try := func(h float64, k int) bool {
		clear(d)
		if k < n {
			d[k] = 1
		} else {
			nd := 0.0
			for i := range d {
				d[i] = rng.NormFloat64()
				nd += d[i] * d[i]
			}
			for i := range d {
				d[i] /= math.Sqrt(nd)
			}
		}
		improved := false
		for _, s := range []float64{h, -h} {
			for i := range y {
				y[i] = x[i] + s*d[i]
			}
			if fy := f(y); fy < fx {
				copy(x, y)
				fx, improved = fy, true
			}
		}
		return improved
	}
	for h := 1.0; h > 1e-11; {
		improved := false
		for k := 0; k < 2*n+60; k++ {
			improved = try(h, k) || improved
		}
		for k := 0; k < 3000 && !improved; k++ {
			improved = try(h, n+k)
		}
		if !improved {
			h /= 2
		}
	}
	return x
}

// matrix returns block b of w as a Dense copy.
func matrix(b core.Block, w []float64) *mat.Dense {
	return mat.NewDense(b.Rows, b.Cols, append([]float64(nil), b.Of(w)...))
}

// singularValues of a by gonum's SVD, descending.
func singularValues(a mat.Matrix) []float64 {
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDNone) {
		panic("SVD failed")
	}
	return svd.Values(nil)
}

// eigSingularValues of a (r ≥ c) via the eigenvalues of AᵀA, a path
// independent of mat.SVD but inaccurate (≈√ε) for tiny singular values;
// sorted descending.
func eigSingularValues(a mat.Matrix) []float64 {
	_, c := a.Dims()
	var ata mat.SymDense
	ata.SymOuterK(1, a.T())
	var eig mat.EigenSym
	if !eig.Factorize(&ata, false) {
		panic("eigen decomposition failed")
	}
	ev := eig.Values(nil) // ascending
	out := make([]float64, c)
	for i := range ev {
		out[c-1-i] = math.Sqrt(max(ev[i], 0))
	}
	return out
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// opNorm is the largest singular value.
func opNorm(a mat.Matrix) float64 { return singularValues(a)[0] }

// randOrthonormal returns an r×k matrix with orthonormal columns (k ≤ r).
func randOrthonormal(rng *rand.Rand, r, k int) *mat.Dense {
	a := mat.NewDense(r, r, randVec(rng, r*r, 1))
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, r, 0, k))
}

// withSingularValues returns U diag(s) Vᵀ with random orthonormal U (r×k)
// and V (c×k), k = len(s).
func withSingularValues(rng *rand.Rand, r, c int, s []float64) (a, u, v *mat.Dense) {
	k := len(s)
	u, v = randOrthonormal(rng, r, k), randOrthonormal(rng, c, k)
	var us, out mat.Dense
	us.Mul(u, mat.NewDiagDense(k, s))
	out.Mul(&us, v.T())
	return &out, u, v
}

func assertClose(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Errorf("%s = %.12g, want %.12g (tol %g)", what, got, want, tol)
	}
}

func norm1(x []float64) float64 { return floats.Norm(x, 1) }

func norm2(x []float64) float64 { return floats.Norm(x, 2) }
