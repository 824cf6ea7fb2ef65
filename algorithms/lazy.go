package algorithms

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
)

// Lazy local steps on sparse data. A minibatch of sparse rows reads and
// changes only the model coordinates of its nonzero features (and the
// bias); between two such touches a coordinate follows a fixed scalar map
// per step (a prox, a subgradient step or a constant tracker step), whose
// repeated application has a closed form. The lazy client updates below
// therefore do O(nnz of the batch) work per local step and O(d) work once
// per round (copying the broadcast, catching every coordinate up, writing
// the reply), and give the dense updates' results up to round-off (tested
// in lazy_test.go). They run when the client's data are sparse with an
// O(nnz) loss gradient, the mirror map is Euclidean (the p-norm map couples
// all coordinates through a norm) and the regularizer has the closed form
// the algorithm needs; otherwise the dense update runs. docs/sparse.md
// lists which steps are O(nnz).

// lazyProx returns the regularizer's repeated prox when a proximal client
// update can run lazily.
func lazyProx(rd *core.Round, c *core.Client) (core.RepeatedProx, bool) {
	if !c.SparseGradients() {
		return nil, false
	}
	if _, ok := rd.Mirror.(core.Euclidean); !ok {
		return nil, false
	}
	p, ok := rd.Psi.Reg.(core.RepeatedProx)
	return p, ok
}

// regularized reports whether coordinate j lies in a regularized block.
func regularized(l core.Layout, j int) bool {
	for _, b := range l.Blocks {
		if j >= b.Offset && j < b.Offset+b.Size() {
			return b.Regularized
		}
	}
	return false
}

// regSet tells whether a coordinate is regularized: a range check when the
// regularized blocks form one contiguous range (the usual kernel-then-bias
// layouts), the layout's blocks otherwise.
type regSet struct {
	lo, hi     int
	contiguous bool
	lay        core.Layout
}

// newRegSet prepares the regularized-coordinate test of layout lay.
func newRegSet(lay core.Layout) regSet {
	r := regSet{lo: -1, contiguous: true, lay: lay}
	for _, b := range lay.Blocks {
		switch {
		case !b.Regularized || b.Size() == 0:
		case r.lo < 0:
			r.lo, r.hi = b.Offset, b.Offset+b.Size()
		case b.Offset == r.hi:
			r.hi += b.Size()
		default:
			r.contiguous = false
		}
	}
	if r.lo < 0 {
		r.lo, r.hi = 0, 0
	}
	return r
}

// has reports whether coordinate j is regularized.
func (r regSet) has(j int) bool {
	if r.contiguous {
		return j >= r.lo && j < r.hi
	}
	return regularized(r.lay, j)
}

// touchBatch draws the client's next minibatch and resets g to its support.
func touchBatch(c *core.Client, g *core.Indexed) []int {
	idx := c.NextBatch()
	c.SupportOf(idx, g)
	return idx
}

// lazyClientUpdate is FedDualAvg's client update on sparse data. The reply
// vector holds the working dual z on the coordinates loaded so far (marked
// in the worker's core.Marks, loaded from the broadcast z_r at first touch)
// and 0 elsewhere, so a touched coordinate reads one model-sized array; the
// primal w_j = prox(z_j) at the current η̃ is retrieved only on the batch's
// coordinates. At the end the loaded coordinates become Δ_j = z_j − z_{r,j},
// the dense update's arithmetic.
func (a *FedDualAvg) lazyClientUpdate(rd *core.Round, c *core.Client, prox core.RepeatedProx, down, up *core.Message) {
	reg, lam := newRegSet(rd.Psi.Layout), rd.Psi.Lambda
	z0, z := down.Vecs[0], up.Vecs[0]
	clear(z)
	loaded := c.Marks()
	loaded.Clear()
	g := c.Indexed(0)
	eta := down.Scalars[0]
	for range c.Steps {
		idx := touchBatch(c, g)
		for s, j := range g.Idx {
			if loaded.Mark(j) {
				z[j] = z0[j]
			}
			g.At[s] = z[j]
		}
		if !a.OnlyServerProx {
			for s, j := range g.Idx {
				if reg.has(j) {
					g.At[s] = prox.ProxRepeat(g.At[s], eta*lam, 1)
				}
			}
		}
		c.SparseGradientOn(idx, g)
		for s, j := range g.Idx {
			z[j] -= a.c * g.Val[s]
		}
		eta += a.c
	}
	for _, j := range loaded.Touched {
		z[j] -= z0[j]
	}
	loaded.Clear()
	up.Scalars[0] = a.c * float64(c.Steps)
}

