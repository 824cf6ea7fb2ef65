package gemm32

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// naive is the reference: C = alpha·op(A)·op(B) + beta·C by a triple loop
// in float64.
func naive(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	// op(A)[i,p] = a[i*ars+p*acs], op(B)[p,j] = b[p*brs+j*bcs]
	ars, acs, brs, bcs := lda, 1, ldb, 1
	if transA {
		ars, acs = 1, lda
	}
	if transB {
		brs, bcs = 1, ldb
	}
	for i := range m {
		for j := range n {
			s := 0.0
			for p := range k {
				s += float64(a[i*ars+p*acs]) * float64(b[p*brs+j*bcs])
			}
			c[i*ldc+j] = float32(float64(alpha)*s + float64(beta)*float64(c[i*ldc+j]))
		}
	}
}

func randSlice(rng *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	return x
}

type shape struct {
	m, n, k        int
	transA, transB bool
	alpha, beta    float32
}

func shapes() []shape {
	var s []shape
	for _, d := range [][3]int{{1, 1, 1}, {3, 5, 7}, {6, 16, 1}, {17, 33, 65}, {7, 16, 300}, {100, 17, 257}, {200, 530, 40}, {12544, 32, 9}, {5, 20, 800}} {
		for _, t := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			s = append(s, shape{d[0], d[1], d[2], t[0], t[1], 1, 0})
		}
		s = append(s, shape{d[0], d[1], d[2], false, true, -0.5, 1.5}, shape{d[0], d[1], d[2], true, false, 2, 1})
	}
	return s
}

// operands returns A, B and C for s with row strides padded past the
// matrix widths, so that the strides are exercised.
func operands(rng *rand.Rand, s shape) (a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	ar, ac := s.m, s.k
	if s.transA {
		ar, ac = ac, ar
	}
	br, bc := s.k, s.n
	if s.transB {
		br, bc = bc, br
	}
	lda, ldb, ldc = ac+1, bc+2, s.n+3
	return randSlice(rng, ar*lda), lda, randSlice(rng, br*ldb), ldb, randSlice(rng, s.m*ldc), ldc
}

// TestGemmMatchesNaive compares Do with the triple loop on odd shapes, all
// transposes and several alpha, beta, with both micro-kernels. The float32
// result differs from the float64 reference by round-off, which for sums of
// k standard normal products (magnitude √k) is bounded by 4·ε·(k+8)·√k;
// entries past each row's width must be untouched.
func TestGemmMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range shapes() {
		// one set of operands and one reference per shape, for every kernel set
		a, lda, b, ldb, c0, ldc := operands(rng, s)
		want := append([]float32(nil), c0...)
		naive(s.transA, s.transB, s.m, s.n, s.k, s.alpha, a, lda, b, ldb, s.beta, want, ldc)
		for _, ks := range kernelSets() {
			t.Run(fmt.Sprintf("%s/%dx%dx%d/tA=%v,tB=%v,alpha=%g,beta=%g", ks.name, s.m, s.n, s.k, s.transA, s.transB, s.alpha, s.beta), func(t *testing.T) {
				c := append([]float32(nil), c0...)
				g := Gemm{own: &ks}
				g.Do(s.transA, s.transB, s.m, s.n, s.k, s.alpha, a, lda, b, ldb, s.beta, c, ldc)
				eps := float64(math.Nextafter32(1, 2) - 1)
				for i := range s.m {
					for j := range ldc {
						got, w := c[i*ldc+j], want[i*ldc+j]
						tol := eps * float64(s.k+8) * 4 * max(1, math.Sqrt(float64(s.k)))
						if j >= s.n {
							tol = 0 // padding past the row must not change
						}
						if math.Abs(float64(got-w)) > tol {
							t.Fatalf("C[%d,%d] = %g, want %g (tolerance %g)", i, j, got, w, tol)
						}
					}
				}
			})
		}
	}
}

// TestKernelsAgree checks that the assembly and Go micro-kernels, packed
// and direct, adding or storing, give the same products up to float32
// round-off (they sum in the same order but the assembly fuses multiply and
// add) and write only the tile.
func TestKernelsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	kernel, kernelDirect := kernelSets()[0].packed, kernelSets()[0].direct
	for _, k := range []int{1, 2, 7, 256} {
		a, b := randSlice(rng, k*mr), randSlice(rng, k*nr)
		// the same a panel unpacked: row i of a matrix with row stride k+3
		ad := make([]float32, mr*(k+3))
		for p := range k {
			for i := range mr {
				ad[i*(k+3)+p] = a[p*mr+i]
			}
		}
		// the same b panel in a matrix with row stride nr+5
		bs := make([]float32, k*(nr+5))
		for p := range k {
			copy(bs[p*(nr+5):], b[p*nr:(p+1)*nr])
		}
		c0 := randSlice(rng, 2*mr*nr)
		eps := float64(math.Nextafter32(1, 2) - 1)
		for _, acc := range []bool{true, false} {
			c1 := append([]float32(nil), c0...)
			kernelGo(k, &a[0], &b[0], nr, &c1[0], 2*nr, acc)
			for name, run := range map[string]func(c []float32){
				"default":       func(c []float32) { kernel(k, &a[0], &b[0], nr, &c[0], 2*nr, acc) },
				"direct Go":     func(c []float32) { kernelDirectGo(k, &ad[0], k+3, &b[0], nr, &c[0], 2*nr, acc) },
				"direct":        func(c []float32) { kernelDirect(k, &ad[0], k+3, &b[0], nr, &c[0], 2*nr, acc) },
				"Go, strided b": func(c []float32) { kernelGo(k, &a[0], &bs[0], nr+5, &c[0], 2*nr, acc) },
				"strided b":     func(c []float32) { kernel(k, &a[0], &bs[0], nr+5, &c[0], 2*nr, acc) },
				"direct, strided b": func(c []float32) {
					kernelDirect(k, &ad[0], k+3, &bs[0], nr+5, &c[0], 2*nr, acc)
				},
			} {
				c2 := append([]float32(nil), c0...)
				run(c2)
				for i := range c1 {
					if d := math.Abs(float64(c1[i] - c2[i])); d > 2*eps*float64(k)*max(1, math.Abs(float64(c1[i]))) {
						t.Fatalf("k=%d acc=%v entry %d: Go %g, %s %g", k, acc, i, c1[i], name, c2[i])
					}
					if i%(2*nr) >= nr && c2[i] != c0[i] {
						t.Fatalf("k=%d acc=%v: %s changed entry %d outside the tile", k, acc, name, i)
					}
				}
			}
		}
	}
}

