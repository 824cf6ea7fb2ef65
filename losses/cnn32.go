package losses

import (
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/gemm32"
	"github.com/fedlab/fedlab/internal/pool32"
)

// cnnEval32 evaluates a CNN (CNN.Float32) in float32 with gemm32. Precision
// is converted at the loss boundary only: Eval rounds the model w and the
// chunk's input rows to float32, accumulates the gradient in float32 and
// writes it to grad as float64; the loss sum and each sample's softmax
// cross-entropy (K values) are computed in float64 from the float32 logits.
//
// A chunk's samples go through each layer together: a convolution is an
// im2col (rows = the output pixels of a group of samples, see colGroup) and
// a GEMM with the kernel per group, its gradients two GEMMs and a col2im per
// group; the dense layers are GEMMs over the chunk (dense32). A layer with
// few input channels is computed without im2col where the assembly kernels
// run (directConv): its output and kernel gradient straight from the
// chunk's padded images (gemm32.Conv), the same bits; elsewhere it keeps
// the chunk's im2col matrix from forward for backward instead of building
// it twice (keepCol). A layer with more input channels computes its
// output from the chunk's padded images where AVX-512 runs
// (implicitConv: gemm32.Conv.Pixels, every output pixel of a group of
// samples in calls of six), its input gradient straight from its output
// gradient (backConv: gemm32.ConvBack, no product matrix and col2im), and
// its kernel gradient through the im2col matrix built from the same padded
// images; the same bits. All buffers are sized on first use, so later
// calls do not allocate.
type cnnEval32 struct {
	cnnShape
	gemm gemm32.Gemm

	w32, g32  []float32          // the model and the gradient being accumulated (conv kernels permuted, see conv32.go)
	x         []float32          // a chunk's input images, channels last
	col, dcol []float32          // im2col matrix of a group of samples (colGroup) and its gradient
	pad       []float32          // a zero-padded input image of im2col32
	keep      [][]float32        // per convolutional layer with few input channels (keepCol): the chunk's im2col matrix, built by forward, read by backward
	conv      []*gemm32.Conv     // per convolutional layer computed directly (directConv), else nil
	pix       []*gemm32.Conv     // per convolutional layer whose output is computed from its padded images at every pixel (implicitConv), else nil
	at        []int              // the offsets of a group of output pixels' patches in the padded images (convPixels)
	back      []*gemm32.ConvBack // per convolutional layer ℓ ≥ 1 whose input gradient is computed from its output gradient directly (backConv), else nil
	classes   [][]backClass      // per layer with back: its input pixels by class of gradient terms
	wt        [][]float32        // per layer through im2col: its kernel transposed (patch × cout), which forward's GEMM reads in place
	padded    [][]float32        // per layer computed directly or implicitly: the chunk's zero-padded input images (padSize each, then gemm32.ConvSlack zeros), built by forward, read by backward
	out       [][]float32        // per convolutional layer: output before bias and ReLU, rows (sample, y, x), columns channels
	dout      []float32          // gradient at a convolution's output
	pooled    [][]float32        // per convolutional layer: pooled output, channels last (the last layer: channel by channel)
	arg       [][]int32          // index in out of each pooled maximum (channels last where poolKernels)
	poolKern  bool               // 2×2 pools run on pool32's kernels (poolKernels)
	lastCL    []float32          // with poolKern: the last layer's pooled map channels last (pooled[last] is planar), kept for backward
	dpCL      []float32          // with poolKern: the gradient at the last pooled map, channels last
	din       [][]float32        // din[ℓ], ℓ ≥ 1: gradient at convolutional layer ℓ's input
	head      dense32            // the dense layers; head.delta[0] is the gradient at the flattened last pooled map
}

