package gemm32

import "fmt"

// Conv computes the output rows of a small convolution directly from the
// (zero-padded) input image, without the im2col matrix, and bit-identical
// to Do on that matrix: each output is one product of a patch row of the
// im2col matrix with a kernel row, summed as Do(false, true, ...) sums it
// when the patch fits one depth block (at most 384 values): one term per
// patch position in order, from zero, with the kernels in use (one fused
// multiply-add per term in the assembly kernels, a rounded product and sum
// in the plain Go kernel). The assembly kernels compute twelve output
// pixels of at most eight channels at once, or with AVX2 six pixels of
// sixteen channels, with AVX-512 eight pixels of sixteen or six of
// thirty-two, and sixteen pixels of at most eight channels where the
// patches are one float apart (one input channel). AddGrad computes the
// kernel gradient the same way, as Do does from the im2col matrix: tiles
// of patch positions by blocks of output channels, each kernel call
// adding a run of pixels' terms (one FMA per pixel in order) to a tile's
// partial sums, which are added to the gradient after each depth block;
// with AVX-512 the tiles of a 5×5 patch of at most eight channels hold the
// positions in the lanes (two registers per channel), and 3×3 kernels of
// one or three input channels and more than 16 output channels take tiles
// of nine positions and thirty-two channels. A Conv owns its packed kernel
// and scratch buffers, so it does not allocate after its first calls of a
// given shape; it is not safe for concurrent use.
type Conv struct {
	w           []float32 // the kernel, per block of cw channels: patch rows of cw weights
	k           []float32 // the kernel as loaded (cout rows of patch), for the plain Go path
	cout, patch int
	cw          int        // channels per block of the assembly kernel in use: 8, 16 or 32
	ks          *kernelSet // the kernels of the loaded kernel (active's at Load, unless a test set own)
	own         *kernelSet // kernels fixed for this value by a test; nil = active
	s           []float32  // AddGrad's partial sums of a depth block, per channel block and tile
	runs        []convRun  // AddGrad's pixels of a depth block
	tiles       []convTile // AddGrad's tiles of patch positions (gradTiles)
	owner       []int32    // per patch position, its place in the tiles
	ownerAt     []int32    // per patch position, its first channel's offset in a channel block's sums (gradLayout)
	inOrder     bool       // tile t holds patch positions t·q … t·q + q − 1 in order (owner[p] = p)
	tileKey     [5]int     // the kh, rl, line, q and cw of tiles
	pixelState             // Pixels' runs and scratch (convpix.go)
}

// ConvDepth is the largest patch (kernel side² · input channels) Row and
// AddGrad compute; Do splits deeper patches into depth blocks (and Pixels
// the same way).
const ConvDepth = kc

// ConvWidth is the least number of output pixels Conv.Row computes for a
// kernel of cout output channels: the pixels of one assembly kernel call
// (12 for at most 8 channels, 8 for at most 16, else 6).
func ConvWidth(cout int) int {
	switch {
	case cout <= 8:
		return 12
	case cout <= 16:
		return 8
	}
	return 6
}

// Load sets the kernel: cout rows of patch weights, row o holding output
// channel o's weights in the order of the patch positions. Row and
// Pixels use the kernels in use at Load.
func (c *Conv) Load(w []float32, cout, patch int) {
	if cout < 1 || patch < 1 || len(w) < cout*patch {
		panic(fmt.Sprintf("gemm32: a convolution kernel of %d channels and patch %d in %d floats", cout, patch, len(w)))
	}
	c.cout, c.patch, c.k, c.ks = cout, patch, w[:cout*patch], active
	if c.own != nil {
		c.ks = c.own
	}
	switch {
	case c.ks.conv8 == nil:
		return // the plain Go path reads k
	case cout <= 8:
		c.cw = 8
	case cout > 16 && c.ks.convZ32 != nil:
		c.cw = 32
	default:
		c.cw = 16
	}
	blocks := (cout + c.cw - 1) / c.cw
	if n := blocks * c.cw * patch; len(c.w) < n {
		c.w = make([]float32, n)
	}
	for b := range blocks {
		dst := c.w[b*c.cw*patch : (b+1)*c.cw*patch]
		for j := range c.cw {
			o := b*c.cw + j
			if o >= cout {
				for p := range patch {
					dst[p*c.cw+j] = 0
				}
				continue
			}
			for p, v := range w[o*patch : (o+1)*patch] {
				dst[p*c.cw+j] = v
			}
		}
	}
}

