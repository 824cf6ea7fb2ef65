package losses

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// MLPParams are the parameters of the loss "mlp".
type MLPParams struct {
	Hidden    []float64 `param:"hidden" min:"1" doc:"widths of the hidden layers (positive integers); {} is multinomial logistic regression"`
	Precision string    `param:"precision" choices:"float64|float32" doc:"arithmetic of the forward and backward passes: float64, or float32 (AVX2/FMA GEMM; the model and gradient stay float64 outside the loss)"`
}

// MaxHiddenLayers bounds the depth of an MLP: far deeper than any network
// trained here, small enough that building its evaluators takes well under
// a second (100,000 layers took minutes, past --timeout).
const MaxHiddenLayers = 1000

func init() {
	registry.Define(registry.Loss, "mlp",
		"multilayer perceptron classifier: ReLU hidden layers, softmax cross-entropy output; per-layer kernel (regularized) and bias blocks; starts from PyTorch's default initialization (init = \"kaiming_uniform\": weights and biases uniform on ±1/√fan_in), not zeros, from which hidden layers cannot learn",
		MLPParams{Hidden: []float64{200, 200}, Precision: "float64"}, func(p MLPParams) (core.Loss, error) {
			if len(p.Hidden) > MaxHiddenLayers {
				return nil, fmt.Errorf("parameter \"hidden\": %d hidden layers, at most %d (each layer's evaluator state is built before the first round, which --timeout cannot interrupt)", len(p.Hidden), MaxHiddenLayers)
			}
			var hidden []int
			for _, h := range p.Hidden {
				if h != math.Trunc(h) || h > 1<<20 {
					return nil, fmt.Errorf("parameter \"hidden\": widths must be integers in 1..%d, got %g", 1<<20, h)
				}
				hidden = append(hidden, int(h))
			}
			return MLP{Hidden: hidden, Float32: p.Precision == "float32"}, nil
		})
}

// MLP is a multilayer perceptron classifier with ReLU hidden layers and a
// softmax cross-entropy output over K = Classes classes:
//
//	a₀ = x,  aₗ = max(0, aₗ₋₁Wₗ + bₗ) for ℓ < L,  z = a_{L−1}W_L + b_L,
//	f(w; x, y) = log Σₖ exp(zₖ) − z_y,
//
// with L = len(Hidden) + 1 layers. Layer ℓ (1-based) has a kernel block
// "kernelℓ" of shape in×out, row-major (kernelℓ[j*out+k] connects input j
// to unit k), marked Regularized, followed by an unregularized 1×out block
// "biasℓ". So ℓ1 and other regularizers act on every layer's weights and
// never on biases, and density counts the weights of all layers.
//
// Evaluators work on chunks of up to mlpChunk rows with gonum's Dgemm
// (forward: A·W, backward: Aᵀδ and δWᵀ). gonum runs a Dgemm whose output
// spans four or more 64×64 blocks on new goroutines, which allocates and
// competes with the engine's client workers, so every product is issued as
// tiles small enough to run serially (mlpGemm). After the first call an
// evaluator does not allocate.
//
// With Float32 the evaluator computes in float32 instead (mlpEval32); the
// model and gradient stay float64 outside the loss, as for CNN.
//
// The zero model is a saddle point of an MLP with hidden layers (every
// hidden unit is dead), so its default initial model is KaimingUniform
// (init.go) and init = "zeros" is refused; without hidden layers it is
// convex and starts at zero.
type MLP struct {
	Hidden  []int // hidden layer widths
	Float32 bool  // compute the passes in float32
}

// mlpChunk is the number of rows an evaluator propagates at once; it bounds
// the activation buffers on full-data evaluations.
const mlpChunk = 128

