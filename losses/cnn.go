package losses

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// CNNParams are the parameters of the loss "cnn".
type CNNParams struct {
	InChannels int       `param:"in_channels" min:"1" doc:"input channels; a sample's features are the image channel by channel, each row-major"`
	Height     int       `param:"height" min:"0" doc:"image height; 0 = square images, side √(features / in_channels)"`
	Width      int       `param:"width" min:"0" doc:"image width; 0 = the height (or square images)"`
	Channels   []float64 `param:"channels" min:"1" doc:"output channels of the convolutional layers (positive integers, at least one layer)"`
	Kernel     int       `param:"kernel" min:"1" doc:"side of the square convolution kernels (stride 1)"`
	Padding    []float64 `param:"padding" min:"0" doc:"zero padding of each convolutional layer; one value applies to every layer"`
	Pool       int       `param:"pool" min:"1" doc:"side and stride of the max-pool after each convolution (1 = no pooling); a partial last window is dropped"`
	Dense      []float64 `param:"dense" min:"1" doc:"widths of the hidden dense layers after the convolutions; {} = a linear output layer"`
	Precision  string    `param:"precision" choices:"float64|float32" doc:"arithmetic of the forward and backward passes: float64, or float32 (AVX2/FMA GEMM; the model and gradient stay float64 outside the loss)"`
}

func init() {
	registry.Define(registry.Loss, "cnn",
		"convolutional classifier: [conv k×k (zero padding) → ReLU → max-pool] per entry of channels, then ReLU dense layers and a softmax "+
			"cross-entropy output; defaults are LeNet-5 for 28×28 images; the FedDA paper's 4-layer CNN is channels = {32, 32, 32, 32}, kernel = 3, padding = {1}, dense = {}; "+
			"starts from PyTorch's default initialization (init = \"kaiming_uniform\": weights and biases uniform on ±1/√fan_in), not zeros, from which it cannot learn",
		CNNParams{InChannels: 1, Channels: []float64{6, 16}, Kernel: 5, Padding: []float64{2, 0}, Pool: 2, Dense: []float64{120, 84}, Precision: "float64"},
		func(a CNNParams) (core.Loss, error) {
			ints := func(key string, xs []float64) ([]int, error) {
				out := make([]int, len(xs))
				for i, x := range xs {
					if x != math.Trunc(x) || x > 1<<20 {
						return nil, fmt.Errorf("parameter %q: values must be integers in 0..%d, got %g", key, 1<<20, x)
					}
					out[i] = int(x)
				}
				return out, nil
			}
			var c CNN
			var err error
			if c.Channels, err = ints("channels", a.Channels); err != nil {
				return nil, err
			}
			if c.Padding, err = ints("padding", a.Padding); err != nil {
				return nil, err
			}
			if c.Dense, err = ints("dense", a.Dense); err != nil {
				return nil, err
			}
			c.InChannels, c.Height, c.Width = a.InChannels, a.Height, a.Width
			c.Kernel, c.Pool = a.Kernel, a.Pool
			c.Float32 = a.Precision == "float32"
			if len(c.Channels) == 0 {
				return nil, fmt.Errorf("parameter \"channels\": at least one convolutional layer is needed (use the loss \"mlp\" for none)")
			}
			if len(c.Padding) != 1 && len(c.Padding) != len(c.Channels) {
				return nil, fmt.Errorf("parameter \"padding\": give one value or one per convolutional layer (%d), got %d", len(c.Channels), len(c.Padding))
			}
			return c, nil
		})
}

