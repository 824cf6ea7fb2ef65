// Package gemm32 is a float32 matrix product for the neural losses:
// C = alpha·op(A)·op(B) + beta·C on row-major slices. It packs blocks of
// op(A) and op(B) into panels (BLIS-style), except where the micro-kernel
// can read them in place (A with alpha = 1 and B, when not transposed), and
// runs a 6×16 micro-kernel, written in Go assembly with AVX2/FMA on amd64
// CPUs that have them and in plain Go elsewhere. Where the CPU has
// AVX-512, a 6×32 kernel computes two adjacent 6×16 tiles at once, and
// with alpha = 1 and at least eight rows, 8×32, 16×16 and 8×16 kernels
// (the last two masked to a last partial panel) read op(A) in place,
// transposed or not, without packing it, in tiles of eight or sixteen rows
// (the last tile overlapping the one before where m is not a multiple of
// eight). A Gemm value owns its packing buffers, so it does not allocate
// after its first call. Conv computes small convolutions
// (forward rows and kernel gradients) straight from the input images,
// bit-identical to Do on their im2col matrices, and with AVX-512 the
// outputs of wider ones at pixels anywhere in the input (Conv.Pixels, six
// pixels of any rows and images a call, deep patches in Do's depth
// blocks); ConvBack computes a convolution's input gradient straight from
// the output gradient, bit-identical to Do's product and col2im.
//
// Every kernel sums each output over its depth block in the same order
// (one fused multiply-add per term, from zero) and then adds the sum to C or
// stores it, and the depth blocks depend on k alone, so the AVX-512 and
// AVX2 paths give bit-identical products; the plain Go kernel rounds each
// product before adding it (the Go compiler does not fuse on amd64), so its
// results may differ in the last bits (Kernels names the path in use).
package gemm32

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Micro-kernel tile and cache-block sizes. A packed kc×nc block of op(B)
// (at most 384·512·4 B = 768 KiB) stays in L2, a packed mc×kc block of
// op(A) (at most 96·384·4 B = 144 KiB) in L2.
const (
	mr = 6   // rows of a micro-tile
	nr = 16  // columns of a micro-tile (two 8-float AVX registers)
	kc = 384 // largest depth of a packed block; k is split into equal blocks
	mc = 96  // rows of a packed block of op(A), a multiple of mr
	nc = 512 // columns of a packed block of op(B), a multiple of nr
)

// Gemm computes float32 matrix products with reusable packing buffers. The
// zero value is ready to use; a Gemm is not safe for concurrent use.
type Gemm struct {
	pa, pb []float32        // packed blocks of op(A) and op(B)
	rem    []float32        // an 8-row tile's last rows past the multiples of eight (block8)
	tile   [mr * nr]float32 // a partial micro-tile at the right or bottom edge
	ks     *kernelSet       // the kernels of this call (active's, unless a test set them)
	own    *kernelSet       // kernels fixed for this value by a test; nil = active
}

