// Package losses holds fedlab's smooth per-sample losses f(w; x, y): least
// squares, binary logistic regression, multinomial (softmax) cross-entropy
// and trace regression for low-rank matrices.
//
// Every loss lays the model out as a regularized block named "kernel"
// followed, optionally, by an unregularized block named "bias". Evaluators
// keep scratch buffers that grow on first use; after that Eval and Accuracy
// do not allocate. The losses register themselves with the registry under
// the kind registry.Loss.
package losses

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/gemm32"
	"github.com/fedlab/fedlab/internal/prefetch"
)

// Block names used by every loss of this package.
const (
	// KernelBlock names the regularized weight block.
	KernelBlock = "kernel"
	// BiasBlock names the unregularized intercept block.
	BiasBlock = "bias"
)

// linearLayout lays out a rows×cols kernel and, if bias, a 1×biasCols bias.
func linearLayout(rows, cols int, bias bool, biasCols int) core.Layout {
	blocks := []core.Block{{Name: KernelBlock, Rows: rows, Cols: cols, Regularized: true}}
	if bias {
		blocks = append(blocks, core.Block{Name: BiasBlock, Rows: 1, Cols: biasCols})
	}
	return core.NewLayout(blocks...)
}

// model is the shape of a linear model read from its layout.
type model struct {
	loss    string // loss name, for messages
	kernel  core.Block
	bias    core.Block
	hasBias bool
	dim     int
	x       []float64 // scratch: 8-bit rows decoded (dense, gemv)
}

// readModel reads the kernel and optional bias blocks of l. A layout without
// a kernel is a programming error and panics.
func readModel(loss string, l core.Layout) model {
	k, ok := l.Block(KernelBlock)
	if !ok {
		panic(fmt.Sprintf("losses: %s: layout %q has no %q block", loss, l.String(), KernelBlock))
	}
	b, hasBias := l.Block(BiasBlock)
	return model{loss: loss, kernel: k, bias: b, hasBias: hasBias, dim: l.Dim()}
}

// check panics with a clear message when the arguments of Eval do not fit
// the layout (programming errors).
func (m *model) check(w []float64, d *core.Data, features int, grad []float64) {
	if len(w) < m.dim {
		panic(fmt.Sprintf("losses: %s: parameter vector has %d entries, the layout needs %d", m.loss, len(w), m.dim))
	}
	if grad != nil && len(grad) < m.dim {
		panic(fmt.Sprintf("losses: %s: gradient vector has %d entries, the layout needs %d", m.loss, len(grad), m.dim))
	}
	if d.Features != features {
		panic(fmt.Sprintf("losses: %s: data has %d features, the model expects %d", m.loss, d.Features, features))
	}
}

// rows returns the number of rows Eval averages over.
func rows(d *core.Data, idx []int) int {
	if idx == nil {
		return d.N
	}
	return len(idx)
}

// grow returns buf resliced to length n, reallocating only if it is too short.
func grow(buf []float64, n int) []float64 {
	if cap(buf) < n {
		return make([]float64, n)
	}
	return buf[:n]
}

// checkLabels applies ok to every training and test label of f and reports
// the first label it rejects.
func checkLabels(loss string, f *core.Federated, want string, ok func(float64) bool) error {
	for _, part := range []struct {
		name string
		data []*core.Data
	}{{"training", f.Train}, {"test", f.Test}} {
		for m, d := range part.data {
			if d == nil {
				continue
			}
			for i, y := range d.Y {
				if !ok(y) {
					return fmt.Errorf("loss %q: client %d %s sample %d has label %g; %s", loss, m, part.name, i+1, y, want)
				}
			}
		}
	}
	return nil
}

func finite(y float64) bool { return !math.IsNaN(y) && !math.IsInf(y, 0) }

// softplus returns log(1 + exp(t)) without overflow or loss of precision.
func softplus(t float64) float64 {
	if t > 0 {
		return t + math.Log1p(math.Exp(-t))
	}
	return math.Log1p(math.Exp(t))
}

// sigmoid returns 1 / (1 + exp(−t)) without overflow.
func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// denseOnly rejects sparse data for a loss that has no sparse path.
func denseOnly(loss string, f *core.Federated) error {
	if f.IsSparse() {
		return fmt.Errorf("loss %q needs dense data, but dataset %q is stored sparse (give the dataset format = \"dense\")", loss, f.Name)
	}
	return nil
}

// row returns the k-th row of a batch: idx[k], or k when idx is nil (all rows).
func row(idx []int, k int) int {
	if idx == nil {
		return k
	}
	return idx[k]
}

// hintNext hints the memory of the row after the k-th of idx when d is
// stored in float64s: a minibatch's rows come in random order, and each
// would otherwise be read cold from main memory (internal/prefetch). It
// changes no value.
func hintNext(d *core.Data, idx []int, k int) {
	if idx != nil && d.Sparse == nil && d.Levels == nil && k+1 < len(idx) {
		prefetch.Floats(d.Row(idx[k+1]))
	}
}

// dense returns row i of dense d in float64s: a view of X, or the 8-bit
// row decoded into the scratch m.x (valid until the next decoding). The
// linear losses read dense rows only through it (and gemv), so both dense
// storages give the same values to the same kernels.
func (m *model) dense(d *core.Data, i int) []float64 {
	if d.Levels != nil {
		m.x = grow(m.x, d.Features)
	}
	return d.Rows(i, 1, m.x)
}

