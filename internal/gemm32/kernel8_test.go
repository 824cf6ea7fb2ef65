package gemm32

import (
	"math"
	"math/rand/v2"
	"testing"
)

// eightRowSets returns the kernel sets to compare for the 8-row kernels:
// the default set with them, the same set without them (its 6-row
// kernels on every row) and the AVX2 set; skips where the CPU has no
// 8-row kernels.
func eightRowSets(t *testing.T) []kernelSet {
	var sets []kernelSet
	for _, ks := range kernelSets() {
		if ks.wide8 != nil {
			six := ks
			six.name, six.wide8, six.narrow8 = ks.name+" without 8-row kernels", nil, nil
			sets = append(sets, ks, six)
		}
	}
	if len(sets) == 0 {
		t.Skipf("this CPU has no 8-row kernels (kernel sets %v)", Available())
	}
	for _, ks := range kernelSets() {
		if ks.name == "avx2" {
			sets = append(sets, ks)
		}
	}
	return sets
}

// TestEightRowKernelsBitIdentical checks that Do with the 8-row kernels
// (A read in place in tiles of eight rows, transposed or not, the last
// rows past a multiple of eight from a tile overlapping the one before)
// gives the same bits as the 6-row kernels of the same set and as the
// AVX2 set, on row counts around multiples of eight, column counts around 16 and 32
// (masked 8×16 tiles, pairs of panels, packed last panels), depths of one
// and of several blocks, every transpose, and alpha, beta other than 1
// and 0 (alpha ≠ 1 takes the 6-row path: it packs A); entries past each
// row of C must be untouched.
func TestEightRowKernelsBitIdentical(t *testing.T) {
	sets := eightRowSets(t)
	ms, ns, ks := []int{8, 15, 16, 17, 32, 33, 63}, []int{1, 15, 16, 17, 33, 48, 50}, []int{1, 7, 16, 390}
	if !testing.Short() {
		ms, ns, ks = append(ms, 9, 24, 64, 100, 400), append(ns, 2, 31, 32, 62, 84, 150, 288), append(ks, 196, 800)
	}
	gs := make([]Gemm, len(sets)) // one per set, its buffers reused
	for i := range sets {
		gs[i].own = &sets[i]
	}
	var dims [][3]int
	for _, m := range ms {
		for _, n := range ns {
			for _, k := range ks {
				dims = append(dims, [3]int{m, n, k})
			}
		}
	}
	// wider than a column block (nc = 512), with a last partial row tile
	dims = append(dims, [3]int{13, 530, 20}, [3]int{9, 520, 390})
	rng := rand.New(rand.NewPCG(40, 8))
	ab := [][2]float32{{1, 0}, {1, 1}, {1, -0.5}, {0.5, 0}}
	for _, d := range dims {
		for _, tr := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			m, n := d[0], d[1]
			s := shape{m, n, d[2], tr[0], tr[1], ab[rng.IntN(len(ab))][0], ab[rng.IntN(len(ab))][1]}
			a, lda, b, ldb, c0, ldc := operands(rng, s)
			var ref []float32
			for si, set := range sets {
				c := append([]float32(nil), c0...)
				gs[si].Do(s.transA, s.transB, m, n, s.k, s.alpha, a, lda, b, ldb, s.beta, c, ldc)
				for i := range c {
					if i%ldc >= n && c[i] != c0[i] {
						t.Fatalf("%s alpha=%g beta=%g: %s changed C[%d], past the row", shapeName(s), s.alpha, s.beta, set.name, i)
					}
				}
				if ref == nil {
					ref = c
					continue
				}
				for i := range c {
					if math.Float32bits(c[i]) != math.Float32bits(ref[i]) {
						t.Fatalf("%s alpha=%g beta=%g: %s gives C[%d] = %g, %s %g", shapeName(s), s.alpha, s.beta, set.name, i, c[i], sets[0].name, ref[i])
					}
				}
			}
		}
	}
}

// TestEightRowKernelsSumInOrder checks the 8- and 16-row kernels one call
// at a time (one tile, or several one under the other) against hand-made
// chains: each output is the FMA chain over p in
// order from zero (math.FMA in float64 rounded to float32 equals a
// float32 fused multiply-add), then added to C or stored over it; with A
// in place both ways (rows of stride ars, or columns), b panels with a
// row stride, the 8×32 kernel's second panel boff floats away, and the
// 8×16 and 16×16 kernels' mask leaving the other columns of C as they
// were.
func TestEightRowKernelsSumInOrder(t *testing.T) {
	var set *kernelSet
	for _, ks := range kernelSets() {
		if ks.wide8 != nil {
			set = &ks
			break
		}
	}
	if set == nil {
		t.Skipf("this CPU has no 8-row kernels (kernel sets %v)", Available())
	}
	fma32 := func(x, y, z float32) float32 { return float32(math.FMA(float64(x), float64(y), float64(z))) }
	rng := rand.New(rand.NewPCG(40, 9))
	for _, k := range []int{1, 3, 50} {
		for _, transA := range []bool{false, true} {
			const lda, ldb, boff, ldc = 61, 70, 35, 40
			a, b, c0 := randSlice(rng, 64*lda), randSlice(rng, k*ldb+boff+16), randSlice(rng, 32*ldc)
			ars, aps := lda, 1
			if transA {
				ars, aps = 1, lda
			}
			for _, acc := range []bool{false, true} {
				for _, mask := range []int{0xffff, 1, 0x7fff, 0x5a5a} {
					for _, kern := range []string{"8×16", "16×16", "two 16×16", "8×32", "three 8×32"} {
						wide := kern == "8×32" || kern == "three 8×32"
						if wide && mask != 0xffff {
							continue
						}
						c := append([]float32(nil), c0...)
						rows, cols := 8, 16
						switch kern {
						case "8×16":
							set.narrow8(k, &a[0], ars, aps, &b[0], ldb, &c[0], ldc, mask, acc)
						case "16×16":
							rows = 16
							set.narrow16(k, &a[0], ars, aps, &b[0], ldb, &c[0], ldc, mask, 1, acc)
						case "two 16×16":
							rows = 32
							set.narrow16(k, &a[0], ars, aps, &b[0], ldb, &c[0], ldc, mask, 2, acc)
						case "8×32":
							cols = 32
							set.wide8(k, &a[0], ars, aps, &b[0], ldb, boff, &c[0], ldc, 1, acc)
						case "three 8×32":
							rows, cols = 24, 32
							set.wide8(k, &a[0], ars, aps, &b[0], ldb, boff, &c[0], ldc, 3, acc)
						}
						for i := range 32 {
							for j := range ldc {
								want := c0[i*ldc+j]
								if i < rows && j < cols && (wide || mask>>j&1 == 1) {
									bj := j
									if j >= 16 {
										bj = boff + j - 16
									}
									var sum float32
									for p := range k {
										sum = fma32(a[i*ars+p*aps], b[p*ldb+bj], sum)
									}
									if acc {
										want += sum
									} else {
										want = sum
									}
								}
								if got := c[i*ldc+j]; math.Float32bits(got) != math.Float32bits(want) {
									t.Fatalf("%s k=%d transA=%v acc=%v mask=%#x: C[%d,%d] = %g, want %g", kern, k, transA, acc, mask, i, j, got, want)
								}
							}
						}
					}
				}
			}
		}
	}
}
