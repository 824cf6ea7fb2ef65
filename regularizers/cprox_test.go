package regularizers

import (
	"math"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// cproxObjective is ½‖u − z‖² + t·R(u), +Inf outside the ball R(u − c) ≤ eps
// (with a relative slack of 1e-9 for rounding).
func cproxObjective(r core.Regularizer, u, z, c []float64, t, eps float64, l core.Layout) float64 {
	if r.Value(sub(u, c), l) > eps*(1+1e-9)+1e-12 {
		return math.Inf(1)
	}
	return proxObjective(r, u, z, t, l)
}

// bruteL1CProx solves min ½‖x − z‖² + t‖x‖₁ s.t. ‖x − c‖₁ ≤ eps over the
// vectors z, c (all coordinates regularized) by enumeration: every
// coordinate is either at one of its kinks {0, c_j} or inside one of the
// open pieces between them, where the objective and the constraint are
// smooth. For each of the (at most 5^d) patterns, the stationary point of
// the piece with the ball inactive, and with the ball active (one linear
// equation for the multiplier), is a candidate if it is feasible and lies
// in its piece; the answer is the candidate of least objective. It knows
// nothing of prox2 or bisection.
func bruteL1CProx(z, c []float64, t, eps float64) []float64 {
	d := len(z)
	type piece struct {
		fixed      bool
		val        float64 // fixed value
		lo, hi     float64 // open interval
		sgn, sgnc  float64 // sign of x and of x − c on the interval
		constDist  float64 // |val − c| when fixed
		constValue float64 // |val| when fixed
	}
	pieces := make([][]piece, d)
	for j := range d {
		kinks := []float64{math.Min(0, c[j]), math.Max(0, c[j])}
		if kinks[0] == kinks[1] {
			kinks = kinks[:1]
		}
		bounds := append(append([]float64{math.Inf(-1)}, kinks...), math.Inf(1))
		for i := 0; i+1 < len(bounds); i++ {
			lo, hi := bounds[i], bounds[i+1]
			mid := (lo + hi) / 2
			switch {
			case math.IsInf(lo, -1):
				mid = hi - 1
			case math.IsInf(hi, 1):
				mid = lo + 1
			}
			pieces[j] = append(pieces[j], piece{lo: lo, hi: hi, sgn: math.Copysign(1, mid) * b2f(mid != 0), sgnc: sign(mid - c[j])})
		}
		for _, k := range kinks {
			pieces[j] = append(pieces[j], piece{fixed: true, val: k, constDist: math.Abs(k - c[j]), constValue: math.Abs(k)})
		}
	}
	obj := func(x []float64) float64 {
		s, n, dist := 0.0, 0.0, 0.0
		for j := range x {
			s += (x[j] - z[j]) * (x[j] - z[j]) / 2
			n += math.Abs(x[j])
			dist += math.Abs(x[j] - c[j])
		}
		if dist > eps*(1+1e-12)+1e-13 {
			return math.Inf(1)
		}
		return s + t*n
	}
	best, bestVal := []float64(nil), math.Inf(1)
	idx := make([]int, d)
	x := make([]float64, d)
	for {
		// candidate 1: ball inactive; candidate 2: ball active.
		for _, active := range []bool{false, true} {
			beta := 0.0
			if active {
				num, den := 0.0, 0.0
				for j := range d {
					p := pieces[j][idx[j]]
					if p.fixed {
						num += p.constDist
						continue
					}
					num += p.sgnc * (z[j] - t*p.sgn - c[j])
					den += p.sgnc * p.sgnc
				}
				if den == 0 {
					continue
				}
				beta = (num - eps) / den
				if beta < 0 {
					continue
				}
			}
			ok := true
			for j := range d {
				p := pieces[j][idx[j]]
				if p.fixed {
					x[j] = p.val
					continue
				}
				x[j] = z[j] - t*p.sgn - beta*p.sgnc
				if x[j] <= p.lo || x[j] >= p.hi {
					ok = false
				}
			}
			if ok {
				if v := obj(x); v < bestVal {
					bestVal, best = v, append([]float64(nil), x...)
				}
			}
		}
		// next pattern
		j := 0
		for ; j < d; j++ {
			idx[j]++
			if idx[j] < len(pieces[j]) {
				break
			}
			idx[j] = 0
		}
		if j == d {
			break
		}
	}
	return best
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// cproxLayout: two regularized 1×2 and 2×1 blocks around an unregularized bias.
func cproxLayout() core.Layout {
	return core.NewLayout(
		core.Block{Name: "kernel", Rows: 1, Cols: 2, Regularized: true},
		core.Block{Name: "bias", Rows: 1, Cols: 1},
		core.Block{Name: "kernel2", Rows: 2, Cols: 1, Regularized: true},
	)
}

func TestProx2MatchesScalarMinimization(t *testing.T) {
	rng := newRNG(3)
	for k := range 2000 {
		u, a := 3*rng.NormFloat64(), 2*rng.NormFloat64()
		if k%5 == 0 {
			a = 0
		}
		theta, beta := math.Abs(rng.NormFloat64()), math.Abs(rng.NormFloat64())
		f := func(x float64) float64 { return (x-u)*(x-u)/2 + theta*math.Abs(x) + beta*math.Abs(x-a) }
		// ternary search on a bracket containing the minimizer
		lo, hi := -20.0, 20.0
		for range 300 {
			m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
			if f(m1) < f(m2) {
				hi = m2
			} else {
				lo = m1
			}
		}
		got := prox2(u, a, theta, beta)
		if math.Abs(got-(lo+hi)/2) > 1e-7 {
			t.Fatalf("prox2(u=%g, a=%g, θ=%g, β=%g) = %.12g, ternary search %.12g", u, a, theta, beta, got, (lo+hi)/2)
		}
	}
}

func TestL1CProxMatchesBruteForce(t *testing.T) {
	l := cproxLayout()
	rng := newRNG(11)
	active := 0
	for k := range 400 {
		z := randVec(rng, 5, 2)
		c := randVec(rng, 5, 1)
		if k%3 == 0 {
			sparsify(rng, c) // centre coordinates at 0: kinks coincide
		}
		if k%7 == 0 {
			copy(z, c) // z at the kinks
			z[0] = 0
		}
		tt := math.Abs(rng.NormFloat64()) * 0.7
		if k%11 == 0 {
			tt = 0
		}
		// radius: from tiny (active) to large (inactive)
		soft := prox(L1{}, z, tt, l)
		d := L1{}.Value(sub(soft, c), l)
		eps := d * []float64{0.05, 0.3, 0.7, 0.999, 1.5}[k%5]
		if d == 0 {
			eps = 0.1
		}
		got := make([]float64, len(z))
		L1{}.CProx(got, z, c, tt, eps, l)
		// the regularized coordinates of the layout are 0,1,3,4
		reg := []int{0, 1, 3, 4}
		zr, cr := make([]float64, 4), make([]float64, 4)
		for i, j := range reg {
			zr[i], cr[i] = z[j], c[j]
		}
		want := bruteL1CProx(zr, cr, tt, eps)
		if want == nil {
			t.Fatalf("case %d: brute force found no candidate", k)
		}
		for i, j := range reg {
			if math.Abs(got[j]-want[i]) > 1e-9*max(1, math.Abs(want[i])) {
				t.Fatalf("case %d (t=%g, ε=%g): coordinate %d = %.15g, brute force %.15g\nz=%v c=%v\ngot=%v\nwant=%v", k, tt, eps, j, got[j], want[i], z, c, got, want)
			}
		}
		if got[2] != z[2] {
			t.Fatalf("case %d: the unregularized bias changed: %g → %g", k, z[2], got[2])
		}
		dist := L1{}.Value(sub(got, c), l)
		if dist > eps*(1+1e-12) {
			t.Fatalf("case %d: infeasible, ‖u − c‖₁ = %.17g > ε = %.17g", k, dist, eps)
		}
		if eps < d*0.999 {
			active++
			if dist < eps*(1-1e-9) {
				t.Fatalf("case %d: the ball should be active: ‖u − c‖₁ = %g < ε = %g", k, dist, eps)
			}
		}
	}
	if active < 200 {
		t.Fatalf("only %d of 400 cases had an active ball", active)
	}
}

func TestL1CProxLimitsAndAliasing(t *testing.T) {
	l := testLayout()
	rng := newRNG(5)
	z := randVec(rng, l.Dim(), 2)
	c := randVec(rng, l.Dim(), 1)
	got := make([]float64, len(z))
	L1{}.CProx(got, z, c, 0.3, math.Inf(1), l)
	if want := prox(L1{}, z, 0.3, l); maxAbsDiff(got, want) != 0 {
		t.Errorf("ε = +Inf is not the plain prox: %v vs %v", got, want)
	}
	L1{}.CProx(got, z, c, 0.3, 0, l)
	for _, b := range l.Blocks {
		want := b.Of(z)
		if b.Regularized {
			want = b.Of(c)
		}
		if maxAbsDiff(b.Of(got), want) != 0 {
			t.Errorf("ε = 0: block %s = %v, want %v", b.Name, b.Of(got), want)
		}
	}
	// dst aliasing z gives the same result.
	L1{}.CProx(got, z, c, 0.3, 1.5, l)
	alias := append([]float64(nil), z...)
	L1{}.CProx(alias, alias, c, 0.3, 1.5, l)
	if maxAbsDiff(got, alias) != 0 {
		t.Errorf("aliased dst differs: %v vs %v", alias, got)
	}
	if allocs := testing.AllocsPerRun(20, func() { L1{}.CProx(got, z, c, 0.3, 1.5, l) }); allocs != 0 {
		t.Errorf("L1.CProx allocates %v times per call", allocs)
	}
}

// diagonal returns the n×n row-major diagonal matrix with the given entries.
func diagonal(d []float64) []float64 {
	n := len(d)
	out := make([]float64, n*n)
	for i, x := range d {
		out[i*n+i] = x
	}
	return out
}

func TestNuclearCProxDiagonalEqualsL1(t *testing.T) {
	// For diagonal z and c, sign-flip conjugations D·W·D fix the problem, so
	// the unique minimizer is diagonal and the problem is the ℓ1 one on the
	// diagonals; with c ≠ 0 this exercises the iterative (Dykstra) path.
	const n = 3
	l := core.NewLayout(core.Block{Name: "kernel", Rows: n, Cols: n, Regularized: true})
	lv := core.NewLayout(core.Block{Name: "kernel", Rows: n, Cols: 1, Regularized: true})
	rng := newRNG(17)
	for k := range 40 {
		zd, cd := randVec(rng, n, 2), randVec(rng, n, 1)
		if k%4 == 0 {
			clear(cd)
		}
		tt := 0.3 * math.Abs(rng.NormFloat64())
		soft := prox(L1{}, zd, tt, lv)
		eps := L1{}.Value(sub(soft, cd), lv) * []float64{0.2, 0.6, 0.95, 2}[k%4]
		if eps == 0 {
			eps = 0.1
		}
		want := make([]float64, n)
		L1{}.CProx(want, zd, cd, tt, eps, lv)
		got := make([]float64, n*n)
		Nuclear{}.CProx(got, diagonal(zd), diagonal(cd), tt, eps, l)
		if diff := maxAbsDiff(got, diagonal(want)); diff > 1e-8 {
			t.Fatalf("case %d (t=%g, ε=%g): nuclear CProx of diagonal matrices differs from ℓ1 CProx by %g\ngot  %v\nwant %v", k, tt, eps, diff, got, diagonal(want))
		}
		if d := (Nuclear{}).Value(sub(got, diagonal(cd)), l); d > eps*(1+1e-9) {
			t.Fatalf("case %d: infeasible: %g > %g", k, d, eps)
		}
	}
}

func TestNuclearCProxBruteForce(t *testing.T) {
	// Generic derivative-free search on the exact-penalty form
	// ½‖u − z‖² + t‖u‖_* + ρ·max(0, ‖u − c‖_* − ε) (exact for ρ above the
	// ball's multiplier) must not beat CProx, and lands next to it.
	l := smallLayout()
	rng := newRNG(23)
	cases := 6
	if testing.Short() {
		cases = 1
	}
	for k := range cases {
		z := randVec(rng, l.Dim(), 2)
		c := randVec(rng, l.Dim(), 0.7)
		if k%3 == 0 {
			clear(c[:4])
		}
		tt := 0.2 + 0.3*rng.Float64()
		u0 := prox(Nuclear{}, z, tt, l)
		eps := Nuclear{}.Value(sub(u0, c), l) * []float64{0.3, 0.7, 1.2}[k%3]
		got := make([]float64, len(z))
		Nuclear{}.CProx(got, z, c, tt, eps, l)
		if got[4] != z[4] {
			t.Fatalf("case %d: bias changed", k)
		}
		if d := (Nuclear{}).Value(sub(got, c), l); d > eps*(1+1e-9) {
			t.Fatalf("case %d: infeasible: ‖u − c‖_* = %g > ε = %g", k, d, eps)
		}
		if v, w := nuclear2x2(z), (Nuclear{}).Value(z, l); math.Abs(v-w) > 1e-12*max(1, w) {
			t.Fatalf("case %d: the closed form gives ‖z‖_* = %.17g, Nuclear.Value %.17g", k, v, w)
		}
		penalized := func(u []float64) float64 { // in closed form: the search costs no SVD
			excess := max(0, nuclear2x2(sub(u, c))-eps)
			d := sub(u, z)
			return 0.5*dot(d, d) + tt*nuclear2x2(u) + 1e3*excess
		}
		fGot := cproxObjective(Nuclear{}, got, z, c, tt, eps, l)
		search := patternSearch(rng, penalized, z)
		fSearch := penalized(search)
		if fSearch < fGot-1e-8 {
			t.Fatalf("case %d: pattern search beats CProx: %.12g < %.12g\nsearch %v\ncprox  %v", k, fSearch, fGot, search, got)
		}
		// The penalized objective is 1-strongly convex with the same
		// minimizer u*, so ½‖u − u*‖² ≤ P(u) − P(u*) for every u: if CProx
		// is the minimizer, the search point obeys this bound around it.
		d := sub(search, got)
		if half := dot(d, d) / 2; half > fSearch-fGot+1e-9 {
			t.Fatalf("case %d: ½‖search − CProx‖² = %g exceeds the objective gap %g", k, half, fSearch-fGot)
		}
	}
}

func TestNuclearCProxCentreZeroAndInactive(t *testing.T) {
	l := testLayout()
	rng := newRNG(29)
	z := randVec(rng, l.Dim(), 2)
	zero := make([]float64, l.Dim())
	tt := 0.4
	u0 := prox(Nuclear{}, z, tt, l)
	got := make([]float64, l.Dim())
	// inactive ball: exactly the plain prox
	Nuclear{}.CProx(got, z, zero, tt, 2*Nuclear{}.Value(u0, l), l)
	if maxAbsDiff(got, u0) != 0 {
		t.Errorf("inactive ball changed the prox: %v vs %v", got, u0)
	}
	// centre zero, active ball: σ = projection of (s − t)₊ on the ℓ1 ball
	eps := 0.5 * Nuclear{}.Value(u0, l)
	Nuclear{}.CProx(got, z, zero, tt, eps, l)
	assertClose(t, "‖u‖_* at the active ball", Nuclear{}.Value(got, l), eps, 1e-9)
	// compare with the iterative path by shifting: a centre c ≠ 0 that is
	// numerically tiny exercises Dykstra on the same problem.
	tiny := make([]float64, l.Dim())
	for _, b := range l.Regularized() {
		b.Of(tiny)[0] = 1e-300
	}
	iter := make([]float64, l.Dim())
	Nuclear{}.CProx(iter, z, tiny, tt, eps, l)
	if d := maxAbsDiff(iter, got); d > 1e-8 {
		t.Errorf("closed form and Dykstra differ by %g", d)
	}
	// the singular values of every block are those of z, thresholded by t
	// and shrunk by one common β
	beta := math.NaN()
	for _, b := range l.Regularized() {
		sz := singularValues(matrix(b, z))
		sg := singularValues(matrix(b, got))
		for i := range sg {
			if sg[i] < 1e-9 {
				if sz[i]-tt-beta > 1e-9 {
					t.Fatalf("block %s: σ_%d = 0 but s − t − β = %g", b.Name, i, sz[i]-tt-beta)
				}
				continue
			}
			if math.IsNaN(beta) {
				beta = sz[i] - tt - sg[i]
			}
			assertClose(t, "σ of block "+b.Name, sg[i], sz[i]-tt-beta, 1e-9)
		}
	}
	if !(beta > 0) {
		t.Errorf("the ball multiplier β = %g should be positive", beta)
	}
}