// Layout lays out kernel1, bias1, …, kernelL, biasL for a dataset with
// Features inputs and Classes ≥ 2 classes with labels 0..Classes−1.
func (m MLP) Layout(f *core.Federated) (core.Layout, error) {
	if f.Features <= 0 {
		return core.Layout{}, fmt.Errorf("loss %q: the dataset has no features", "mlp")
	}
	if f.Classes < 2 {
		return core.Layout{}, fmt.Errorf("loss %q: the dataset %q has %d classes; a classification dataset with at least 2 is needed", "mlp", f.Name, f.Classes)
	}
	if err := denseOnly("mlp", f); err != nil {
		return core.Layout{}, err
	}
	for _, h := range m.Hidden {
		if h < 1 {
			return core.Layout{}, fmt.Errorf("loss %q: hidden layer widths must be positive, got %v", "mlp", m.Hidden)
		}
	}
	K := f.Classes
	label := func(y float64) bool { return y == math.Trunc(y) && y >= 0 && y < float64(K) }
	if err := checkLabels("mlp", f, fmt.Sprintf("labels must be class indices 0..%d", K-1), label); err != nil {
		return core.Layout{}, err
	}
	sizes := m.sizes(f.Features, K)
	var blocks []core.Block
	for l := 1; l < len(sizes); l++ {
		blocks = append(blocks,
			core.Block{Name: fmt.Sprintf("kernel%d", l), Rows: sizes[l-1], Cols: sizes[l], Regularized: true},
			core.Block{Name: fmt.Sprintf("bias%d", l), Rows: 1, Cols: sizes[l]})
	}
	return core.NewLayout(blocks...), nil
}

// sizes lists the layer widths: inputs, hidden layers, classes.
func (m MLP) sizes(features, classes int) []int {
	return append(append([]int{features}, m.Hidden...), classes)
}

// NewEvaluator returns an evaluator for models laid out by Layout. It also
// implements core.Predictor. A layout of another shape panics.
func (m MLP) NewEvaluator(l core.Layout) core.Evaluator {
	e := &mlpEval{dim: l.Dim()}
	for i := 1; ; i++ {
		k, ok := l.Block(fmt.Sprintf("kernel%d", i))
		if !ok {
			break
		}
		b, ok := l.Block(fmt.Sprintf("bias%d", i))
		if !ok || b.Cols != k.Cols || (i > 1 && k.Rows != e.sizes[i-1]) {
			panic(fmt.Sprintf("losses: mlp: layout %q is not an MLP layout", l.String()))
		}
		if i == 1 {
			e.sizes = append(e.sizes, k.Rows)
		}
		e.sizes = append(e.sizes, k.Cols)
		e.kernels = append(e.kernels, k)
		e.biases = append(e.biases, b)
	}
	if len(e.kernels) == 0 || len(e.kernels) != len(m.Hidden)+1 {
		panic(fmt.Sprintf("losses: mlp: layout %q does not have %d layers", l.String(), len(m.Hidden)+1))
	}
	if m.Float32 {
		return &mlpEval32{mlp: e}
	}
	return e
}

// mlpEval evaluates an MLP. act[ℓ] holds layer ℓ's outputs (ℓ = 1..L; the
// last are the logits) and delta[ℓ] the loss gradient with respect to layer
// ℓ's pre-activations, for one chunk of rows.
type mlpEval struct {
	sizes           []int // F, hidden widths, K
	kernels, biases []core.Block
	dim             int
	x               []float64   // gathered input rows of a chunk
	act, delta      [][]float64 // indexed by layer 1..L (index 0 unused)
}

// setup sizes the buffers on first use.
func (e *mlpEval) setup() {
	if e.act != nil {
		return
	}
	L := len(e.kernels)
	e.x = make([]float64, mlpChunk*e.sizes[0])
	e.act = make([][]float64, L+1)
	e.delta = make([][]float64, L+1)
	for l := 1; l <= L; l++ {
		e.act[l] = make([]float64, mlpChunk*e.sizes[l])
		e.delta[l] = make([]float64, mlpChunk*e.sizes[l])
	}
}

// check panics when the arguments do not fit the layout (programming errors).
func (e *mlpEval) check(w []float64, d *core.Data, grad []float64) {
	if len(w) < e.dim {
		panic(fmt.Sprintf("losses: mlp: parameter vector has %d entries, the layout needs %d", len(w), e.dim))
	}
	if grad != nil && len(grad) < e.dim {
		panic(fmt.Sprintf("losses: mlp: gradient vector has %d entries, the layout needs %d", len(grad), e.dim))
	}
	if d.Features != e.sizes[0] {
		panic(fmt.Sprintf("losses: mlp: data has %d features, the model expects %d", d.Features, e.sizes[0]))
	}
}

// input returns the n input rows of a chunk starting at position start of
// the batch (rows idx, or all rows if idx is nil), gathering them if needed.
func (e *mlpEval) input(d *core.Data, idx []int, start, n int) []float64 {
	F := e.sizes[0]
	if idx == nil {
		return d.Rows(start, n, e.x)
	}
	for r, i := range idx[start : start+n] {
		gatherRow(e.x[r*F:(r+1)*F], d, i)
	}
	return e.x[:n*F]
}