// CNN is a convolutional classifier. Each convolutional layer ℓ maps a
// Cin×H×W input to Cout×Ho×Wo with a k×k kernel, stride 1 and zero padding
// p (Ho = H + 2p − k + 1), adds a bias per output channel, applies ReLU and
// a max-pool of side and stride Pool (Hp = ⌊Ho/Pool⌋; ties go to the first
// maximum in row-major order). The last pooled map, flattened channel by
// channel, feeds ReLU dense layers and a softmax cross-entropy output, as in
// MLP.
//
// Layout: every layer has a kernel block "kernelℓ" (Regularized) followed by
// a bias block "biasℓ", layers numbered from the first convolution. A
// convolution kernel is Cout×(Cin·k·k), row c holding output channel c's
// weights in (input channel, kernel row, kernel column) order; a dense
// kernel is in×out as in MLP.
//
// The convolutions are im2col + GEMM: a sample's input patches are copied
// into a (Cin·k·k)×(Ho·Wo) matrix and multiplied by the kernel with gonum's
// Dgemm (through mlpGemm, which keeps gonum from starting goroutines); the
// backward pass uses the transposed products and col2im. Dense layers run on
// chunks of cnnChunk samples. After the first call an evaluator does not
// allocate.
//
// With Float32 the evaluator computes in float32 instead (cnnEval32): the
// model is rounded to float32 on entry to Eval and the gradient converted
// back to float64 on exit, so everything outside the loss (the clients'
// updates, the server's aggregation, the regularizers) stays float64.
//
// The zero model is a saddle point, so the default initial model is
// KaimingUniform (init.go) and init = "zeros" is refused.
type CNN struct {
	InChannels, Height, Width int
	Channels                  []int // output channels per convolutional layer
	Kernel                    int
	Padding                   []int // one value, or one per convolutional layer
	Pool                      int
	Dense                     []int // hidden dense widths
	Float32                   bool  // compute the passes in float32
}

// cnnChunk is the number of samples whose activations an evaluator keeps.
const cnnChunk = 32

// convGeom is the geometry of one convolutional layer.
type convGeom struct {
	cin, h, w  int // input
	cout, k, p int // output channels, kernel side, padding
	ho, wo     int // convolution output
	pool       int // max-pool side and stride
	hp, wp     int // pooled output
}

func (g convGeom) inSize() int   { return g.cin * g.h * g.w }
func (g convGeom) outSize() int  { return g.cout * g.ho * g.wo }
func (g convGeom) poolSize() int { return g.cout * g.hp * g.wp }
func (g convGeom) patch() int    { return g.cin * g.k * g.k }

// geometry computes the layers' shapes for images of features values.
func (m CNN) geometry(features int) ([]convGeom, error) {
	cin, h, w := m.InChannels, m.Height, m.Width
	if cin < 1 || m.Kernel < 1 || m.Pool < 1 || len(m.Channels) == 0 {
		return nil, fmt.Errorf("loss %q: in_channels, kernel, pool and channels must be positive", "cnn")
	}
	if h == 0 {
		side := int(math.Round(math.Sqrt(float64(features) / float64(cin))))
		if side*side*cin != features {
			return nil, fmt.Errorf("loss %q: %d features are not %d square image(s); set height and width", "cnn", features, cin)
		}
		h = side
	}
	if w == 0 {
		w = h
	}
	if cin*h*w != features {
		return nil, fmt.Errorf("loss %q: in_channels·height·width = %d·%d·%d = %d, but the dataset has %d features", "cnn", cin, h, w, cin*h*w, features)
	}
	var gs []convGeom
	for i, cout := range m.Channels {
		p := m.Padding[0]
		if len(m.Padding) > 1 {
			p = m.Padding[i]
		}
		g := convGeom{cin: cin, h: h, w: w, cout: cout, k: m.Kernel, p: p, pool: m.Pool}
		g.ho, g.wo = h+2*p-m.Kernel+1, w+2*p-m.Kernel+1
		g.hp, g.wp = g.ho/m.Pool, g.wo/m.Pool
		if cout < 1 || g.hp < 1 || g.wp < 1 {
			return nil, fmt.Errorf("loss %q: convolutional layer %d maps %d×%d to %d×%d, pooled %d×%d; the image is too small for kernel %d, padding %d and pool %d",
				"cnn", i+1, h, w, g.ho, g.wo, g.hp, g.wp, m.Kernel, p, m.Pool)
		}
		gs = append(gs, g)
		cin, h, w = cout, g.hp, g.wp
	}
	return gs, nil
}

