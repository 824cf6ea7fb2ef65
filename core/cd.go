package core

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// LeastSquaresLoss is implemented by losses that are least squares,
// per client (c/n) Σᵢ (xᵢᵀw + b − yᵢ)²: the reference optimum of such a
// loss with an ℓ1 or elastic-net penalty is found by coordinate descent.
type LeastSquaresLoss interface {
	Loss
	// LeastSquares returns c and the blocks of l that hold w (matched with
	// the features in its row-major order) and the intercept b (hasBias
	// false: no intercept).
	LeastSquares(l Layout) (c float64, kernel, bias Block, hasBias bool)
}

// L1L2Regularizer is implemented by the separable regularizers
// ψ₁(w) = l1·‖w‖₁ + (l2/2)·‖w‖²₂ on the regularized blocks (ℓ1, elastic
// net), whose one-coordinate problems coordinate descent solves exactly.
type L1L2Regularizer interface {
	Regularizer
	// L1L2 returns the weights l1, l2 ≥ 0 of ψ₁.
	L1L2() (l1, l2 float64)
}

// coordinateDescent is cyclic coordinate descent with an active set for
//
//	Φ(w, b) = Σᵢ aᵢ (xᵢᵀw + b − yᵢ)² + λ(l1‖w‖₁ + (l2/2)‖w‖²₂),
//
// aᵢ = c·p_m/n_m for sample i of client m, as in glmnet (Friedman, Hastie &
// Tibshirani 2010) and scikit-learn's Lasso: the "naive" updates keep the
// residual, so a sweep costs O(nonzeros) and nothing O(d²) is formed. The
// rows are scaled by √aᵢ once (x̃ᵢ = √aᵢ xᵢ, ỹᵢ = √aᵢ yᵢ, and the intercept
// is the unpenalized column √a), so Φ is an unweighted least-squares
// problem in the scaled residual r̃ = X̃w + b√a − ỹ.
type coordinateDescent struct {
	p                *Problem
	psi              Psi
	c                float64
	kernel, bias     Block
	hasBias          bool
	l1, l2           float64 // λ·l1 and λ·l2 of ψ
	n                int
	cols             columns
	sa, yt, r, h     []float64 // √a, ỹ, r̃, h_j = 2‖x̃_j‖² (curvature of coordinate j)
	hb               float64   // 2‖√a‖², the curvature of the intercept
	all, active      []int
	sumDelta, sumHDe float64 // Σδ² and Σ(h_j δ_j)² of the current sweep
}

// newCoordinateDescent returns the solver for p and psi when it applies: a
// LeastSquaresLoss whose layout is a regularized kernel over the features
// and at most an unregularized 1×1 intercept, and an L1L2Regularizer with
// finite weights ≥ 0. It does not touch the data (SolverFor calls it).
func newCoordinateDescent(p *Problem, psi Psi) (*coordinateDescent, bool) {
	ls, ok := p.Loss.(LeastSquaresLoss)
	if !ok {
		return nil, false
	}
	reg, ok := psi.Reg.(L1L2Regularizer)
	if !ok {
		return nil, false
	}
	c, kernel, bias, hasBias := ls.LeastSquares(p.Layout)
	l1, l2 := reg.L1L2()
	blocks := 1
	if hasBias {
		blocks = 2
		if bias.Regularized || bias.Size() != 1 {
			return nil, false
		}
	}
	if len(p.Layout.Blocks) != blocks || !kernel.Regularized || kernel.Size() != p.Data.Features ||
		!finiteNonNegative(c, l1, l2, psi.Lambda) {
		return nil, false
	}
	return &coordinateDescent{p: p, psi: psi, c: c, kernel: kernel, bias: bias, hasBias: hasBias,
		l1: psi.Lambda * l1, l2: psi.Lambda * l2}, true
}

// finiteNonNegative reports whether every x is finite and ≥ 0.
func finiteNonNegative(xs ...float64) bool {
	for _, x := range xs {
		if !(x >= 0) || math.IsInf(x, 1) {
			return false
		}
	}
	return true
}

// prepare builds the scaled columns and the curvatures, once per solve.
func (cd *coordinateDescent) prepare() {
	f := cd.p.Data
	weights := cd.p.ClientWeights()
	cd.n = f.Samples()
	cd.sa, cd.yt, cd.r = make([]float64, 0, cd.n), make([]float64, 0, cd.n), make([]float64, cd.n)
	for m, d := range f.Train {
		s := math.Sqrt(cd.c * weights[m] / float64(d.N))
		for _, y := range d.Y {
			cd.sa = append(cd.sa, s)
			cd.yt = append(cd.yt, s*y)
		}
	}
	cd.cols = newColumns(f, cd.sa)
	cd.h = make([]float64, f.Features)
	cd.all = make([]int, f.Features)
	for j := range cd.h {
		cd.h[j] = 2 * cd.cols.sumSq(j)
		cd.all[j] = j
	}
	cd.hb = 2 * floats.Dot(cd.sa, cd.sa)
}