// lazyPrimalSteps runs a client's K steps w ← S(w − η·∇f(w)) from w0 on
// sparse data and writes w_K − w0 into dw. S is a scalar map of ψ per
// regularized coordinate (a prox or a subgradient step), and repeat(x, n)
// applies it n times in closed form; nil means no map (S = identity). The
// dense step applies S to every coordinate, so coordinate j, last updated
// after step Step, is caught up through the maps it skipped when the batch
// next reads it, and every coordinate at the end. The iterate and its step
// live together in the worker's core.StampedVec (one cache line per
// touched coordinate), loaded from w0 at first touch; coordinates never
// touched go from w0 to S^K(w0) in the final pass.
func lazyPrimalSteps(lay core.Layout, c *core.Client, eta float64, w0, dw []float64, repeat func(x float64, n int) float64) {
	st, g, reg := c.Stamped(), c.Indexed(0), newRegSet(lay)
	st.Begin()
	for k := range c.Steps {
		idx := touchBatch(c, g)
		st.Warm(g.Idx)
		for s, j := range g.Idx {
			e := st.Load(j, w0)
			if n := k - int(e.Step); n > 0 && repeat != nil && reg.has(j) {
				e.X = repeat(e.X, n)
			}
			g.At[s] = e.X
		}
		c.SparseGradientOn(idx, g)
		for s, j := range g.Idx {
			y := g.At[s] - eta*g.Val[s]
			if repeat != nil && reg.has(j) {
				y = repeat(y, 1)
			}
			e := st.At(j)
			e.X, e.Step = y, int32(k+1)
		}
	}
	K := c.Steps
	if repeat == nil || K == 0 {
		floats.SubTo(dw, w0, w0)
	} else {
		for j, x := range w0 {
			if reg.has(j) {
				dw[j] = repeat(x, K) - x
			} else {
				dw[j] = x - x
			}
		}
	}
	for _, j := range st.Touched {
		x := st.At(j).X
		if n := K - int(st.At(j).Step); n > 0 && repeat != nil && reg.has(j) {
			x = repeat(x, n)
		}
		dw[j] = x - w0[j]
	}
}

// lazyClientUpdate is FedMiD's client update on sparse data: the steps of
// lazyPrimalSteps with S the prox of η_c·λψ (none with OnlyServerProx).
func (a *FedMiD) lazyClientUpdate(rd *core.Round, c *core.Client, prox core.RepeatedProx, down, up *core.Message) {
	var repeat func(float64, int) float64
	if !a.OnlyServerProx {
		t := a.c * rd.Psi.Lambda
		repeat = func(x float64, n int) float64 { return prox.ProxRepeat(x, t, n) }
	}
	lazyPrimalSteps(rd.Psi.Layout, c, a.c, down.Vecs[0], up.Vecs[0], repeat)
	up.Scalars[0] = a.c * float64(c.Steps)
}

// lazyClientUpdate is FedAvg's client update on sparse data. Plain FedAvg
// (step nil) leaves untouched coordinates unchanged; FedAvg(∂) applies the
// skipped subgradient steps of η_c·λψ in closed form (lazyPrimalSteps).
func (a *FedAvg) lazyClientUpdate(rd *core.Round, c *core.Client, step core.RepeatedSubgradient, down, up *core.Message) {
	var repeat func(float64, int) float64
	if step != nil {
		t := a.c * rd.Psi.Lambda
		repeat = func(x float64, n int) float64 { return step.SubgradientRepeat(x, t, n) }
	}
	lazyPrimalSteps(rd.Psi.Layout, c, a.c, down.Vecs[0], up.Vecs[0], repeat)
}

// lazyStep reports whether FedAvg's client update can run lazily, and
// FedAvg(∂)'s closed-form subgradient steps (nil for plain FedAvg).
func (a *FedAvg) lazyStep(rd *core.Round, c *core.Client) (core.RepeatedSubgradient, bool) {
	if !c.SparseGradients() {
		return nil, false
	}
	if !a.Subgradient {
		return nil, true
	}
	s, ok := rd.Psi.Reg.(core.RepeatedSubgradient)
	return s, ok
}

// lazyClientUpdate is DFedDA's (and DFedDA-GT's) node update on sparse
// data. Without tracking, z changes only on the batch's coordinates. With
// tracking, every step also moves z by −η_c c^m (the tracker is dense but
// fixed within the round), so a coordinate skipped n steps is caught up by
// −n·η_c·c^m_j, and the tracker's share of Σ_k g_k is added once at the end.
func (a *DFedDA) lazyClientUpdate(rd *core.Round, c *core.Client, prox core.RepeatedProx, up *core.Message) {
	m := c.ID
	reg, lam := newRegSet(rd.Psi.Layout), rd.Psi.Lambda
	z, acc := c.Vec(0), c.Vec(3)
	g, last, seen := c.Indexed(0), c.Counters(0), c.Counters(1)
	z0, y := a.z[m], a.track[m]
	copy(z, z0)
	if a.Tracking {
		clear(acc)
		clear(last)
		clear(seen)
	}
	eta := a.elapsed[m]
	for k := range c.Steps {
		idx := touchBatch(c, g)
		for s, j := range g.Idx {
			if a.Tracking {
				if n := k - int(last[j]); n > 0 {
					z[j] -= float64(n) * a.c * y[j]
				}
			}
			zj := z[j]
			if reg.has(j) {
				zj = prox.ProxRepeat(zj, eta*lam, 1)
			}
			g.At[s] = zj
		}
		c.SparseGradientOn(idx, g)
		for s, j := range g.Idx {
			gj := g.Val[s]
			if a.Tracking {
				gj += y[j]
				acc[j] += gj
				last[j] = int32(k + 1)
				seen[j]++
			}
			z[j] -= a.c * gj
		}
		eta += a.c
	}
	K := c.Steps
	msg := up.Vecs[0]
	for i, v := range z {
		if a.Tracking {
			v -= float64(K-int(last[i])) * a.c * y[i]
		}
		msg[i] = z0[i] + a.s*(v-z0[i])
	}
	up.Scalars[0] = a.elapsed[m] + a.s*a.c*float64(K)
	if a.Tracking {
		delta := up.Vecs[1]
		for i, v := range acc {
			delta[i] = -(v + float64(K-int(seen[i]))*y[i]) / float64(K)
		}
	}
}
