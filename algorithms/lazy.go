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

// touchBatch draws the client's next minibatch and resets g to its support.
func touchBatch(c *core.Client, g *core.Indexed) []int {
	idx := c.NextBatch()
	c.SupportOf(idx, g)
	return idx
}

// lazyClientUpdate is FedDualAvg's client update on sparse data. The reply
// Δ = z_K − z_r is accumulated in up directly; the primal w_j = prox(z_j)
// at the current η̃ is retrieved only on the batch's coordinates.
func (a *FedDualAvg) lazyClientUpdate(rd *core.Round, c *core.Client, prox core.RepeatedProx, down, up *core.Message) {
	lay, lam := rd.Psi.Layout, rd.Psi.Lambda
	z0, dz := down.Vecs[0], up.Vecs[0]
	clear(dz)
	g := c.Indexed(0)
	eta := down.Scalars[0]
	for range c.Steps {
		idx := touchBatch(c, g)
		for s, j := range g.Idx {
			zj := z0[j] + dz[j]
			if !a.OnlyServerProx && regularized(lay, j) {
				zj = prox.ProxRepeat(zj, eta*lam, 1)
			}
			g.At[s] = zj
		}
		c.SparseGradientOn(idx, g)
		for s, j := range g.Idx {
			dz[j] -= a.c * g.Val[s]
		}
		eta += a.c
	}
	up.Scalars[0] = a.c * float64(c.Steps)
}

// lazyPrimalSteps runs a client's K steps w ← S(w − η·∇f(w)) from w0 on
// sparse data and returns w_K (in c.Vec(0)). S is a scalar map of ψ per
// regularized coordinate (a prox or a subgradient step), and repeat(x, n)
// applies it n times in closed form; nil means no map (S = identity). The
// dense step applies S to every coordinate, so coordinate j, last updated
// after step last[j], is caught up through the maps it skipped when the
// batch next reads it, and every coordinate at the end.
func lazyPrimalSteps(lay core.Layout, c *core.Client, eta float64, w0 []float64, repeat func(x float64, n int) float64) []float64 {
	w, g, last := c.Vec(0), c.Indexed(0), c.Counters(0)
	copy(w, w0)
	clear(last)
	for k := range c.Steps {
		idx := touchBatch(c, g)
		for s, j := range g.Idx {
			if n := k - int(last[j]); n > 0 && repeat != nil && regularized(lay, j) {
				w[j] = repeat(w[j], n)
			}
			g.At[s] = w[j]
		}
		c.SparseGradientOn(idx, g)
		for s, j := range g.Idx {
			y := g.At[s] - eta*g.Val[s]
			if repeat != nil && regularized(lay, j) {
				y = repeat(y, 1)
			}
			w[j] = y
			last[j] = int32(k + 1)
		}
	}
	if repeat == nil {
		return w
	}
	K := c.Steps
	for _, b := range lay.Blocks {
		if !b.Regularized {
			continue
		}
		for j := b.Offset; j < b.Offset+b.Size(); j++ {
			if n := K - int(last[j]); n > 0 {
				w[j] = repeat(w[j], n)
			}
		}
	}
	return w
}

// lazyClientUpdate is FedMiD's client update on sparse data: the steps of
// lazyPrimalSteps with S the prox of η_c·λψ (none with OnlyServerProx).
func (a *FedMiD) lazyClientUpdate(rd *core.Round, c *core.Client, prox core.RepeatedProx, down, up *core.Message) {
	var repeat func(float64, int) float64
	if !a.OnlyServerProx {
		t := a.c * rd.Psi.Lambda
		repeat = func(x float64, n int) float64 { return prox.ProxRepeat(x, t, n) }
	}
	w := lazyPrimalSteps(rd.Psi.Layout, c, a.c, down.Vecs[0], repeat)
	floats.SubTo(up.Vecs[0], w, down.Vecs[0])
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
	w := lazyPrimalSteps(rd.Psi.Layout, c, a.c, down.Vecs[0], repeat)
	floats.SubTo(up.Vecs[0], w, down.Vecs[0])
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
	lay, lam := rd.Psi.Layout, rd.Psi.Lambda
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
			if regularized(lay, j) {
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
