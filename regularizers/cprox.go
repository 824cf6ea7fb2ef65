package regularizers

import (
	"math"

	"github.com/fedlab/fedlab/core"
	"gonum.org/v1/gonum/mat"
)

// L1 and Nuclear solve C-FedDA's constrained prox (core.ConstrainedProx).
var (
	_ core.ConstrainedProx = L1{}
	_ core.ConstrainedProx = Nuclear{}
)

// CProx solves the ℓ1 problem exactly. It separates by coordinate given the
// ball's multiplier β ≥ 0:
//
//	u_j(β) = argmin_x ½(x − z_j)² + t|x| + β|x − c_j|,
//
// a one-dimensional prox of a piecewise-linear function with kinks at 0 and
// c_j (closed form, see prox2). If the soft-thresholded point u(0) lies in
// the ball it is the answer; otherwise D(β) = ‖u(β) − c‖₁ is non-increasing
// and piecewise linear in β, D(β_max) = 0 for β_max = max_j|z_j − c_j| + t,
// and the β with D(β) = ε is found by a safeguarded secant search, exact on
// the last linear piece (see bisect). No allocation.
func (L1) CProx(dst, z, c []float64, t, eps float64, l core.Layout) {
	copyUnregularized(dst, z, l)
	if math.IsInf(eps, 1) {
		L1{}.Prox(dst, z, t, l)
		return
	}
	if eps <= 0 {
		for _, b := range l.Blocks {
			if b.Regularized {
				copy(b.Of(dst), b.Of(c))
			}
		}
		return
	}
	p := l1Ball{z: z, c: c, t: t, l: l}
	beta := 0.0
	if p.dist(0) > eps {
		hi := 0.0
		for _, b := range l.Blocks {
			if !b.Regularized {
				continue
			}
			zb, cb := b.Of(z), b.Of(c)
			for j, x := range zb {
				hi = max(hi, math.Abs(x-cb[j]))
			}
		}
		beta = p.bisect(hi+t, eps)
	}
	for _, b := range l.Blocks {
		if !b.Regularized {
			continue
		}
		db, zb, cb := b.Of(dst), b.Of(z), b.Of(c)
		for j, x := range zb {
			db[j] = prox2(x, cb[j], t, beta)
		}
	}
}

// l1Ball is one ℓ1 CProx problem, for the search on the multiplier.
type l1Ball struct {
	z, c []float64
	t    float64
	l    core.Layout
}

// dist is D(β) = ‖u(β) − c‖₁ over the regularized blocks.
func (p *l1Ball) dist(beta float64) float64 {
	s := 0.0
	for _, b := range p.l.Blocks {
		if !b.Regularized {
			continue
		}
		zb, cb := b.Of(p.z), b.Of(p.c)
		for j, x := range zb {
			s += math.Abs(prox2(x, cb[j], p.t, beta) - cb[j])
		}
	}
	return s
}

// bisect returns the multiplier β ∈ (0, hi] with D(β) = eps, for D
// non-increasing and piecewise linear with D(0) > eps ≥ D(hi) = 0. It keeps
// a bracket [lo, hi] with D(lo) > eps ≥ D(hi) and alternates secant steps,
// which land exactly on the root once both ends lie on its linear piece,
// with bisection steps, which guarantee the bracket shrinks. It stops at a β
// with eps·(1 − 1e-13) ≤ D(β) ≤ eps, or when the bracket is at machine
// precision; the returned β always satisfies D(β) ≤ eps·(1 + 1e-12).
func (p *l1Ball) bisect(hi, eps float64) float64 {
	lo, dlo, dhi := 0.0, p.dist(0), p.dist(hi)
	for k := range 400 {
		if hi-lo <= 1e-15*hi {
			break
		}
		b := lo + (hi-lo)/2
		if k%2 == 0 && dlo > dhi {
			if s := lo + (dlo-eps)*(hi-lo)/(dlo-dhi); s > lo && s < hi {
				b = s
			}
		}
		if b <= lo || b >= hi {
			break
		}
		d := p.dist(b)
		if d <= eps && d >= eps*(1-1e-13) {
			return b
		}
		if d > eps {
			lo, dlo = b, d
		} else {
			hi, dhi = b, d
		}
	}
	if dlo > dhi {
		b := lo + (dlo-eps)*(hi-lo)/(dlo-dhi)
		if b > lo && b < hi && p.dist(b) <= eps*(1+1e-12) {
			return b
		}
	}
	return hi
}