// Layout lays out kernel1, bias1, … for the convolutional then the dense
// layers, for a classification dataset with Classes ≥ 2.
func (m CNN) Layout(f *core.Federated) (core.Layout, error) {
	if f.Classes < 2 {
		return core.Layout{}, fmt.Errorf("loss %q: the dataset %q has %d classes; a classification dataset with at least 2 is needed", "cnn", f.Name, f.Classes)
	}
	if err := denseOnly("cnn", f); err != nil { // the convolutions read dense rows (sparse data ended in "slice bounds out of range")
		return core.Layout{}, err
	}
	gs, err := m.geometry(f.Features)
	if err != nil {
		return core.Layout{}, err
	}
	for _, h := range m.Dense {
		if h < 1 {
			return core.Layout{}, fmt.Errorf("loss %q: dense layer widths must be positive, got %v", "cnn", m.Dense)
		}
	}
	K := f.Classes
	label := func(y float64) bool { return y == math.Trunc(y) && y >= 0 && y < float64(K) }
	if err := checkLabels("cnn", f, fmt.Sprintf("labels must be class indices 0..%d", K-1), label); err != nil {
		return core.Layout{}, err
	}
	var blocks []core.Block
	add := func(rows, cols, bias int) {
		l := len(blocks)/2 + 1
		blocks = append(blocks,
			core.Block{Name: fmt.Sprintf("kernel%d", l), Rows: rows, Cols: cols, Regularized: true},
			core.Block{Name: fmt.Sprintf("bias%d", l), Rows: 1, Cols: bias})
	}
	for _, g := range gs {
		add(g.cout, g.patch(), g.cout)
	}
	sizes := m.denseSizes(gs, K)
	for l := 1; l < len(sizes); l++ {
		add(sizes[l-1], sizes[l], sizes[l])
	}
	return core.NewLayout(blocks...), nil
}

// denseSizes lists the dense widths: flattened features, hidden, classes.
func (m CNN) denseSizes(gs []convGeom, classes int) []int {
	return append(append([]int{gs[len(gs)-1].poolSize()}, m.Dense...), classes)
}

// NewEvaluator returns an evaluator (also a core.Predictor) for models laid
// out by Layout. The layer shapes depend on the image size, which the layout
// does not record, so they are computed and checked against the layout at
// the first evaluation; a layout or data of another shape panics.
func (m CNN) NewEvaluator(l core.Layout) core.Evaluator {
	e := cnnShape{net: m, dim: l.Dim()}
	for i := 1; ; i++ {
		k, ok := l.Block(fmt.Sprintf("kernel%d", i))
		if !ok {
			break
		}
		b, ok := l.Block(fmt.Sprintf("bias%d", i))
		if !ok {
			panic(fmt.Sprintf("losses: cnn: layout %q is not a CNN layout", l.String()))
		}
		e.kernels = append(e.kernels, k)
		e.biases = append(e.biases, b)
	}
	if len(e.kernels) != len(m.Channels)+len(m.Dense)+1 {
		panic(fmt.Sprintf("losses: cnn: layout %q does not have %d layers", l.String(), len(m.Channels)+len(m.Dense)+1))
	}
	if m.Float32 {
		return &cnnEval32{cnnShape: e}
	}
	return &cnnEval{cnnShape: e}
}

// cnnShape is what both CNN evaluators know of the network: its layout
// blocks and, from the first evaluation on, its layer shapes.
type cnnShape struct {
	net             CNN
	geo             []convGeom
	sizes           []int // dense widths: flattened, hidden, classes
	kernels, biases []core.Block
	dim             int
}

// cnnEval evaluates a CNN. For the samples of one chunk it keeps each
// convolutional layer's ReLU output (out), pooled output (pooled) and the
// position of each pooled maximum (arg); act and delta are the dense layers'
// buffers as in mlpEval (index 0 is the flattened last pooled map).
type cnnEval struct {
	cnnShape

	x           []float64   // gathered input rows of a chunk
	out, pooled [][]float64 // per convolutional layer, cnnChunk samples each
	arg         [][]int32
	col, dcol   []float64 // one sample's im2col matrix and its gradient
	dout        []float64 // one sample's gradient at a convolution output
	dpool       [][]float64
	act, delta  [][]float64 // dense layers 1..L; delta[0] is the gradient at the flattened map
}

