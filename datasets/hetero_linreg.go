package datasets

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/fedlab/fedlab/core"
)

// HeteroLinRegParams are the linear-regression generator's parameters.
type HeteroLinRegParams struct {
	heteroHead
	Samples int `param:"samples" min:"1" doc:"samples n per client (> dim): every client uses one shared whitened design"`
	heteroTail
	NoiseVar float64 `param:"noise_var" min:"0" doc:"variance σ₂² of the response noise"`
}

func init() {
	defineHetero("hetero_linreg",
		"Liang et al.'s heterogeneous sparse linear regression: y = ⟨x, w̃^m⟩ + e, x = (1, N(0, σ₁²I)), dense distinct w̃^m, "+
			"sparse w* = mean w̃^m; the training objective is exactly the population one (use loss squared{intercept = false})",
		HeteroLinRegParams{heteroHead: defaultHeteroHead, Samples: 1280, heteroTail: defaultHeteroTail, NoiseVar: 1},
		func(p HeteroLinRegParams) (heteroProblem, error) {
			return NewHeteroLinReg(heteroSpecOf(p.heteroHead, p.Samples, p.heteroTail), p.NoiseVar)
		})
}

// HeteroLinReg is the decentralized sparse linear regression of Liang,
// Peng & Zhang (Sec. 7, App. D.1.2; the authors' code for the constants).
// Feature 0 is the constant 1 (the bias, part of w and of its support) and
// the others are N(0, σ₁²); client m's responses are y = ⟨x, w̃^m⟩ + e,
// e ~ N(0, σ₂²). The client optima are w̃^m_j = b_j + scale·N(0, 1) on the
// support j < s and scale·(D_jm − 1/M), (D_j·) ~ Dirichlet(1_M), off it
// (mode "random"), so they are dense and distinct while their average
// w* = (1/M) Σ_m w̃^m is s-sparse (Lemma D.1).
//
// The data make the paper's population objective exact: all clients share
// one n×d design X whitened so that XᵀX/n = diag(1, σ₁²I) exactly, and each
// client's noise is orthogonal to the columns of X with ‖e‖²/n = σ₂². Then
// the training loss with squared{half = true, intercept = false} is
//
//	F(w) = ½(σ₂² + (1/M) Σ_m [(w̃^m_0 − w_0)² + σ₁²‖w̃^m_{1:} − w_{1:}‖²])
//
// (eq. (47)), minimized exactly at w*, and stochastic gradients still come
// from sampled rows. The dataset's truth is w*.
type HeteroLinReg struct {
	Hetero
	CovVar   float64
	NoiseVar float64
}

// NewHeteroLinReg generates the problem.
func NewHeteroLinReg(s heteroSpec, noiseVar float64) (*HeteroLinReg, error) {
	d, n, M := s.Dim, s.Samples, s.Clients
	if err := s.check(false); err != nil {
		return nil, err
	}
	if n <= d {
		return nil, fmt.Errorf("samples (%d) must exceed dim (%d): the whitened design needs n > d", n, d)
	}
	if s.CovVar <= 0 {
		return nil, fmt.Errorf("covariate_var must be > 0")
	}
	h := &HeteroLinReg{Hetero: Hetero{Optima: make([][]float64, M), Optimum: make([]float64, d)}, CovVar: s.CovVar, NoiseVar: noiseVar}
	b := s.base()
	rng := newRNG(s.Seed, 0x11e0)
	for m := range h.Optima {
		h.Optima[m] = make([]float64, d)
	}
	for j := range d {
		var dir []float64
		if j >= s.Support && s.Mode == "random" {
			dir = SampleDirichlet(rng, 1, M)
		}
		for m, w := range h.Optima {
			sgn := 1.0
			if m >= M/2 {
				sgn = -1
			}
			switch {
			case j < s.Support && s.Mode == "random":
				w[j] = b[j] + s.Scale*rng.NormFloat64()
			case j < s.Support:
				w[j] = b[j] + sgn*s.Scale
			case s.Mode == "random":
				w[j] = s.Scale * (dir[m] - 1/float64(M))
			default:
				w[j] = sgn * s.Scale
			}
		}
	}
	for j := range s.Support { // off the support the average is 0 (up to rounding)
		for _, w := range h.Optima {
			h.Optimum[j] += w[j] / float64(M)
		}
	}
	X, err := whitenedDesign(newRNG(s.Seed, 0x11e1), n, d, s.CovVar)
	if err != nil {
		return nil, err
	}
	f := &core.Federated{
		Name:     fmt.Sprintf("hetero_linreg (d=%d, s=%d, M=%d, n=%d)", d, s.Support, M, n),
		Train:    make([]*core.Data, M),
		Features: d,
		Truth:    &core.Truth{Weights: append([]float64(nil), h.Optimum...)},
	}
	for m, w := range h.Optima {
		e := orthogonalNoise(newRNG(s.Seed, 0x11e2+uint64(m)), X, n, d, s.CovVar, noiseVar)
		y := make([]float64, n)
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: n, Cols: d, Stride: d, Data: X}, blas64.Vector{N: d, Inc: 1, Data: w},
			0, blas64.Vector{N: n, Inc: 1, Data: y})
		for i := range y {
			y[i] += e[i]
		}
		f.Train[m] = &core.Data{X: X, Y: y, N: n, Features: d}
	}
	h.Data = f
	return h, f.Check()
}