// kernelSet is a family of micro-kernels: packed (a packed mr×k panel of
// op(A)) and direct (six rows of A read in place), each against a k×nr
// panel of op(B) with row stride ldb, adding to (acc) or storing over an
// mr×nr tile of C; wide and wideDirect, if not nil, do the same for an
// mr×2nr tile whose second 16 columns of op(B) are boff floats after the
// first.
type kernelSet struct {
	name       string
	packed     func(k int, a, b *float32, ldb int, c *float32, ldc int, acc bool)
	direct     func(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, acc bool)
	wide       func(k int, a, b *float32, ldb, boff int, c *float32, ldc int, acc bool)
	wideDirect func(k int, a *float32, lda int, b *float32, ldb, boff int, c *float32, ldc int, acc bool)
	// wide8, narrow8 and narrow16, if not nil, compute 8×2nr, 8×nr and
	// 16×nr tiles with op(A) read in place (entry (i, p) at a + i·ars +
	// p·aps, A transposed or not), wide8 and narrow16 tiles of them one
	// under the other; narrow8 and narrow16 read and write only the
	// columns of C in mask.
	wide8    func(k int, a *float32, ars, aps int, b *float32, ldb, boff int, c *float32, ldc, tiles int, acc bool)
	narrow8  func(k int, a *float32, ars, aps int, b *float32, ldb int, c *float32, ldc, mask int, acc bool)
	narrow16 func(k int, a *float32, ars, aps int, b *float32, ldb int, c *float32, ldc, mask, tiles int, acc bool)
	// conv8, conv16, convZ8, convZ16, convZ10 and convZ32 compute pixels
	// of a direct convolution's row (Conv): 12 pixels of at most 8
	// channels, 6 of at most 16 (AVX2), 18 of at most 8, 8 and 10 of at
	// most 16 and 6 of at most 32 (AVX-512); nil where the set has none.
	conv8   func(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask *int32, spill bool)
	convZ8  func(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask int)
	conv16  func(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask0, mask1 *int32, full bool)
	convZ16 func(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask int)
	convZ10 func(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask int)
	convZ32 func(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask0, mask1 int)
	// convZ8x16 computes 16 pixels of at most 8 channels of a row whose
	// patches are one float apart (AVX-512); nil where the set has none.
	convZ8x16 func(kh, kc int, src *float32, line int, w *float32, dst *float32, ldd int, mask int)
	// grad8, grad16 and gradZ16 add pixels' terms to a tile of a direct
	// convolution's kernel gradient (Conv.AddGrad): 12 patch positions of
	// at most 8 channels (AVX2, or AVX-512 two positions to a register), 6
	// of at most 16 (AVX2), 12 of at most 16 (AVX-512); rows runs of n
	// pixels, each run's first patch skip floats after the end of the run
	// before (its last patch plus xs), their output gradients in a row.
	grad8   func(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask *int32, s *float32, rows, skip int)
	grad16  func(n int, src *float32, xs int, dg *float32, ldg int, mask0, mask1 *int32, s *float32, rows, skip int)
	gradZ16 func(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask int, s *float32, rows, skip int)
	// grad8x30 is grad8 for 30 patch positions, five kernel rows of six
	// (AVX-512, two positions to a register); nil where the set has none.
	grad8x30 func(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask *int32, s *float32, rows, skip int)
	// gradZ15 is gradZ16 for 15 patch positions, three groups of five
	// (AVX-512); nil where the set has none.
	gradZ15 func(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask int, s *float32, rows, skip int)
	// gradZ9 adds pixels' terms to 9 patch positions, three groups of
	// three, of at most 32 channels (AVX-512, channels 0–15 under mask0,
	// 16–31 under mask1); nil where the set has none.
	gradZ9 func(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask0, mask1 int, s *float32, rows, skip int)
	// gradZ25 adds pixels' terms to the 25 positions of a 5×5 patch, the
	// positions in the lanes, of cout ≤ 8 channels (AVX-512); nil where
	// the set has none.
	gradZ25 func(n int, src *float32, xs, rowoff int, dg *float32, ldg int, cout int, s *float32, rows, skip int)
	// convP32 computes six pixels of at most 32 channels of a direct
	// convolution, each patch at its own offset, over one depth block
	// (Conv.Pixels, AVX-512); nil where the set has none.
	convP32 func(segs *int, nseg int, at *int, src *float32, w *float32, dst *float32, ldd int, mask0, mask1 int, acc bool)
	// convB32 computes six pixels of at most 32 channels of a sum of
	// chains (ConvBack.Sums, AVX-512); nil where the set has none.
	convB32 func(terms *int, nterm, n int, at *int, src *float32, w *float32, dst *float32, dat *int, mask0, mask1 int)
}

// goKernels are the plain Go micro-kernels, on every architecture.
var goKernels = kernelSet{name: "go", packed: kernelGo, direct: kernelDirectGo}

// active is the kernel set Do uses: the widest the CPU supports (see
// kernelSets), or the one SetKernels chose.
var active = &kernelSets()[0]