// shape computes the geometry for images of the given number of features
// and checks it against the layout, on first use.
func (e *cnnShape) shape(features int) {
	if e.geo != nil {
		return
	}
	gs, err := e.net.geometry(features)
	if err != nil {
		panic("losses: cnn: " + err.Error())
	}
	e.geo = gs
	e.sizes = e.net.denseSizes(gs, e.kernels[len(e.kernels)-1].Cols)
	for i, g := range gs {
		if k := e.kernels[i]; k.Rows != g.cout || k.Cols != g.patch() || e.biases[i].Cols != g.cout {
			panic(fmt.Sprintf("losses: cnn: kernel%d is %d×%d, the network needs %d×%d", i+1, k.Rows, k.Cols, g.cout, g.patch()))
		}
	}
	for j := 1; j < len(e.sizes); j++ {
		if k := e.kernels[len(gs)+j-1]; k.Rows != e.sizes[j-1] || k.Cols != e.sizes[j] || e.biases[len(gs)+j-1].Cols != e.sizes[j] {
			panic(fmt.Sprintf("losses: cnn: kernel%d is %d×%d, the network needs %d×%d", len(gs)+j, k.Rows, k.Cols, e.sizes[j-1], e.sizes[j]))
		}
	}
}

// check sets the shapes up and panics when the arguments do not fit the
// layout (programming errors).
func (e *cnnShape) check(w []float64, d *core.Data, grad []float64) {
	e.shape(d.Features)
	if len(w) < e.dim {
		panic(fmt.Sprintf("losses: cnn: parameter vector has %d entries, the layout needs %d", len(w), e.dim))
	}
	if grad != nil && len(grad) < e.dim {
		panic(fmt.Sprintf("losses: cnn: gradient vector has %d entries, the layout needs %d", len(grad), e.dim))
	}
	if d.Features != e.geo[0].inSize() {
		panic(fmt.Sprintf("losses: cnn: data has %d features, the model expects %d", d.Features, e.geo[0].inSize()))
	}
}

// label converts a stored label to a class index.
func (e *cnnShape) label(y float64) int { return classIndex("cnn", y, e.sizes[len(e.sizes)-1]) }

// check checks the arguments (cnnShape.check) and sizes the buffers on
// first use.
func (e *cnnEval) check(w []float64, d *core.Data, grad []float64) {
	e.cnnShape.check(w, d, grad)
	if e.out != nil {
		return
	}
	n := len(e.geo)
	e.x = make([]float64, cnnChunk*e.geo[0].inSize())
	e.out, e.pooled, e.arg, e.dpool = make([][]float64, n), make([][]float64, n), make([][]int32, n), make([][]float64, n)
	maxCol, maxOut := 0, 0
	for i, g := range e.geo {
		e.out[i] = make([]float64, cnnChunk*g.outSize())
		e.pooled[i] = make([]float64, cnnChunk*g.poolSize())
		e.arg[i] = make([]int32, cnnChunk*g.poolSize())
		e.dpool[i] = make([]float64, g.inSize())
		maxCol = max(maxCol, g.patch()*g.ho*g.wo)
		maxOut = max(maxOut, g.outSize())
	}
	e.col, e.dcol, e.dout = make([]float64, maxCol), make([]float64, maxCol), make([]float64, maxOut)
	L := len(e.sizes) - 1
	e.act = make([][]float64, L+1)
	e.delta = make([][]float64, L+1)
	e.delta[0] = make([]float64, cnnChunk*e.sizes[0])
	for l := 1; l <= L; l++ {
		e.act[l] = make([]float64, cnnChunk*e.sizes[l])
		e.delta[l] = make([]float64, cnnChunk*e.sizes[l])
	}
}