// dot returns xᵢᵀw for row i of d, in any storage.
func (m *model) dot(d *core.Data, i int, w []float64) float64 {
	if d.Sparse != nil {
		return d.Dot(i, w)
	}
	return floats.Dot(m.dense(d, i), w)
}

// addRow adds a·xᵢ to dst for row i of d, in any storage.
func (m *model) addRow(dst []float64, a float64, d *core.Data, i int) {
	if d.Sparse != nil {
		d.AddRow(dst, a, i)
		return
	}
	floats.AddScaled(dst, a, m.dense(d, i))
}

// gatherRow writes row i of dense d (either storage) into dst.
func gatherRow(dst []float64, d *core.Data, i int) {
	if d.Levels != nil {
		d.Rows(i, 1, dst)
		return
	}
	copy(dst, d.Row(i))
}

// row32 writes row i of dense d (either storage) into dst, rounded to
// float32 (the float32 of the float64 value, in both storages).
func row32(dst []float32, d *core.Data, i int) {
	F := d.Features
	if lv := d.Levels; lv != nil {
		for j, b := range d.X8[i*F : (i+1)*F] {
			dst[j] = float32(lv[b])
		}
		return
	}
	gemm32.Round(dst, d.Row(i))
}

// gemvChunk is the number of 8-bit rows gemv decodes at a time: a multiple
// of 4, so that gonum's kernels, which work on groups of 4 rows, add the
// same terms in the same order as over the whole matrix.
const gemvChunk = 64

// gemv computes y = alpha·X·x + beta·y (t = NoTrans; y has N entries) or
// y = alpha·Xᵀx + beta·y (t = Trans; y has Features entries), where X is
// every row of dense d: one gonum call on float64 storage, and on 8-bit
// storage one call per gemvChunk rows decoded into m.x, with bit-identical
// results (tested in TestBytesStorageRecordsEqual).
func (m *model) gemv(t blas.Transpose, alpha float64, d *core.Data, x []float64, beta float64, y []float64) {
	n, F := d.N, d.Features
	if d.Levels == nil {
		X := blas64.General{Rows: n, Cols: F, Stride: F, Data: d.X[:n*F]}
		blas64.Gemv(t, alpha, X, blas64.Vector{N: len(x), Inc: 1, Data: x}, beta, blas64.Vector{N: len(y), Inc: 1, Data: y})
		return
	}
	m.x = grow(m.x, gemvChunk*F)
	for s := 0; s < n; s += gemvChunk {
		c := min(gemvChunk, n-s)
		X := blas64.General{Rows: c, Cols: F, Stride: F, Data: d.Rows(s, c, m.x)}
		if t == blas.NoTrans {
			blas64.Gemv(t, alpha, X, blas64.Vector{N: F, Inc: 1, Data: x}, beta, blas64.Vector{N: c, Inc: 1, Data: y[s : s+c]})
			continue
		}
		b := beta
		if s > 0 {
			b = 1
		}
		blas64.Gemv(t, alpha, X, blas64.Vector{N: c, Inc: 1, Data: x[s : s+c]}, b, blas64.Vector{N: F, Inc: 1, Data: y})
	}
}

// support touches in g the kernel entries (Cols per feature, consecutive
// slots) of the nonzero features of rows idx of sparse d, recording each
// nonzero's first slot in g.Ref, and then the bias.
func (m *model) support(d *core.Data, idx []int, g *core.Indexed) {
	cols, off := m.kernel.Cols, m.kernel.Offset
	for k := range rows(d, idx) {
		ind, _ := d.Sparse.Row(row(idx, k))
		for _, j := range ind {
			base := off + int(j)*cols
			s := g.Touch(base)
			for c := 1; c < cols; c++ {
				g.Touch(base + c)
			}
			g.Ref = append(g.Ref, int32(s))
		}
	}
	if m.hasBias {
		for j := range m.bias.Size() {
			g.Touch(m.bias.Offset + j)
		}
	}
}

// biasSlot returns the slot of the first bias coordinate in g (−1 without
// a bias); the bias coordinates occupy consecutive slots.
func (m *model) biasSlot(g *core.Indexed) int {
	if !m.hasBias {
		return -1
	}
	return g.Slot(m.bias.Offset)
}

// linearSparse evaluates a loss of the margin zᵢ = xᵢᵀw + b on rows idx of
// sparse d at the model values g.At: it returns Σᵢ ℓ(zᵢ, yᵢ) and writes
// scale·Σᵢ ℓ'(zᵢ, yᵢ)·xᵢ into g.Val (and scale·Σᵢ ℓ' at the bias), where
// f returns ℓ and ℓ'. Single-column kernels only.
func (m *model) linearSparse(d *core.Data, idx []int, g *core.Indexed, scale float64, f func(z, y float64) (float64, float64)) float64 {
	if d.Sparse == nil {
		panic(fmt.Sprintf("losses: %s: EvalSparse needs sparse data", m.loss))
	}
	clear(g.Val)
	bs, b := m.biasSlot(g), 0.0
	if bs >= 0 {
		b = g.At[bs]
	}
	sum, gb, pos := 0.0, 0.0, 0
	for k := range rows(d, idx) {
		i := row(idx, k)
		_, val := d.Sparse.Row(i)
		refs := g.Ref[pos : pos+len(val)]
		pos += len(val)
		z := 0.0
		for t, s := range refs {
			z += val[t] * g.At[s]
		}
		l, dz := f(z+b, d.Y[i])
		sum += l
		a := scale * dz
		for t, s := range refs {
			g.Val[s] += a * val[t]
		}
		gb += a
	}
	if bs >= 0 {
		g.Val[bs] = gb
	}
	return sum
}