// check checks the arguments (cnnShape.check) and sizes the buffers on
// first use.
func (e *cnnEval32) check(w []float64, d *core.Data, grad []float64) {
	e.cnnShape.check(w, d, grad)
	if e.out != nil {
		return
	}
	n := len(e.geo)
	e.w32, e.g32 = make([]float32, e.dim), make([]float32, e.dim)
	e.x = make([]float32, cnnChunk*e.geo[0].inSize())
	e.out, e.pooled, e.arg, e.din = make([][]float32, n), make([][]float32, n), make([][]int32, n), make([][]float32, n)
	e.keep, e.conv, e.padded, e.wt = make([][]float32, n), make([]*gemm32.Conv, n), make([][]float32, n), make([][]float32, n)
	e.pix, e.back, e.classes = make([]*gemm32.Conv, n), make([]*gemm32.ConvBack, n), make([][]backClass, n)
	maxCol, maxOut, maxPad, maxAt := 0, 0, 0, 0
	for i, g := range e.geo {
		e.out[i] = make([]float32, cnnChunk*g.outSize())
		e.pooled[i] = make([]float32, cnnChunk*g.poolSize())
		e.arg[i] = make([]int32, cnnChunk*g.poolSize())
		if i > 0 {
			e.din[i] = make([]float32, cnnChunk*g.inSize())
		}
		switch {
		case directConv(g):
			e.conv[i] = new(gemm32.Conv)
			e.padded[i] = make([]float32, cnnChunk*padSize(g)+gemm32.ConvSlack)
		case implicitConv(g):
			e.pix[i] = new(gemm32.Conv)
			e.padded[i] = make([]float32, cnnChunk*padSize(g)+gemm32.ConvSlack)
			maxAt = max(maxAt, pixGroup(g)*g.ho*g.wo)
			if i > 0 && backConv(g) {
				e.back[i], e.classes[i] = new(gemm32.ConvBack), backClasses(g)
			}
		case keepCol(g):
			e.keep[i] = make([]float32, cnnChunk*g.ho*g.wo*g.patch())
		}
		if e.conv[i] == nil && e.pix[i] == nil && !kernelTOff {
			e.wt[i] = make([]float32, g.patch()*g.cout)
		}
		if i == n-1 {
			e.poolKern = poolKernels(g.pool)
			if e.poolKern {
				e.lastCL, e.dpCL = make([]float32, cnnChunk*g.poolSize()), make([]float32, cnnChunk*g.poolSize())
			}
		}
		maxCol = max(maxCol, colGroup(g)*g.patch()*g.ho*g.wo)
		maxOut = max(maxOut, cnnChunk*g.outSize())
		maxPad = max(maxPad, padSize(g))
	}
	e.col, e.dcol, e.dout = make([]float32, maxCol), make([]float32, maxCol), make([]float32, maxOut)
	e.pad, e.at = make([]float32, maxPad), make([]int, maxAt)
	e.head = newDense32("cnn", e.sizes, e.kernels[n:], e.biases[n:], cnnChunk, true)
}

// load rounds the model to float32, permuting the convolution kernels to
// the float32 path's column order.
func (e *cnnEval32) load(w []float64) {
	gemm32.Round(e.w32, w[:e.dim])
	for li, g := range e.geo {
		k := of32(e.kernels[li], e.w32)
		permuteKernel32(g, e.kernels[li].Of(w), k, true)
		if wt := e.wt[li]; wt != nil {
			for o := range g.cout {
				for p, v := range k[o*g.patch() : (o+1)*g.patch()] {
					wt[p*g.cout+o] = v
				}
			}
		}
	}
}

// store writes the float32 gradient to grad, permuting the convolution
// kernels back to the layout's column order.
func (e *cnnEval32) store(grad []float64) {
	gemm32.Widen(grad, e.g32)
	for li, g := range e.geo {
		permuteKernel32(g, e.kernels[li].Of(grad), of32(e.kernels[li], e.g32), false)
	}
}