// im2col writes the patches of the image in (geometry g) as the columns of
// col: col[(c·k + i)·k + j][y·wo + x] = in[c][y+i−p][x+j−p], zero outside.
func im2col(g convGeom, in, col []float64) {
	P := g.ho * g.wo
	for c := range g.cin {
		img := in[c*g.h*g.w : (c+1)*g.h*g.w]
		for i := range g.k {
			for j := range g.k {
				row := col[((c*g.k+i)*g.k+j)*P:][:P]
				for y := range g.ho {
					iy := y + i - g.p
					dst := row[y*g.wo : (y+1)*g.wo]
					if iy < 0 || iy >= g.h {
						clear(dst)
						continue
					}
					src := img[iy*g.w : (iy+1)*g.w]
					for x := range dst {
						ix := x + j - g.p
						if ix < 0 || ix >= g.w {
							dst[x] = 0
						} else {
							dst[x] = src[ix]
						}
					}
				}
			}
		}
	}
}

// col2im adds the columns of dcol back to the image positions they were
// copied from (the adjoint of im2col), overwriting din.
func col2im(g convGeom, dcol, din []float64) {
	clear(din[:g.inSize()])
	P := g.ho * g.wo
	for c := range g.cin {
		img := din[c*g.h*g.w : (c+1)*g.h*g.w]
		for i := range g.k {
			for j := range g.k {
				row := dcol[((c*g.k+i)*g.k+j)*P:][:P]
				for y := range g.ho {
					iy := y + i - g.p
					if iy < 0 || iy >= g.h {
						continue
					}
					dst := img[iy*g.w : (iy+1)*g.w]
					for x, v := range row[y*g.wo : (y+1)*g.wo] {
						if ix := x + j - g.p; ix >= 0 && ix < g.w {
							dst[ix] += v
						}
					}
				}
			}
		}
	}
}

// convForward runs layer li of sample s of the chunk on input in.
func (e *cnnEval) convForward(w []float64, li, s int, in []float64) {
	g := e.geo[li]
	P := g.ho * g.wo
	im2col(g, in, e.col)
	out := e.out[li][s*g.outSize() : (s+1)*g.outSize()]
	for c, b := range e.biases[li].Of(w) {
		row := out[c*P : (c+1)*P]
		for i := range row {
			row[i] = b
		}
	}
	mlpGemm(blas.NoTrans, blas.NoTrans, g.cout, P, g.patch(), 1, e.kernels[li].Of(w), g.patch(), e.col, P, 1, out, P)
	for i, v := range out {
		if v < 0 {
			out[i] = 0
		}
	}
	pooled := e.pooled[li][s*g.poolSize() : (s+1)*g.poolSize()]
	arg := e.arg[li][s*g.poolSize() : (s+1)*g.poolSize()]
	pool := g.pool
	for c := range g.cout {
		for y := range g.hp {
			for x := range g.wp {
				best := (c*g.ho+y*pool)*g.wo + x*pool
				for i := range pool {
					base := (c*g.ho+y*pool+i)*g.wo + x*pool
					for j := range pool {
						if out[base+j] > out[best] {
							best = base + j
						}
					}
				}
				o := (c*g.hp+y)*g.wp + x
				pooled[o], arg[o] = out[best], int32(best)
			}
		}
	}
}

// input returns the n input rows of a chunk starting at position start of
// the batch (rows idx, or all rows if idx is nil), gathering them if needed.
func (e *cnnEval) input(d *core.Data, idx []int, start, n int) []float64 {
	F := e.geo[0].inSize()
	if idx == nil {
		return d.Rows(start, n, e.x)
	}
	for r, i := range idx[start : start+n] {
		gatherRow(e.x[r*F:(r+1)*F], d, i)
	}
	return e.x[:n*F]
}

// layerInput is the input of convolutional layer li for sample s.
func (e *cnnEval) layerInput(x []float64, li, s int) []float64 {
	if li == 0 {
		F := e.geo[0].inSize()
		return x[s*F : (s+1)*F]
	}
	ps := e.geo[li-1].poolSize()
	return e.pooled[li-1][s*ps : (s+1)*ps]
}

// forward propagates the n samples x and leaves the logits in act[L].
func (e *cnnEval) forward(w, x []float64, n int) {
	for s := range n {
		for li := range e.geo {
			e.convForward(w, li, s, e.layerInput(x, li, s))
		}
	}
	nc := len(e.geo)
	in := e.pooled[nc-1][:n*e.sizes[0]]
	L := len(e.sizes) - 1
	for l := 1; l <= L; l++ {
		rows, cols := e.sizes[l-1], e.sizes[l]
		out := e.act[l][:n*cols]
		denseForward(out, in, e.kernels[nc+l-1].Of(w), e.biases[nc+l-1].Of(w), n, rows, cols, l < L)
		in = out
	}
}