// prox2 returns argmin_x ½(x − u)² + θ|x| + β|x − a| for θ, β ≥ 0. With the
// kinks sorted as p1 ≤ p2 (0 and a, weights w1 and w2), the penalty's slope
// is s0 = −(w1+w2) left of p1, s1 = w1 − w2 between and s2 = w1 + w2 right
// of p2, so the minimizer is u − s on a linear piece and the kink itself
// where u − s would cross it.
func prox2(u, a, theta, beta float64) float64 {
	p1, w1, p2, w2 := 0.0, theta, a, beta
	if a < 0 {
		p1, w1, p2, w2 = a, beta, 0, theta
	}
	s0, s1, s2 := -(w1 + w2), w1-w2, w1+w2
	switch {
	case u < p1+s0:
		return u - s0
	case u <= p1+s1:
		return p1
	case u < p2+s1:
		return u - s1
	case u <= p2+s2:
		return p2
	}
	return u - s2
}

// copyUnregularized copies the unregularized blocks of z into dst.
func copyUnregularized(dst, z []float64, l core.Layout) {
	for _, b := range l.Blocks {
		if !b.Regularized {
			copy(b.Of(dst), b.Of(z))
		}
	}
}

// CProx solves the nuclear-norm problem (R = Σ over regularized blocks of
// the nuclear norm, one joint ball around c):
//
//   - If the singular value thresholding Prox(z, t) lies in the ball, it is
//     the answer (exact).
//   - If c is zero on every regularized block, the problem is one on the
//     singular values s of z: σ = max(s − t − β, 0) with β ≥ 0 fixed by
//     Σσ = ε, i.e. the ℓ1-ball projection of (s − t)₊ (exact, sort based).
//   - Otherwise the ball and the penalty have different singular vectors and
//     there is no closed form: the prox of t‖·‖_* + χ{‖· − c‖_* ≤ ε} is
//     computed by the Dykstra-like splitting of Bauschke & Combettes (2008),
//     alternating singular value thresholding and the exact projection on
//     the ball (an ℓ1-ball projection of the singular values of u − c),
//     until the two half-steps agree and the iterate moves by less than
//     1e-13 relative (at most 20000 iterations); the result is the last projection, so it is feasible.
//
// It allocates (SVDs); a block with NaN or Inf entries gives NaN.
func (Nuclear) CProx(dst, z, c []float64, t, eps float64, l core.Layout) {
	copyUnregularized(dst, z, l)
	if math.IsInf(eps, 1) {
		Nuclear{}.Prox(dst, z, t, l)
		return
	}
	if eps <= 0 {
		for _, b := range l.Regularized() {
			copy(b.Of(dst), b.Of(c))
		}
		return
	}
	n := len(z)
	u := make([]float64, n)
	Nuclear{}.Prox(u, z, t, l)
	if d, ok := nuclearDist(u, c, l); !ok || d <= eps {
		copyRegularized(dst, u, l)
		return
	}
	if isZeroOnRegularized(c, l) {
		thresholdJoint(dst, z, t, eps, l)
		return
	}
	// Dykstra-like proximal splitting for prox_{f+g}(z), f = t‖·‖_*,
	// g = χ_ball: y = P_g(x+p), p ← x+p−y, x' = prox_f(y+q), q ← y+q−x'.
	x := append([]float64(nil), z...)
	p := make([]float64, n)
	q := make([]float64, n)
	y := make([]float64, n)
	tmp := make([]float64, n)
	for range 20000 {
		for i := range tmp {
			tmp[i] = x[i] + p[i]
		}
		projectNuclearBall(y, tmp, c, eps, l)
		for i := range p {
			p[i] = tmp[i] - y[i]
			tmp[i] = y[i] + q[i]
		}
		Nuclear{}.Prox(u, tmp, t, l)
		// stop when x and y agree and x no longer moves (x alone can
		// stall for many iterations while p and q still change)
		move, size := 0.0, 0.0
		for i := range q {
			q[i] = tmp[i] - u[i]
			move = max(move, math.Abs(u[i]-x[i]), math.Abs(u[i]-y[i]))
			size = max(size, math.Abs(u[i]))
		}
		copy(x, u)
		if math.IsNaN(move) || move <= 1e-13*max(size, 1) {
			break
		}
	}
	for i := range tmp {
		tmp[i] = x[i] + p[i]
	}
	// the fixed point satisfies x = P_g(x + p); project once more so the
	// answer is exactly feasible.
	projectNuclearBall(y, tmp, c, eps, l)
	copyRegularized(dst, y, l)
}