// input rounds the m input rows of a chunk starting at position start of
// the batch (rows idx, or all rows if idx is nil) to float32, channels last.
func (e *cnnEval32) input(d *core.Data, idx []int, start, m int) []float32 {
	g := e.geo[0]
	F, plane := g.inSize(), g.h*g.w
	for r := range m {
		img := e.x[r*F : (r+1)*F]
		i := mlpRow(idx, start+r)
		if lv := d.Levels; lv != nil {
			for c := range g.cin { // channel c's plane to every cin-th value from c
				for p, b := range d.X8[i*F+c*plane : i*F+(c+1)*plane] {
					img[p*g.cin+c] = float32(lv[b])
				}
			}
			continue
		}
		if g.cin == 1 { // channels last is the row's order
			gemm32.Round(img, d.Row(i))
			continue
		}
		row := d.Row(i)
		for c := range g.cin {
			for p, v := range row[c*plane : (c+1)*plane] {
				img[p*g.cin+c] = float32(v)
			}
		}
	}
	return e.x[:m*F]
}

// layerInput is the input of convolutional layer li for the chunk.
func (e *cnnEval32) layerInput(x []float32, li int) []float32 {
	if li == 0 {
		return x
	}
	return e.pooled[li-1]
}

// forward propagates the m samples x and leaves the logits in head.act[L].
func (e *cnnEval32) forward(x []float32, m int) {
	for li, g := range e.geo {
		P, patch, in := g.ho*g.wo, g.patch(), e.layerInput(x, li)
		if c := e.conv[li]; c != nil {
			padImages(g, in, m, e.padded[li])
			step := e.poolStep(li, m)
			for s0 := 0; s0 < m; s0 += step { // pooled while the group's output is in the cache
				n := min(step, m-s0)
				convDirect(c, g, of32(e.kernels[li], e.w32), e.padded[li][s0*padSize(g):], n, e.out[li][s0*g.outSize():])
				if step < m {
					maxPool2KernelsFrom(g, e.out[li], of32(e.biases[li], e.w32), s0, n, e.pooled[li], e.arg[li])
				}
			}
			if step == m {
				e.pool(li, m)
			}
			continue
		}
		if c := e.pix[li]; c != nil {
			convPixels(c, g, of32(e.kernels[li], e.w32), padImages(g, in, m, e.padded[li]), m, e.out[li], e.at)
			e.pool(li, m)
			continue
		}
		for s0 := 0; s0 < m; s0 += colGroup(g) {
			n := min(colGroup(g), m-s0)
			col, out := e.colOf(li, s0, n), e.out[li][s0*P*g.cout:(s0+n)*P*g.cout]
			im2col32(g, in[s0*g.inSize():], n, col, e.pad)
			if wt := e.wt[li]; wt != nil { // the same sums, without packing the kernel's transpose for every group
				e.gemm.Do(false, false, n*P, g.cout, patch, 1, col, patch, wt, g.cout, 0, out, g.cout)
			} else {
				e.gemm.Do(false, true, n*P, g.cout, patch, 1, col, patch, of32(e.kernels[li], e.w32), patch, 0, out, g.cout)
			}
		}
		e.pool(li, m)
	}
	e.head.forward(&e.gemm, e.w32, e.pooled[len(e.geo)-1], m)
}

// Eval returns the mean loss over the rows idx of d (all rows if idx is nil)
// and, if grad is not nil, overwrites grad with the gradient. With no rows
// it returns 0 and a zero gradient.
func (e *cnnEval32) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	e.check(w, d, grad)
	return evalChunks(e, w, d, idx, grad, e.dim, cnnChunk)
}

// parts returns the dense head and the float32 gradient (see net32).
func (e *cnnEval32) parts() (*dense32, []float32) { return &e.head, e.g32 }