// TestBetaZeroClearsNaN checks that beta = 0 overwrites C, NaN included,
// and that k = 0 leaves beta·C.
func TestBetaZeroClearsNaN(t *testing.T) {
	var g Gemm
	c := []float32{float32(math.NaN()), 3}
	g.Do(false, false, 1, 2, 1, 1, []float32{2}, 1, []float32{1, 2}, 2, 0, c, 2)
	if c[0] != 2 || c[1] != 4 {
		t.Fatalf("C = %v, want [2 4]", c)
	}
	g.Do(false, false, 1, 2, 0, 1, nil, 1, nil, 2, 0.5, c, 2)
	if c[0] != 1 || c[1] != 2 {
		t.Fatalf("k = 0: C = %v, want [1 2]", c)
	}
}

// TestShapePanics checks that a slice too short for its shape is refused
// with a message.
func TestShapePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || fmt.Sprint(r) != "gemm32: B is 2×2 with row stride 2 but has 3 elements" {
			t.Fatalf("recovered %v", r)
		}
	}()
	var g Gemm
	g.Do(false, false, 2, 2, 2, 1, make([]float32, 4), 2, make([]float32, 3), 2, 0, make([]float32, 4), 2)
}

// TestNoAllocation checks that Do does not allocate after the first call.
func TestNoAllocation(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := shape{m: 300, n: 40, k: 290, transB: true, alpha: 1, beta: 1}
	a, lda, b, ldb, c, ldc := operands(rng, s)
	var g Gemm
	run := func() { g.Do(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, b, ldb, 1, c, ldc) }
	run()
	if n := testing.AllocsPerRun(10, run); n != 0 {
		t.Fatalf("%g allocations per call", n)
	}
}

// TestKernelSetsBitIdentical forces each assembly kernel set in turn and
// checks that Do gives bit-identical products with all of them (the wide
// AVX-512 kernel sums each output in the AVX2 kernel's order), on odd
// shapes with every transpose, alpha and beta, the CNN's shapes and depths
// split into several blocks; and that SetKernels switches the path Kernels
// reports and refuses an unknown name.
func TestKernelSetsBitIdentical(t *testing.T) {
	var sets []kernelSet
	for _, ks := range kernelSets() {
		if ks.name != "go" {
			sets = append(sets, ks)
		}
	}
	if len(sets) < 2 {
		t.Skipf("this CPU runs only the kernel sets %v: nothing to compare", Available())
	}
	all := shapes()
	if !testing.Short() { // -short: the shapes' edges without the benchmarks' large products
		all = append(all, benchShapes...)
	}
	for _, d := range [][3]int{{97, 70, 1000}, {40, 64, 5}, {13, 100, 33}, {6, 32, 1}, {12, 48, 2}} {
		for _, t := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			all = append(all, shape{d[0], d[1], d[2], t[0], t[1], 1, 1}, shape{d[0], d[1], d[2], t[0], t[1], 0.5, 0})
		}
	}
	rng := rand.New(rand.NewPCG(8, 9))
	for _, s := range all {
		if s.alpha == 0 {
			s.alpha = 1
		}
		a, lda, b, ldb, c0, ldc := operands(rng, s)
		var ref []float32
		for _, ks := range sets {
			c := append([]float32(nil), c0...)
			g := Gemm{own: &ks}
			g.Do(s.transA, s.transB, s.m, s.n, s.k, s.alpha, a, lda, b, ldb, s.beta, c, ldc)
			if ref == nil {
				ref = c
				continue
			}
			for i := range c {
				if math.Float32bits(c[i]) != math.Float32bits(ref[i]) {
					t.Fatalf("%s: %s gives C[%d] = %g, %s %g", shapeName(s), ks.name, i, c[i], sets[0].name, ref[i])
				}
			}
		}
	}
	for _, ks := range sets {
		prev, err := SetKernels(ks.name)
		if err != nil || Kernels() != ks.name {
			t.Fatalf("SetKernels(%q): %v, Kernels() = %q", ks.name, err, Kernels())
		}
		if _, err := SetKernels(prev); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := SetKernels("sse"); err == nil || err.Error() != fmt.Sprintf("gemm32: kernels \"sse\" are not available on this CPU (available: %v)", Available()) {
		t.Fatalf("SetKernels(\"sse\"): %v", err)
	}
}