// forward propagates n input rows a0 and leaves the logits in act[L].
func (e *mlpEval) forward(w, a0 []float64, n int) {
	in := a0
	L := len(e.kernels)
	for l := 1; l <= L; l++ {
		rows, cols := e.sizes[l-1], e.sizes[l]
		out := e.act[l][:n*cols]
		denseForward(out, in, e.kernels[l-1].Of(w), e.biases[l-1].Of(w), n, rows, cols, l < L)
		in = out
	}
}

// label converts a stored label to a class index.
func (e *mlpEval) label(y float64) int { return classIndex("mlp", y, e.sizes[len(e.sizes)-1]) }

// logits returns the chunk's logits and their gradient (see net64).
func (e *mlpEval) logits() ([]float64, []float64, int) {
	L := len(e.kernels)
	return e.act[L], e.delta[L], e.sizes[L]
}

// Eval returns the mean loss over the rows idx of d (all rows if idx is nil)
// and, if grad is not nil, overwrites grad with the gradient. With no rows
// it returns 0 and a zero gradient.
func (e *mlpEval) Eval(w []float64, d *core.Data, idx []int, grad []float64) float64 {
	e.check(w, d, grad)
	e.setup()
	return evalChunks64(e, w, d, idx, grad, e.dim, mlpChunk)
}

// mlpRow is the data row of batch position i.
func mlpRow(idx []int, i int) int {
	if idx == nil {
		return i
	}
	return idx[i]
}

// backward adds the chunk's gradient to grad, starting from delta[L].
func (e *mlpEval) backward(w, a0 []float64, n int, grad []float64) {
	for l := len(e.kernels); l >= 1; l-- {
		rows, cols := e.sizes[l-1], e.sizes[l]
		in := a0
		if l > 1 {
			in = e.act[l-1][:n*rows]
		}
		dl := e.delta[l][:n*cols]
		mlpGemm(blas.Trans, blas.NoTrans, rows, cols, n, 1, in, rows, dl, cols, 1, e.kernels[l-1].Of(grad), cols)
		gb := e.biases[l-1].Of(grad)
		for r := range n {
			for k, v := range dl[r*cols : (r+1)*cols] {
				gb[k] += v
			}
		}
		if l == 1 {
			break
		}
		prev := e.delta[l-1][:n*rows]
		mlpGemm(blas.NoTrans, blas.Trans, n, rows, cols, 1, dl, cols, e.kernels[l-1].Of(w), cols, 0, prev, rows)
		for i, a := range in {
			if a <= 0 {
				prev[i] = 0
			}
		}
	}
}

// Accuracy returns the fraction of rows of d whose label is the class of
// largest logit (the first one on ties); NaN if d has no rows.
func (e *mlpEval) Accuracy(w []float64, d *core.Data) float64 {
	e.check(w, d, nil)
	e.setup()
	return accuracyChunks64(e, w, d, mlpChunk)
}

// mlpBLAS is gonum's pure-Go BLAS.
var mlpBLAS gonum.Implementation

// Output tile of one serial Dgemm call: gonum goes parallel from
// 4 blocks of 64×64 on, so a 64×192 tile (3 blocks) never does.
const mlpTileRows, mlpTileCols = 64, 192

// mlpGemm computes C = alpha·op(A)·op(B) + beta·C exactly as blas Dgemm
// (C is m×n, op(A) m×k, op(B) k×n, row-major), issued as one Dgemm call per
// output tile of at most mlpTileRows×mlpTileCols so that gonum never starts
// goroutines.
func mlpGemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	for i := 0; i < m; i += mlpTileRows {
		mi := min(mlpTileRows, m-i)
		var as []float64
		if tA == blas.Trans {
			as = a[i:]
		} else {
			as = a[i*lda:]
		}
		for j := 0; j < n; j += mlpTileCols {
			nj := min(mlpTileCols, n-j)
			var bs []float64
			if tB == blas.Trans {
				bs = b[j*ldb:]
			} else {
				bs = b[j:]
			}
			mlpBLAS.Dgemm(tA, tB, mi, nj, k, alpha, as, lda, bs, ldb, beta, c[i*ldc+j:], ldc)
		}
	}
}