// convMask holds the store masks of the AVX2 kernels: &convMask[8−n] is
// eight int32s of which the first n are all ones.
var convMask = [16]int32{-1, -1, -1, -1, -1, -1, -1, -1}

// Row computes n ≥ ConvWidth(cout) output pixels of the loaded kernel:
// out[x·ldo + o] = Σ over kernel rows i < kh and t < kc (kh·kc = patch) of
// src[x·xs + i·line + t] · w[o·patch + i·kc + t], for x < n, o < cout,
// summed as described at Conv. It writes nothing else in out.
func (c *Conv) Row(n, kh, kc int, src []float32, xs, line int, out []float32, ldo int) {
	if c.ks == nil || kh < 1 || kh*kc != c.patch || c.patch > ConvDepth || n < ConvWidth(c.cout) || xs < 0 || line < 0 || ldo < c.cout ||
		len(src) < (n-1)*xs+(kh-1)*line+kc || len(out) < (n-1)*ldo+c.cout {
		panic(fmt.Sprintf("gemm32: a convolution row of %d pixels, %d×%d patch (kernel %d×%d), strides %d, %d, %d, in %d and %d floats",
			n, kh, kc, c.cout, c.patch, xs, line, ldo, len(src), len(out)))
	}
	if !used.Load() {
		used.Store(true)
	}
	ks := c.ks
	if ks.conv8 == nil {
		convRowGo(c.k, c.cout, n, kh, kc, src, xs, line, out, ldo)
		return
	}
	// Each call computes r pixels; the last may recompute pixels of the one
	// before (the same values) so that every call is whole.
	switch {
	case c.cw == 8 && xs == 1 && n >= 16 && ks.convZ8x16 != nil: // sixteen pixels a call, the last flush with the row's end
		for x0 := 0; x0 < n; x0 += 16 {
			x := min(x0, n-16)
			ks.convZ8x16(kh, kc, &src[x], line, &c.w[0], &out[x*ldo], ldo, 1<<c.cout-1)
		}
	case c.cw == 8:
		x0 := 0
		if ks.convZ8 != nil { // eighteen pixels a call while as many are left, then twelve
			for ; n-x0 >= 18; x0 += 18 {
				ks.convZ8(kh, kc, &src[x0*xs], xs, line, &c.w[0], &out[x0*ldo], ldo, 1<<c.cout-1)
			}
		}
		r, mask := 12, &convMask[8-c.cout]
		for ; x0 < n; x0 += r {
			x := min(x0, n-r)
			ks.conv8(kh, kc, &src[x*xs], xs, line, &c.w[0], &out[x*ldo], ldo, mask, ldo == c.cout && c.cout >= 4)
		}
	case c.cw == 32:
		for b := 0; b < c.cout; b += 32 {
			left := c.cout - b
			m0, m1 := 1<<min(16, left)-1, 1<<max(0, min(16, left-16))-1
			w := &c.w[b*c.patch]
			for x0 := 0; x0 < n; x0 += 6 {
				x := min(x0, n-6)
				ks.convZ32(kh, kc, &src[x*xs], xs, line, w, &out[x*ldo+b], ldo, m0, m1)
			}
		}
	case c.cout <= 16 && ks.convZ16 != nil:
		x0, tens := 0, n/10*10
		if ks.convZ10 != nil && tens+(n-tens+7)/8*8 <= (n+7)/8*8 { // ten pixels a call, then eight, where that computes fewer
			for ; x0 < tens; x0 += 10 {
				ks.convZ10(kh, kc, &src[x0*xs], xs, line, &c.w[0], &out[x0*ldo], ldo, 1<<c.cout-1)
			}
		}
		r := 8
		for ; x0 < n; x0 += r {
			x := min(x0, n-r)
			ks.convZ16(kh, kc, &src[x*xs], xs, line, &c.w[0], &out[x*ldo], ldo, 1<<c.cout-1)
		}
	default:
		for b := 0; b < c.cout; b += 16 {
			left := c.cout - b
			m0, m1 := &convMask[8-min(8, left)], &convMask[8-max(0, min(8, left-8))]
			w := &c.w[b*c.patch]
			for x0 := 0; x0 < n; x0 += 6 {
				x := min(x0, n-6)
				ks.conv16(kh, kc, &src[x*xs], xs, line, w, &out[x*ldo+b], ldo, m0, m1, left >= 16)
			}
		}
	}
}