// Kernels names the micro-kernels Do uses: "avx512" (AVX-512F 8×32,
// 16×16, 8×16 and 6×32, AVX2/FMA 6×16), "avx2" (AVX2/FMA 6×16) or "go"
// (plain Go).
func Kernels() string { return active.name }

// Available lists the kernel names this CPU can run, the default first.
func Available() []string {
	var names []string
	for _, ks := range kernelSets() {
		names = append(names, ks.name)
	}
	return names
}

// Class names the results the kernels in use give: "fma" for the assembly
// kernels (AVX-512 and AVX2 give identical bits), "go-" and the
// architecture for the plain Go kernel (e.g. "go-amd64", which rounds each
// product before adding it, so its bits differ from "fma"; on other
// architectures the Go compiler may fuse).
func Class() string {
	if active.name == goKernels.name {
		return "go-" + runtime.GOARCH
	}
	return "fma"
}

// used is set by the first product of the process (see Used).
var used atomic.Bool

// Used reports whether the process has computed a product with Do.
func Used() bool { return used.Load() }

// SetKernels makes Do use the named micro-kernels (one of Available) and
// returns the name in use before. It is meant for tests and benchmarks that
// compare the paths: it must not be called while products run.
func SetKernels(name string) (previous string, err error) {
	for _, ks := range kernelSets() {
		if ks.name == name {
			previous, active = active.name, &ks
			return previous, nil
		}
	}
	return "", fmt.Errorf("gemm32: kernels %q are not available on this CPU (available: %v)", name, Available())
}