// backward adds the chunk's gradient to g32, starting from the logits'
// gradient in head.delta[L].
func (e *cnnEval32) backward(x []float32, m int) {
	nc := len(e.geo)
	e.head.backward(&e.gemm, e.w32, e.g32, e.pooled[nc-1], m)
	for li := nc - 1; li >= 0; li-- {
		g := e.geo[li]
		rows := m * g.ho * g.wo
		dp := e.head.delta[0]
		if li < nc-1 {
			dp = e.din[li+1]
		}
		dp = dp[:m*g.poolSize()]
		dout := e.dout[:rows*g.cout]
		byGroup := e.conv[li] != nil && e.poolStep(li, m) < m // unpooled group by group, while the group's gradient is in the cache
		if !byGroup {
			e.unpool(li, dp, dout, m)
		}
		P, patch, in := g.ho*g.wo, g.patch(), e.layerInput(x, li)
		line := (g.w + 2*g.p) * g.cin
		for s0 := 0; s0 < m; s0 += colGroup(g) {
			n := min(colGroup(g), m-s0)
			dg := dout[s0*P*g.cout : (s0+n)*P*g.cout]
			if byGroup {
				unpool2KernelsFrom(g, dp, e.pooled[li], e.arg[li], s0, n, dout, of32(e.biases[li], e.g32))
			}
			if c := e.conv[li]; c != nil { // the kernel gradient from forward's padded images
				px := gemm32.ConvPixels{N: n, H: g.ho, W: g.wo, SS: padSize(g), YS: line, XS: g.cin}
				c.AddGrad(of32(e.kernels[li], e.g32), g.cout, g.k, g.k*g.cin, dg, g.cout, e.padded[li][s0*padSize(g):], line, px)
			} else {
				col := e.colOf(li, s0, n)
				switch {
				case e.pix[li] != nil: // from forward's padded images
					im2colPadded32(g, e.padded[li][s0*padSize(g):], n, col)
				case e.keep[li] == nil: // else forward left the chunk's im2col matrix in keep
					im2col32(g, in[s0*g.inSize():], n, col, e.pad)
				}
				e.gemm.Do(true, false, g.cout, patch, n*P, 1, dg, g.cout, col, patch, 1, of32(e.kernels[li], e.g32), patch)
			}
			if li == 0 || e.back[li] != nil {
				continue
			}
			dcol := e.dcol[:n*P*patch]
			e.gemm.Do(false, false, n*P, patch, g.cout, 1, dg, g.cout, of32(e.kernels[li], e.w32), patch, 0, dcol, patch)
			col2im32(g, dcol, n, e.din[li][s0*g.inSize():])
		}
		if c := e.back[li]; c != nil {
			inputGradBack(c, g, of32(e.kernels[li], e.w32), dout, m, e.din[li], e.classes[li])
		}
	}
}

// pool max-pools layer li's output of the m samples into pooled[li] (with
// the layer's bias and ReLU), recording the maxima in arg[li]: with
// pool32's kernels (channels last, the last layer through lastCL) where
// poolKern, else maxPool32; the same bits either way.
func (e *cnnEval32) pool(li, m int) {
	g, last, b := e.geo[li], li == len(e.geo)-1, of32(e.biases[li], e.w32)
	if !e.poolKern {
		maxPool32(g, e.out[li], b, m, e.pooled[li], e.arg[li], last)
		return
	}
	if !last {
		maxPool2Kernels(g, e.out[li], b, m, e.pooled[li], e.arg[li])
		return
	}
	maxPool2Kernels(g, e.out[li], b, m, e.lastCL, e.arg[li])
	transposePool(g, e.lastCL, m, e.pooled[li], true)
}

// poolStep is the number of samples of layer li whose output forward
// computes before pooling it: m, or, for a direct layer pooled with
// pool32's kernels (not the last), as many as fit colBudget (at least
// one), pooled while they are in the cache; backward then unpools such a
// layer by its groups of colGroup samples. The same bits either way.
func (e *cnnEval32) poolStep(li, m int) int {
	if !e.poolKern || li == len(e.geo)-1 || poolStepOff {
		return m
	}
	return min(m, max(1, colBudget/e.geo[li].outSize()))
}