// logits returns the chunk's logits and their gradient (see net64).
func (e *cnnEval) logits() ([]float64, []float64, int) {
	L := len(e.sizes) - 1
	return e.act[L], e.delta[L], e.sizes[L]
}

// Eval returns the mean loss over the rows idx of d (all rows if idx is nil)
// and, if grad is not nil, overwrites grad with the gradient. With no rows
// it returns 0 and a zero gradient.
func (e *cnnEval) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	e.check(w, d, grad)
	return evalChunks64(e, w, d, idx, grad, e.dim, cnnChunk)
}

// backward adds the chunk's gradient to grad, starting from delta[L].
func (e *cnnEval) backward(w, x []float64, n int, grad []float64) {
	nc := len(e.geo)
	for l := len(e.sizes) - 1; l >= 1; l-- {
		rows, cols := e.sizes[l-1], e.sizes[l]
		var in []float64
		if l > 1 {
			in = e.act[l-1][:n*rows]
		} else {
			in = e.pooled[nc-1][:n*rows]
		}
		dl := e.delta[l][:n*cols]
		mlpGemm(blas.Trans, blas.NoTrans, rows, cols, n, 1, in, rows, dl, cols, 1, e.kernels[nc+l-1].Of(grad), cols)
		gb := e.biases[nc+l-1].Of(grad)
		for r := range n {
			for k, v := range dl[r*cols : (r+1)*cols] {
				gb[k] += v
			}
		}
		prev := e.delta[l-1][:n*rows]
		mlpGemm(blas.NoTrans, blas.Trans, n, rows, cols, 1, dl, cols, e.kernels[nc+l-1].Of(w), cols, 0, prev, rows)
		if l > 1 {
			for i, a := range in {
				if a <= 0 {
					prev[i] = 0
				}
			}
		}
	}
	// delta[0] is the gradient at the flattened last pooled map (the ReLU
	// mask is applied at each convolution's output below).
	for s := range n {
		for li := nc - 1; li >= 0; li-- {
			e.convBackward(w, x, li, s, grad)
		}
	}
}

// convBackward adds sample s's gradient of convolutional layer li to grad
// and, for li > 0, leaves the gradient at the layer's input in dpool[li].
func (e *cnnEval) convBackward(w, x []float64, li, s int, grad []float64) {
	g := e.geo[li]
	P := g.ho * g.wo
	ps := g.poolSize()
	var dp []float64
	if li == len(e.geo)-1 {
		dp = e.delta[0][s*ps : (s+1)*ps]
	} else {
		dp = e.dpool[li+1][:ps]
	}
	out := e.out[li][s*g.outSize() : (s+1)*g.outSize()]
	arg := e.arg[li][s*ps : (s+1)*ps]
	dout := e.dout[:g.outSize()]
	clear(dout)
	for o, v := range dp {
		if a := arg[o]; out[a] > 0 {
			dout[a] += v
		}
	}
	im2col(g, e.layerInput(x, li, s), e.col)
	mlpGemm(blas.NoTrans, blas.Trans, g.cout, g.patch(), P, 1, dout, P, e.col, P, 1, e.kernels[li].Of(grad), g.patch())
	gb := e.biases[li].Of(grad)
	for c := range g.cout {
		for _, v := range dout[c*P : (c+1)*P] {
			gb[c] += v
		}
	}
	if li == 0 {
		return
	}
	mlpGemm(blas.Trans, blas.NoTrans, g.patch(), P, g.cout, 1, e.kernels[li].Of(w), g.patch(), dout, P, 0, e.dcol, P)
	col2im(g, e.dcol, e.dpool[li])
}

// Accuracy returns the fraction of rows of d whose label is the class of
// largest logit (the first one on ties); NaN if d has no rows.
func (e *cnnEval) Accuracy(w []float64, d *core.Data) float64 {
	e.check(w, d, nil)
	return accuracyChunks64(e, w, d, cnnChunk)
}