// resetResidual recomputes r̃ = X̃w + b√a − ỹ from w, so that rounding in
// the running updates does not accumulate over sweeps.
func (cd *coordinateDescent) resetResidual(w []float64) {
	for i, y := range cd.yt {
		cd.r[i] = -y
	}
	if cd.hasBias {
		floats.AddScaled(cd.r, cd.bias.Of(w)[0], cd.sa)
	}
	for j, v := range cd.kernel.Of(w) {
		if v != 0 {
			cd.cols.addScaled(cd.r, v, j)
		}
	}
}

// sweep minimizes Φ exactly in the intercept and then in each coordinate of
// idx in turn, keeping r̃ current, and accumulates Σδ² and Σ(h_j δ_j)².
func (cd *coordinateDescent) sweep(w []float64, idx []int) {
	cd.sumDelta, cd.sumHDe = 0, 0
	if cd.hasBias {
		b := cd.bias.Of(w)
		delta := -2 * floats.Dot(cd.sa, cd.r) / cd.hb
		if delta != 0 {
			b[0] += delta
			floats.AddScaled(cd.r, delta, cd.sa)
			cd.sumDelta += delta * delta
			cd.sumHDe += cd.hb * cd.hb * delta * delta
		}
	}
	wk := cd.kernel.Of(w)
	for _, j := range idx {
		old, hj := wk[j], cd.h[j]
		// argmin_v ½h_j v² − (h_j old − g_j) v + l1|v| + (l2/2) v² with g_j = 2 x̃_jᵀr̃
		z := hj*old - 2*cd.cols.dot(j, cd.r)
		v := 0.0
		if den := hj + cd.l2; den > 0 {
			v = math.Copysign(max(math.Abs(z)-cd.l1, 0), z) / den
		}
		if delta := v - old; delta != 0 {
			wk[j] = v
			cd.cols.addScaled(cd.r, delta, j)
			cd.sumDelta += delta * delta
			cd.sumHDe += hj * hj * delta * delta
		}
	}
}

// support returns the kernel coordinates of w that are not zero.
func (cd *coordinateDescent) support(w []float64) []int {
	cd.active = cd.active[:0]
	for j, v := range cd.kernel.Of(w) {
		if v != 0 {
			cd.active = append(cd.active, j)
		}
	}
	return cd.active
}

// stallSweeps is the number of full sweeps without a new lowest
// certificate after which coordinate descent stops: the certificate is at
// its rounding floor.
const stallSweeps = 5

// solve runs coordinate descent from w0 (nil: zeros). A full sweep over
// every coordinate is followed by sweeps over its support until they change
// the gradient by less than a tenth of the tolerance (‖h∘δ‖₂ ≤
// Tol/10·max(1, ‖∇F‖₂)); the certificate is evaluated after every full
// sweep, which also resets the residual. Every sweep counts as one of
// s.MaxIters and checks s.Context.
func (cd *coordinateDescent) solve(w0 []float64, s SolveSettings) (*Reference, error) {
	cd.prepare()
	w := make([]float64, cd.p.Dim())
	if w0 != nil {
		copy(w, w0)
	}
	cert := newCertifier(cd.p)
	stop := func(iters int) error {
		if s.Context != nil && s.Context.Err() != nil {
			return fmt.Errorf("reference solve stopped at sweep %d: %w", iters, context.Cause(s.Context))
		}
		return nil
	}
	iters, stalled := 0, 0
	k, f, gnorm, change, best := math.Inf(1), 0.0, 0.0, math.Inf(1), math.Inf(1)
	certified := false
	for iters < s.MaxIters {
		if err := stop(iters + 1); err != nil {
			return nil, err
		}
		iters++
		norm := floats.Norm(w, 2)
		cd.resetResidual(w)
		cd.sweep(w, cd.all)
		change = math.Sqrt(cd.sumDelta) / math.Max(1, norm)
		k, f, gnorm = cert.at(cd.psi, w)
		certified = true
		if k < best {
			best, stalled = k, 0
		} else {
			stalled++
		}
		if k <= s.Tol || stalled >= stallSweeps {
			break
		}
		active := cd.support(w)
		for iters < s.MaxIters {
			if err := stop(iters + 1); err != nil {
				return nil, err
			}
			iters++
			certified = false
			norm := floats.Norm(w, 2)
			cd.sweep(w, active)
			change = math.Sqrt(cd.sumDelta) / math.Max(1, norm)
			if math.Sqrt(cd.sumHDe) <= s.Tol/10*math.Max(1, gnorm) {
				break
			}
		}
	}
	if !certified {
		k, f, _ = cert.at(cd.psi, w)
	}
	return &Reference{W: w, Objective: f + cd.psi.Value(w), Lambda: cd.psi.Lambda, Iters: iters,
		Change: change, Residual: k, Solver: SolverCD}, nil
}