// poolStepOff makes forward pool every layer once for the chunk (tests
// compare the two ways).
var poolStepOff = false

// unpool overwrites dout with the gradient at layer li's output of the m
// samples from dp, the gradient at its pooled map, and adds the bias
// gradient to g32 (unpool32, or pool32's kernels where poolKern).
func (e *cnnEval32) unpool(li int, dp, dout []float32, m int) {
	g, last := e.geo[li], li == len(e.geo)-1
	b, gb := of32(e.biases[li], e.w32), of32(e.biases[li], e.g32)
	if !e.poolKern {
		run := 1 // see unpool32
		if last {
			run = g.hp * g.wp
		}
		unpool32(dp, e.arg[li][:m*g.poolSize()], e.out[li], b, dout, gb, run)
		return
	}
	pooled := e.pooled[li]
	if last {
		transposePool(g, e.dpCL, m, dp, false)
		dp, pooled = e.dpCL, e.lastCL
	}
	unpool2Kernels(g, dp, pooled, e.arg[li], m, dout, gb)
}

// padImages copies the m images in (geometry g, channels last) into
// padded, each with its border of g.p zeros (padSize(g) floats), and
// returns padded, which holds gemm32.ConvSlack floats more.
func padImages(g convGeom, in []float32, m int, padded []float32) []float32 {
	for s := range m {
		padImage(g, in[s*g.inSize():(s+1)*g.inSize()], padded[s*padSize(g):])
	}
	return padded
}

// convDirect computes the convolution output out of the m zero-padded
// images padded (padImages) with kernel w, row by row, bit-identical to
// im2col32 and the product of forward (gemm32.Conv).
func convDirect(c *gemm32.Conv, g convGeom, w, padded []float32, m int, out []float32) {
	c.Load(w, g.cout, g.patch())
	line, size := (g.w+2*g.p)*g.cin, padSize(g)
	for s := range m {
		img := padded[s*size : (s+1)*size]
		for y := range g.ho {
			c.Row(g.wo, g.k, g.k*g.cin, img[y*line:], g.cin, line, out[(s*g.ho+y)*g.wo*g.cout:], g.cout)
		}
	}
}

// convPixels computes the convolution output out of the m zero-padded
// images padded (padImages) with kernel w, the output pixels of pixGroup
// samples at a time (at: room for their offsets), bit-identical to
// im2col32 and the product of forward (gemm32.Conv.Pixels).
func convPixels(c *gemm32.Conv, g convGeom, w, padded []float32, m int, out []float32, at []int) {
	c.Load(w, g.cout, g.patch())
	line, size, P := (g.w+2*g.p)*g.cin, padSize(g), g.ho*g.wo
	for s0 := 0; s0 < m; s0 += pixGroup(g) {
		n := min(pixGroup(g), m-s0)
		at := at[:0]
		for s := range n {
			for y := range g.ho {
				for x := range g.wo {
					at = append(at, s*size+y*line+x*g.cin)
				}
			}
		}
		c.Pixels(at, g.k, g.k*g.cin, padded[s0*size:], line, out[s0*P*g.cout:], g.cout)
	}
}

// colOf is the im2col matrix of samples s0..s0+n−1 of the chunk at layer
// li: its part of keep[li] if the layer keeps it, else the shared col.
func (e *cnnEval32) colOf(li, s0, n int) []float32 {
	g := e.geo[li]
	size := g.ho * g.wo * g.patch()
	if e.keep[li] != nil {
		return e.keep[li][s0*size : (s0+n)*size]
	}
	return e.col[:n*size]
}

// poolKernelsOff makes every layer pool with maxPool32 and unpool32
// (tests compare the two ways).
var poolKernelsOff = false