// convRowGo is Row with the plain Go kernel's arithmetic: each output a
// sum from zero, term by term in patch order, of rounded products (as
// kernelGo sums it).
func convRowGo(k []float32, cout, n, kh, kc int, src []float32, xs, line int, out []float32, ldo int) {
	patch := kh * kc
	for x := range n {
		for o := range cout {
			w := k[o*patch : (o+1)*patch]
			var sum float32
			for i := range kh {
				row := src[x*xs+i*line:][:kc]
				for t, v := range row {
					sum += v * w[i*kc+t]
				}
			}
			out[x*ldo+o] = sum
		}
	}
}

// ConvPixels are the output pixels of a group of images for AddGrad: N
// images of H×W output pixels, taken in the order (image, y, x); the patch
// of pixel (s, y, x) starts at s·SS + y·YS + x·XS of the input.
type ConvPixels struct{ N, H, W, SS, YS, XS int }

// ConvSlack is the number of floats AddGrad may read past the last patch
// row of the input (and past any patch row, inside the input): the kernels
// read whole tiles of 12 or 6 patch positions, or 8 floats from a patch
// row's start. The values read there do not change the result.
const ConvSlack = 12

// AddGrad adds to gw (cout rows of kh·rl weights) the kernel gradient of
// the pixels px of the input src: gw[o·kh·rl + i·rl + t] += Σ over the
// pixels r in order of dg[r·ldg + o] · src[patch start of r + i·line + t],
// bit-identical to Do(true, false, cout, kh·rl, pixels, 1, dg, ldg, col,
// kh·rl, 1, gw, kh·rl) on the im2col matrix col of those pixels: the
// pixels are split into Do's depth blocks, each block's sums taken term by
// term from zero with the kernels in use and then added to gw. src must
// hold ConvSlack floats past the last pixel's last patch row.
func (c *Conv) AddGrad(gw []float32, cout, kh, rl int, dg []float32, ldg int, src []float32, line int, px ConvPixels) {
	K, patch := px.N*px.H*px.W, kh*rl
	last := (px.N-1)*px.SS + (px.H-1)*px.YS + (px.W-1)*px.XS + (kh-1)*line + rl
	if cout < 1 || kh < 1 || rl < 1 || patch > ConvDepth || px.N < 1 || px.H < 1 || px.W < 1 || px.SS < 0 || px.YS < 0 || px.XS < 0 ||
		line < 0 || ldg < cout || len(gw) < cout*patch ||
		len(dg) < (K-1)*ldg+cout || len(src) < last+ConvSlack {
		panic(fmt.Sprintf("gemm32: a kernel gradient of %d channels, %d×%d patch, pixels %+v, row stride %d, in %d, %d and %d floats",
			cout, kh, rl, px, line, len(gw), len(dg), len(src)))
	}
	if !used.Load() {
		used.Store(true)
	}
	ks := active
	if c.own != nil {
		ks = c.own
	}
	nb := (K + kc - 1) / kc
	kd := (K + nb - 1) / nb // Do's depth blocks
	if ks.grad8 == nil {
		addGradGo(gw, cout, kh, rl, dg, ldg, src, line, px, kd)
		return
	}
	cw, q := 16, 6
	switch {
	case cout <= 8:
		cw, q = 8, 12
	case ks.gradZ16 != nil:
		q = 12
	}
	if cw == 8 && ks.grad8x30 != nil && rl <= 6 && kh >= 5 && (kh+4)/5*30 <= (kh+1)/2*12 {
		q = 30 // tiles of five kernel rows, where they compute fewer positions than tiles of two (kh = 5: 30 rather than 36)
	}
	if cw == 8 && kh == 5 && rl == 5 && ks.gradZ25 != nil {
		q = 25 // the whole 5×5 patch, the positions in the lanes
	}
	if cw == 16 && q == 12 && ks.gradZ15 != nil {
		if n, _ := tiles15(kh, rl); n > 0 && n <= tiles12(kh, rl) {
			q = 15 // tiles of fifteen positions, where they compute no more than tiles of twelve
		}
	}
	if cout > 16 && q != 6 && ks.gradZ9 != nil {
		n := tiles12(kh, rl)
		if q == 15 {
			n, _ = tiles15(kh, rl)
		}
		if n9, _ := tiles9(kh, rl); n9 > 0 && n9*2*((cout+31)/32) < n*((cout+15)/16) {
			cw, q = 32, 9 // tiles of nine positions and thirty-two channels, where they take fewer FMAs
		}
	}
	c.gradTiles(kh, rl, line, q, cw)
	blocks, nt := (cout+cw-1)/cw, len(c.tiles)
	tile, cs, _ := gradLayout(q, cw)
	if n := blocks*nt*tile + 16; len(c.s) < n {
		c.s = make([]float32, n)
	}
	sums := c.s[:blocks*nt*tile+16] // 16 floats past the last tile for addTransposed
	for pc := 0; pc < K; pc += kd {
		kb := min(kd, K-pc)
		c.runs = c.runs[:0] // the block's pixels as runs along image rows, whole rows of an image together
		for r := pc; r < pc+kb; {
			x, y, s := r%px.W, r/px.W%px.H, r/(px.W*px.H)
			n, rows := min(px.W-x, pc+kb-r), 1
			if n == px.W {
				rows = min(px.H-y, (pc+kb-r)/px.W)
			}
			c.runs = append(c.runs, convRun{r, n, rows, s*px.SS + y*px.YS + x*px.XS})
			r += n * rows
		}
		skip := px.YS - px.W*px.XS // from a whole row's end to the next row's start
		clear(sums)
		for b := range blocks {
			left := cout - b*cw
			m0, m1 := &convMask[8-min(8, left)], &convMask[8-max(0, min(8, left-8))]
			for ti, tl := range c.tiles {
				st := &sums[(b*nt+ti)*tile]
				for _, u := range c.runs {
					at, d := &src[u.at+tl.off], &dg[u.r*ldg+b*cw]
					switch {
					case q == 25:
						ks.gradZ25(u.n, at, px.XS, tl.rowoff, d, ldg, min(8, left), st, u.rows, skip)
					case q == 9:
						ks.gradZ9(u.n, at, px.XS, tl.rowoff, d, ldg, 1<<min(16, left)-1, 1<<max(0, min(16, left-16))-1, st, u.rows, skip)
					case q == 15:
						ks.gradZ15(u.n, at, px.XS, tl.rowoff, d, ldg, 1<<min(16, left)-1, st, u.rows, skip)
					case q == 30:
						ks.grad8x30(u.n, at, px.XS, tl.rowoff, d, ldg, m0, st, u.rows, skip)
					case cw == 8:
						ks.grad8(u.n, at, px.XS, tl.rowoff, d, ldg, m0, st, u.rows, skip)
					case q == 12:
						ks.gradZ16(u.n, at, px.XS, tl.rowoff, d, ldg, 1<<min(16, left)-1, st, u.rows, skip)
					default:
						ks.grad16(u.n, at, px.XS, d, ldg, m0, m1, st, u.rows, skip)
					}
				}
			}
		}
		if cs == 1 && q <= 16 && c.inOrder { // each tile's sums transposed, 16 channels at a time
			for b := range blocks {
				for ti := range nt {
					for h := 0; h < cw && b*cw+h < cout; h += 16 {
						addTransposed(gw[(b*cw+h)*patch+ti*q:], patch, sums[(b*nt+ti)*tile+h:], cw, q, min(16, cw-h, cout-b*cw-h))
					}
				}
			}
			continue
		}
		for o := range cout {
			b, lane := o/cw, o%cw
			row, bs := gw[o*patch : (o+1)*patch][:len(c.ownerAt)], sums[b*nt*tile+lane*cs:]
			if cs > 1 { // the positions in the lanes: a tile's sums of a channel are its positions in order
				n := patch / nt
				for ti := range nt {
					AddTo(row[ti*n:(ti+1)*n], bs[ti*tile:][:n])
				}
				continue
			}
			for p, at := range c.ownerAt {
				row[p] += bs[at]
			}
		}
	}
}