// copyRegularized copies the regularized blocks of src into dst.
func copyRegularized(dst, src []float64, l core.Layout) {
	for _, b := range l.Regularized() {
		copy(b.Of(dst), b.Of(src))
	}
}

func isZeroOnRegularized(c []float64, l core.Layout) bool {
	for _, b := range l.Regularized() {
		for _, x := range b.Of(c) {
			if x != 0 {
				return false
			}
		}
	}
	return true
}

// nuclearDist returns Σ_b ‖u_b − c_b‖_* over the regularized blocks.
func nuclearDist(u, c []float64, l core.Layout) (float64, bool) {
	d := make([]float64, len(u))
	for _, b := range l.Regularized() {
		db, ub, cb := b.Of(d), b.Of(u), b.Of(c)
		for i := range db {
			db[i] = ub[i] - cb[i]
		}
	}
	v := Nuclear{}.Value(d, l)
	return v, !math.IsNaN(v)
}

// blockSVD is the thin SVD of one block and its singular values.
type blockSVD struct {
	b   core.Block
	svd *mat.SVD
	sig []float64
}

// svds factorizes the regularized blocks of w; false if one has NaN/Inf
// entries or the SVD fails.
func svds(w []float64, l core.Layout) ([]blockSVD, bool) {
	var out []blockSVD
	for _, b := range l.Regularized() {
		if b.Size() == 0 {
			continue
		}
		svd, ok := factorize(b, w, mat.SVDThin)
		if !ok {
			return nil, false
		}
		out = append(out, blockSVD{b: b, svd: svd, sig: svd.Values(nil)})
	}
	return out, true
}

// jointSimplex replaces the singular values of all blocks, viewed as one
// non-negative vector s, by the projection of s onto {‖σ‖₁ ≤ eps}.
func jointSimplex(parts []blockSVD, eps float64) {
	var all []float64
	for _, p := range parts {
		all = append(all, p.sig...)
	}
	projectL1(all, all, eps)
	k := 0
	for i := range parts {
		copy(parts[i].sig, all[k:k+len(parts[i].sig)])
		k += len(parts[i].sig)
	}
}

// thresholdJoint writes the CProx with centre 0: the singular values of z
// are soft-thresholded by t and then projected jointly on the ℓ1 ball.
func thresholdJoint(dst, z []float64, t, eps float64, l core.Layout) {
	parts, ok := svds(z, l)
	if !ok {
		for _, b := range l.Regularized() {
			fillNaN(b.Of(dst))
		}
		return
	}
	for _, p := range parts {
		for i, s := range p.sig {
			p.sig[i] = max(s-t, 0)
		}
	}
	jointSimplex(parts, eps)
	for _, p := range parts {
		writeUSV(p.b.Of(dst), p.b, p.svd, p.sig)
	}
}

// projectNuclearBall writes the projection of v onto {Σ_b ‖u_b − c_b‖_* ≤
// eps} (regularized blocks; the others are copied): c + the joint ℓ1-ball
// projection of the singular values of v − c.
func projectNuclearBall(dst, v, c []float64, eps float64, l core.Layout) {
	copyUnregularized(dst, v, l)
	d := make([]float64, len(v))
	for _, b := range l.Regularized() {
		db, vb, cb := b.Of(d), b.Of(v), b.Of(c)
		for i := range db {
			db[i] = vb[i] - cb[i]
		}
	}
	parts, ok := svds(d, l)
	if !ok {
		for _, b := range l.Regularized() {
			fillNaN(b.Of(dst))
		}
		return
	}
	jointSimplex(parts, eps)
	for _, p := range parts {
		out := p.b.Of(dst)
		writeUSV(out, p.b, p.svd, p.sig)
		cb := p.b.Of(c)
		for i := range out {
			out[i] += cb[i]
		}
	}
}