// poolKernels reports whether a network's pools of side pool (the same
// for every layer, CNN.Pool) run on pool32's kernels: 2×2 pools where the
// CPU has them.
func poolKernels(pool int) bool {
	return !poolKernelsOff && pool == 2 && pool32.Enabled()
}

// keepColChannels is the largest number of input channels of a layer whose
// im2col matrix forward keeps for backward. With few channels im2col copies
// runs of a few floats, which costs about as much as the products reading
// them (LeNet-5's 1- and 6-channel layers, a first layer on RGB images);
// with more, the copies are long and cheap next to the products, and
// rebuilding the matrix in the L2 cache beats keeping a chunk's (it grows
// with the channels).
const keepColChannels = 8

// kernelTOff makes forward's GEMM of the layers through im2col read the
// kernel as stored and transpose it itself (packing it for every group of
// samples), as it did before the transposed copy wt; the same bits
// (tests compare the two ways).
var kernelTOff = false

// directConvOff makes every layer use im2col and the GEMM in its forward
// pass, the direct and the implicit ones (tests compare the two ways).
var directConvOff = false

// directConv reports whether layer g's forward pass and kernel gradient
// read its input images directly (gemm32.Conv) instead of through im2col:
// with the assembly kernels (gemm32.Class "fma"; the plain Go Conv is
// slower than im2col and the plain Go GEMM), for a layer of directShape.
// The choice depends on the shape and the CPU's kernels only, and either
// way gives the same bits.
func directConv(g convGeom) bool {
	return !directConvOff && gemm32.Class() == "fma" && directShape(g)
}

// directShape reports whether layer g suits gemm32.Conv: few input
// channels (keepColChannels), where im2col's copies of short runs cost
// about as much as the products, a patch that fits one depth block and
// output rows at least one kernel call wide. Its kernel gradient is
// computed in the same groups of samples (colGroup) as the GEMM's.
func directShape(g convGeom) bool {
	return g.cin <= keepColChannels && g.patch() <= gemm32.ConvDepth && g.wo >= gemm32.ConvWidth(g.cout)
}

// implicitConv reports whether layer g's forward pass reads its padded
// input images at every output pixel (gemm32.Conv.Pixels) instead of
// through im2col: a layer of more than keepColChannels input channels (the
// others are directShape or keep their matrix) where Pixels has an
// assembly kernel (gemm32.PixelKernel: AVX-512, more than 16 output
// channels). Its kernel gradient still goes through im2col, built from the
// same padded images, and its input gradient too unless backConv. The
// choice depends on the shape and the CPU's kernels only, and either way
// gives the same bits.
func implicitConv(g convGeom) bool {
	return !directConvOff && g.cin > keepColChannels && !directShape(g) && gemm32.PixelKernel(g.cout)
}

// pixGroup is the number of samples whose output pixels convPixels
// computes together: as many padded images as fit colBudget, at least one.
func pixGroup(g convGeom) int {
	return min(cnnChunk, max(1, colBudget/padSize(g)))
}

// keepCol reports whether layer g keeps its im2col matrix (keepColChannels).
func keepCol(g convGeom) bool { return g.cin <= keepColChannels }

// colBudget bounds the im2col matrix (floats) of a group of samples, so
// that it stays in the L2 cache between im2col and the GEMMs reading it.
const colBudget = 1 << 16

// colGroup is the number of samples whose im2col matrix is built at once
// for layer g: as many as fit colBudget, at least one.
func colGroup(g convGeom) int {
	return min(cnnChunk, max(1, colBudget/(g.ho*g.wo*g.patch())))
}

// Accuracy returns the fraction of rows of d whose label is the class of
// largest float32 logit (the first one on ties); NaN if d has no rows.
func (e *cnnEval32) Accuracy(w []float64, d *core.Data) float64 {
	e.check(w, d, nil)
	return accuracyChunks(e, w, d, cnnChunk)
}