// gradLayout gives the layout of AddGrad's sums for tiles of q positions
// and channel blocks of cw: the floats of a tile's sums, from a channel's
// sums to the next's (cs) and from a position's to the next's (ps). The
// kernel of whole 5×5 patches holds the positions in the lanes, 32 floats
// to a channel; the others hold the channels in the lanes.
func gradLayout(q, cw int) (tile, cs, ps int) {
	if q == 25 {
		return 32 * cw, 32, 1
	}
	return q * cw, 1, cw
}

// convRun is a run of AddGrad's pixels: rows image rows of n pixels (whole
// rows if more than one), the first pixel r, its patch at src[at].
type convRun struct{ r, n, rows, at int }

// convTile is a tile of q patch positions of AddGrad's kernels: positions
// 0–5 at off + p floats from a patch's start, 6–11 at off + rowoff + p − 6
// (with thirty positions, 6i + p at off + i·rowoff + p; with fifteen,
// 5g + p at off + g·rowoff + p; with nine, 3g + p at off + g·rowoff + p;
// with twenty-five, 5i + p at i·rowoff + p).
type convTile struct{ off, rowoff int }

// gradTiles sets c.tiles to tiles of q positions covering a patch of kh
// rows of rl values, line floats apart, c.owner[i·rl + t] to the index
// (tile · q + position) of the first tile position holding (i, t) and
// c.ownerAt to the offsets of their sums in a channel block's (gradLayout),
// and c.inOrder to whether tile t holds positions t·q … t·q + q − 1. With
// twenty-five positions, a tile is the whole 5×5 patch; with thirty, rows
// of at most six values go five rows to a tile; with fifteen (nine), three
// rows of five (three) values or fifteen (nine) values of a row (tiles15,
// tiles9); with twelve, rows of at most six values go two rows to a tile;
// otherwise a tile is q consecutive values of a row, the last one flush
// with the row's end (overlapping the one before) where the row is long
// enough. Positions past a row's rl values are read but unused.
func (c *Conv) gradTiles(kh, rl, line, q, cw int) {
	key := [5]int{kh, rl, line, q, cw}
	if c.tileKey == key && c.tiles != nil {
		return
	}
	defer func() {
		tile, _, ps := gradLayout(q, cw)
		c.ownerAt = c.ownerAt[:0]
		for _, at := range c.owner {
			c.ownerAt = append(c.ownerAt, at/int32(q)*int32(tile)+at%int32(q)*int32(ps))
		}
		c.inOrder = len(c.owner) == len(c.tiles)*q
		for p, at := range c.owner {
			c.inOrder = c.inOrder && int(at) == p
		}
	}()
	c.tileKey, c.tiles = key, c.tiles[:0]
	c.owner = append(c.owner[:0], make([]int32, kh*rl)...)
	for i := range c.owner {
		c.owner[i] = -1
	}
	claim := func(i, t, at int) {
		if t < rl && c.owner[i*rl+t] < 0 {
			c.owner[i*rl+t] = int32(at)
		}
	}
	if q == 25 { // one tile, the whole patch
		for p := range 25 {
			claim(p/5, p%5, p)
		}
		c.tiles = append(c.tiles, convTile{0, line})
		return
	}
	if q == 15 || q == 9 {
		gs := q / 3 // values to a group
		if _, rows := tilesOfThree(kh, rl, gs); !rows {
			// q consecutive values of a row, the last tile flush with the row's end
			for i := range kh {
				for j := 0; j*q < rl; j++ {
					t0 := min(j*q, rl-q)
					for p := range q {
						claim(i, t0+p, len(c.tiles)*q+p)
					}
					c.tiles = append(c.tiles, convTile{i*line + t0, gs})
				}
			}
			return
		}
		for i0 := 0; i0 < kh; i0 += 3 { // three kernel rows of gs values, the last tiles flush with the last row and the rows' end
			i := min(i0, kh-3)
			for j := 0; j*gs < rl; j++ {
				t0 := min(j*gs, max(0, rl-gs))
				for g := range 3 {
					for p := range gs {
						claim(i+g, t0+p, len(c.tiles)*q+gs*g+p)
					}
				}
				c.tiles = append(c.tiles, convTile{i*line + t0, line})
			}
		}
		return
	}
	if q == 30 { // five kernel rows of six positions, the last tile flush with the last row
		for i0 := 0; i0 < kh; i0 += 5 {
			i := min(i0, kh-5)
			for r := range 5 {
				for p := range 6 {
					claim(i+r, p, len(c.tiles)*q+6*r+p)
				}
			}
			c.tiles = append(c.tiles, convTile{i * line, line})
		}
		return
	}
	if q == 12 && rl <= 6 && kh >= 2 {
		for i0 := 0; i0 < kh; i0 += 2 {
			i := min(i0, kh-2)
			for p := range 6 {
				claim(i, p, len(c.tiles)*q+p)
				claim(i+1, p, len(c.tiles)*q+6+p)
			}
			c.tiles = append(c.tiles, convTile{i * line, line})
		}
		return
	}
	for i := range kh {
		for j := 0; j*q < rl; j++ {
			t0 := min(j*q, max(0, rl-q))
			for p := range q {
				claim(i, t0+p, len(c.tiles)*q+p)
			}
			c.tiles = append(c.tiles, convTile{i*line + t0, 6})
		}
	}
}