// Do sets C = alpha·op(A)·op(B) + beta·C, where op(A) is m×k (A is m×k
// with row stride lda, or k×m if transA) and op(B) is k×n (B is k×n with
// row stride ldb, or n×k if transB); C is m×n with row stride ldc. With
// beta = 0, C is overwritten (NaNs in it do not propagate). Shapes that do
// not fit the slices panic.
func (g *Gemm) Do(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkShape("A", transA, m, k, a, lda)
	checkShape("B", transB, k, n, b, ldb)
	checkShape("C", false, m, n, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 || alpha == 0 {
		scale(m, n, beta, c, ldc)
		return
	}
	if beta != 0 { // with beta = 0 the first depth block overwrites C
		scale(m, n, beta, c, ldc)
	}
	if !used.Load() {
		used.Store(true)
	}
	g.ks = active
	if g.own != nil {
		g.ks = g.own
	}
	// With alpha = 1 and A not transposed, the micro-kernel reads full
	// panels of six rows of A in place, and with B not transposed full
	// panels of sixteen columns of B; only a last partial panel is packed.
	direct, directB := alpha == 1 && !transA, !transB
	if len(g.pa) < mc*kc {
		g.pa = make([]float32, mc*kc)
		g.pb = make([]float32, kc*nc)
	}
	// With alpha = 1 and the 8-row kernels, op(A) is read in place in
	// tiles of eight rows (transposed or not), the last one through rem
	// if m is not a multiple of eight; else it goes through the 6-row
	// kernels.
	rows8 := alpha == 1 && g.ks.wide8 != nil && m >= 8
	if rows8 && len(g.rem) < 8*nc {
		g.rem = make([]float32, 8*nc)
	}
	kd := (k + (k+kc-1)/kc - 1) / ((k + kc - 1) / kc) // depth of equal blocks: k = 400 is 200 + 200, not 384 + 16
	for jc := 0; jc < n; jc += nc {
		nb := min(nc, n-jc)
		for pc := 0; pc < k; pc += kd {
			kb := min(kd, k-pc)
			q := 0 // columns before the first packed panel
			if directB {
				q = nb - nb%nr
			}
			packB(transB, kb, nb-q, b, ldb, pc, jc+q, g.pb[q*kb:])
			if rows8 {
				g.block8(transA, directB, beta != 0 || pc > 0, a, lda, b, ldb, pc, jc, m, nb, kb, c[jc:], ldc)
				continue
			}
			for ic := 0; ic < m; ic += mc {
				mb := min(mc, m-ic)
				q := 0 // rows before the first packed panel
				if direct {
					q = mb - mb%mr
				}
				packA(transA, mb-q, kb, alpha, a, lda, ic+q, pc, g.pa[q*kb:])
				g.block(direct, directB, beta != 0 || pc > 0, a, lda, b, ldb, ic, pc, jc, mb, nb, kb, c[ic*ldc+jc:], ldc)
			}
		}
	}
}

// block adds (if acc, else stores) the product of rows ic..ic+mb−1 of
// op(A) (columns pc.., read in place in full panels if direct, else packed
// in pa) and the kb×nb block of op(B) at row pc, column jc (read in place
// in full panels if directB, else packed in pb) to the mb×nb block of C
// starting at c[0]. Where two full 16-column panels and six full rows
// remain, the wide kernel (if any) computes both panels' tiles at once.
func (g *Gemm) block(direct, directB, acc bool, a []float32, lda int, b []float32, ldb, ic, pc, jc, mb, nb, kb int, c []float32, ldc int) {
	for jr := 0; jr < nb; jr += nr {
		if g.ks.wide != nil && jr+2*nr <= nb {
			bp, bs, boff := &g.pb[jr*kb], nr, nr*kb
			if directB {
				bp, bs, boff = &b[pc*ldb+jc+jr], ldb, nr
			}
			for ir := 0; ir < mb; ir += mr {
				if mb-ir < mr || len(c) < (ir+mr-1)*ldc+jr+2*nr {
					g.tile16(direct, directB, acc, a, lda, b, ldb, ic, pc, jc, mb, nb, kb, c, ldc, ir, jr)
					g.tile16(direct, directB, acc, a, lda, b, ldb, ic, pc, jc, mb, nb, kb, c, ldc, ir, jr+nr)
					continue
				}
				if direct {
					g.ks.wideDirect(kb, &a[(ic+ir)*lda+pc], lda, bp, bs, boff, &c[ir*ldc+jr], ldc, acc)
				} else {
					g.ks.wide(kb, &g.pa[ir*kb], bp, bs, boff, &c[ir*ldc+jr], ldc, acc)
				}
			}
			jr += nr
			continue
		}
		for ir := 0; ir < mb; ir += mr {
			g.tile16(direct, directB, acc, a, lda, b, ldb, ic, pc, jc, mb, nb, kb, c, ldc, ir, jr)
		}
	}
}

// block8 adds (if acc, else stores) the product of the m ≥ 8 rows of
// op(A) (columns pc.., read in place: A's rows, or its columns if transA)
// and the kb×nb block of op(B) at row pc, column jc (as in block) to the
// m×nb block of C starting at c[0], in 8×32 tiles where two full
// 16-column panels remain and 16×16 and 8×16 tiles (masked to the block's
// last columns) elsewhere. If m is not a multiple of eight, the last r
// rows are those of the tile at row m−8, stored in rem and then added to
// or copied over C (the same sums: each output's chain does not depend on
// the tile).
func (g *Gemm) block8(transA, directB, acc bool, a []float32, lda int, b []float32, ldb, pc, jc, m, nb, kb int, c []float32, ldc int) {
	ars, aps := lda, 1
	if transA {
		ars, aps = 1, lda
	}
	m8, r := m-m%8, m%8
	last := &a[(m-8)*ars+pc*aps] // the tile at row m−8, for the last r rows
	for jr := 0; jr < nb; jr += nr {
		bp, bs, boff := &g.pb[jr*kb], nr, nr*kb
		if directB && nb-jr >= nr {
			bp, bs, boff = &b[pc*ldb+jc+jr], ldb, nr
		}
		if nb-jr >= 2*nr {
			g.ks.wide8(kb, &a[pc*aps], ars, aps, bp, bs, boff, &c[jr], ldc, m8/8, acc)
			if r > 0 {
				g.ks.wide8(kb, last, ars, aps, bp, bs, boff, &g.rem[jr], nb, 1, false)
			}
			jr += nr
			continue
		}
		mask := 1<<min(nr, nb-jr) - 1
		if m8 >= 16 {
			g.ks.narrow16(kb, &a[pc*aps], ars, aps, bp, bs, &c[jr], ldc, mask, m8/16, acc)
		}
		if ir := m8 - m8%16; ir < m8 {
			g.ks.narrow8(kb, &a[ir*ars+pc*aps], ars, aps, bp, bs, &c[ir*ldc+jr], ldc, mask, acc)
		}
		if r > 0 {
			g.ks.narrow8(kb, last, ars, aps, bp, bs, &g.rem[jr], nb, mask, false)
		}
	}
	if r == 0 {
		return
	}
	dst, src := c[m8*ldc:], g.rem[(8-r)*nb:]
	if acc {
		AddRows(dst, ldc, src, nb, r, nb)
		return
	}
	for i := range r {
		copy(dst[i*ldc:][:nb], src[i*nb:][:nb])
	}
}

// tile16 computes the micro-tile at rows ir.., columns jr.. of the block
// (see block) with the mr×nr kernel: in place in C if the tile is full,
// else in g.tile and then added or copied to C's part of it.
func (g *Gemm) tile16(direct, directB, acc bool, a []float32, lda int, b []float32, ldb, ic, pc, jc, mb, nb, kb int, c []float32, ldc, ir, jr int) {
	nt, mt := min(nr, nb-jr), min(mr, mb-ir)
	bp, bs := &g.pb[jr*kb], nr
	if directB && nt == nr {
		bp, bs = &b[pc*ldb+jc+jr], ldb
	}
	full := mt == mr && nt == nr && len(c) >= (ir+mr-1)*ldc+jr+nr
	dst, ld, tacc := &g.tile[0], nr, false // a partial tile is stored in tile, then added or copied
	if full {
		dst, ld, tacc = &c[ir*ldc+jr], ldc, acc
	}
	if direct && mt == mr {
		g.ks.direct(kb, &a[(ic+ir)*lda+pc], lda, bp, bs, dst, ld, tacc)
	} else {
		g.ks.packed(kb, &g.pa[ir*kb], bp, bs, dst, ld, tacc)
	}
	if full {
		return
	}
	for i := range mt {
		row := c[(ir+i)*ldc+jr:][:nt]
		t := g.tile[i*nr : i*nr+nt]
		if !acc {
			copy(row, t)
			continue
		}
		for j, v := range t {
			row[j] += v
		}
	}
}

// packA copies alpha·op(A)[ic:ic+mb, pc:pc+kb] into panels of mr rows:
// panel q holds, for each p, the mr values op(A)[ic+q·mr+i, pc+p], zero
// past row mb.
func packA(trans bool, mb, kb int, alpha float32, a []float32, lda, ic, pc int, dst []float32) {
	for q := 0; q < mb; q += mr {
		panel := dst[q*kb : q*kb+mr*kb]
		rows := min(mr, mb-q)
		r0 := ic + q
		if trans { // op(A)'s column p is A's row pc+p: mr contiguous values
			if rows == mr && alpha == 1 { // the common full panel, a copy (v·1 = v)
				for p := range kb {
					*(*[mr]float32)(panel[p*mr:]) = *(*[mr]float32)(a[(pc+p)*lda+r0:])
				}
				continue
			}
			for p := range kb {
				dp := panel[p*mr : (p+1)*mr]
				for i, v := range a[(pc+p)*lda+r0:][:rows] {
					dp[i] = alpha * v
				}
				clear(dp[rows:])
			}
			continue
		}
		if rows == mr { // the common full panel: six rows read together
			a0, a1, a2 := a[r0*lda+pc:][:kb], a[(r0+1)*lda+pc:][:kb], a[(r0+2)*lda+pc:][:kb]
			a3, a4, a5 := a[(r0+3)*lda+pc:][:kb], a[(r0+4)*lda+pc:][:kb], a[(r0+5)*lda+pc:][:kb]
			for p := range kb {
				dp := (*[mr]float32)(panel[p*mr:])
				dp[0], dp[1], dp[2] = alpha*a0[p], alpha*a1[p], alpha*a2[p]
				dp[3], dp[4], dp[5] = alpha*a3[p], alpha*a4[p], alpha*a5[p]
			}
			continue
		}
		for p := range kb {
			dp := panel[p*mr : (p+1)*mr]
			for i := range rows {
				dp[i] = alpha * a[(r0+i)*lda+pc+p]
			}
			clear(dp[rows:])
		}
	}
}

// packB copies op(B)[pc:pc+kb, jc:jc+nb] into panels of nr columns: panel
// q holds, for each p, the nr values op(B)[pc+p, jc+q·nr+j], zero past
// column nb.
func packB(trans bool, kb, nb int, b []float32, ldb, pc, jc int, dst []float32) {
	for q := 0; q < nb; q += nr {
		panel := dst[q*kb : q*kb+nr*kb]
		cols := min(nr, nb-q)
		if trans {
			for j := range nr {
				if j >= cols {
					for p := range kb {
						panel[p*nr+j] = 0
					}
					continue
				}
				src := b[(jc+q+j)*ldb+pc:][:kb]
				for p, v := range src {
					panel[p*nr+j] = v
				}
			}
			continue
		}
		for p := range kb {
			row := panel[p*nr : (p+1)*nr]
			n := copy(row[:cols], b[(pc+p)*ldb+jc+q:][:cols])
			clear(row[n:])
		}
	}
}

// scale sets C = beta·C (C = 0 if beta = 0).
func scale(m, n int, beta float32, c []float32, ldc int) {
	if beta == 1 {
		return
	}
	for i := range m {
		row := c[i*ldc:][:n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// checkShape panics unless x holds a rows×cols matrix (cols×rows if trans)
// with row stride ld.
func checkShape(name string, trans bool, rows, cols int, x []float32, ld int) {
	if trans {
		rows, cols = cols, rows
	}
	if rows < 0 || cols < 0 || ld < max(1, cols) {
		panic(fmt.Sprintf("gemm32: %s is %d×%d with row stride %d", name, rows, cols, ld))
	}
	if rows > 0 && cols > 0 && len(x) < (rows-1)*ld+cols {
		panic(fmt.Sprintf("gemm32: %s is %d×%d with row stride %d but has %d elements", name, rows, cols, ld, len(x)))
	}
}

// kernelGo adds (if acc, else stores) the product of an mr×k packed panel
// a and a k×nr panel b (row stride ldb: nr if packed) to the mr×nr tile at
// c (row stride ldc); k ≥ 1.
func kernelGo(k int, a, b *float32, ldb int, c *float32, ldc int, acc bool) {
	ap := unsafe.Slice(a, k*mr)
	bp := unsafe.Slice(b, (k-1)*ldb+nr)
	var sum [mr][nr]float32
	for p := range k {
		brow := (*[nr]float32)(bp[p*ldb:])
		for i, av := range (*[mr]float32)(ap[p*mr:]) {
			for j, bv := range brow {
				sum[i][j] += av * bv
			}
		}
	}
	storeTile(&sum, c, ldc, acc)
}

// kernelDirectGo is kernelGo with the a panel read in place: six rows of a
// row-major matrix with row stride lda, k values each.
func kernelDirectGo(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, acc bool) {
	ap := unsafe.Slice(a, (mr-1)*lda+k)
	bp := unsafe.Slice(b, (k-1)*ldb+nr)
	var sum [mr][nr]float32
	for p := range k {
		brow := (*[nr]float32)(bp[p*ldb:])
		for i := range mr {
			av := ap[i*lda+p]
			for j, bv := range brow {
				sum[i][j] += av * bv
			}
		}
	}
	storeTile(&sum, c, ldc, acc)
}

// storeTile adds (if acc, else stores) the tile sum to the mr×nr tile at c
// (row stride ldc).
func storeTile(sum *[mr][nr]float32, c *float32, ldc int, acc bool) {
	ct := unsafe.Slice(c, (mr-1)*ldc+nr)
	for i := range mr {
		row := ct[i*ldc:][:nr]
		if !acc {
			copy(row, sum[i][:])
			continue
		}
		for j := range row {
			row[j] += sum[i][j]
		}
	}
}