// Objective is the closed form (47) of the population (and training)
// objective at w.
func (h *HeteroLinReg) Objective(w []float64) float64 {
	s := 0.0
	for _, wt := range h.Optima {
		s += (wt[0] - w[0]) * (wt[0] - w[0])
		for j := 1; j < len(w); j++ {
			s += h.CovVar * (wt[j] - w[j]) * (wt[j] - w[j])
		}
	}
	return 0.5 * (h.NoiseVar + s/float64(len(h.Optima)))
}

// whitenedDesign returns an n×d row-major design whose column 0 is 1 and
// whose other columns are centred Gaussian columns orthogonalized (twice,
// CholeskyQR2) and scaled so that XᵀX/n = diag(1, σ₁²I).
func whitenedDesign(rng interface{ NormFloat64() float64 }, n, d int, covVar float64) ([]float64, error) {
	X := make([]float64, n*d)
	for i := range n {
		X[i*d] = 1
		for j := 1; j < d; j++ {
			X[i*d+j] = rng.NormFloat64()
		}
	}
	for j := 1; j < d; j++ {
		mean := 0.0
		for i := range n {
			mean += X[i*d+j]
		}
		mean /= float64(n)
		for i := range n {
			X[i*d+j] -= mean
		}
	}
	g := blas64.General{Rows: n, Cols: d - 1, Stride: d, Data: X[1:]} // columns 1..d−1
	k := d - 1
	for range 2 {
		gram := blas64.Symmetric{Uplo: blas.Upper, N: k, Stride: k, Data: make([]float64, k*k)}
		blas64.Syrk(blas.Trans, 1, g, 0, gram) // GᵀG
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(k, gram.Data)) {
			return nil, fmt.Errorf("hetero_linreg: the Gaussian design is rank deficient (n = %d, d = %d)", n, d)
		}
		var u mat.TriDense
		ch.UTo(&u)
		blas64.Trsm(blas.Right, blas.NoTrans, 1, u.RawTriangular(), g) // G ← G U⁻¹, so GᵀG = I
	}
	f := math.Sqrt(covVar * float64(n))
	for i := range n {
		for j := 1; j < d; j++ {
			X[i*d+j] *= f
		}
	}
	return X, nil
}

// orthogonalNoise returns e with Xᵀe = 0 and ‖e‖²/n = noiseVar, from a
// Gaussian vector projected (twice) off the columns of X, for which
// XᵀX = n·diag(1, σ₁²I).
func orthogonalNoise(rng interface{ NormFloat64() float64 }, X []float64, n, d int, covVar, noiseVar float64) []float64 {
	e := make([]float64, n)
	if noiseVar == 0 {
		return e
	}
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	gx := blas64.General{Rows: n, Cols: d, Stride: d, Data: X}
	t := make([]float64, d)
	for range 2 {
		blas64.Gemv(blas.Trans, 1/float64(n), gx, blas64.Vector{N: n, Inc: 1, Data: e}, 0, blas64.Vector{N: d, Inc: 1, Data: t})
		for j := 1; j < d; j++ {
			t[j] /= covVar
		}
		blas64.Gemv(blas.NoTrans, -1, gx, blas64.Vector{N: d, Inc: 1, Data: t}, 1, blas64.Vector{N: n, Inc: 1, Data: e})
	}
	norm := 0.0
	for _, v := range e {
		norm += v * v
	}
	f := math.Sqrt(noiseVar * float64(n) / norm)
	for i := range e {
		e[i] *= f
	}
	return e
}