// tiles12 is the number of patch positions the tiles of twelve compute for
// a patch of kh rows of rl values.
func tiles12(kh, rl int) int {
	if rl <= 6 && kh >= 2 {
		return (kh + 1) / 2 * 12
	}
	return kh * ((rl + 11) / 12) * 12
}

// tiles15 is the number of patch positions the tiles of fifteen compute
// for a patch of kh rows of rl values (0 where they do not fit) and
// whether they take three kernel rows of five values (rows) rather than
// fifteen consecutive values of a row: the way that computes fewer.
func tiles15(kh, rl int) (n int, rows bool) { return tilesOfThree(kh, rl, 5) }

// tiles9 is tiles15 for the tiles of nine positions: three kernel rows of
// three values or nine values of a row.
func tiles9(kh, rl int) (n int, rows bool) { return tilesOfThree(kh, rl, 3) }

// tilesOfThree is the number of patch positions tiles of three groups of
// gs values compute for a patch of kh rows of rl values (0 where they do
// not fit) and whether they take three kernel rows of gs values (rows)
// rather than 3·gs consecutive values of a row: the way that computes
// fewer, along a row on a tie.
func tilesOfThree(kh, rl, gs int) (n int, rows bool) {
	q, along, across := 3*gs, 0, 0
	if rl >= q {
		along = kh * ((rl + q - 1) / q) * q
	}
	if kh >= 3 {
		across = (kh + 2) / 3 * ((rl + gs - 1) / gs) * q
	}
	if across > 0 && (along == 0 || across < along) {
		return across, true
	}
	return along, false
}

// addGradGo is AddGrad with the plain Go kernel's arithmetic (rounded
// products summed from zero per depth block of kd pixels, as kernelGo).
func addGradGo(gw []float32, cout, kh, rl int, dg []float32, ldg int, src []float32, line int, px ConvPixels, kd int) {
	K, patch := px.N*px.H*px.W, kh*rl
	for pc := 0; pc < K; pc += kd {
		kb := min(kd, K-pc)
		for o := range cout {
			for i := range kh {
				for t := range rl {
					var sum float32
					for r := pc; r < pc+kb; r++ {
						x, y, s := r%px.W, r/px.W%px.H, r/(px.W*px.H)
						sum += dg[r*ldg+o] * src[s*px.SS+y*px.YS+x*px.XS+i*line+t]
					}
					gw[o*patch+i*rl+t] += sum
				}
			}
		}
	}
}
