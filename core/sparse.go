package core

// Indexed is a model-sized vector that is zero outside a list of touched
// coordinates, so that it can be cleared in time proportional to what was
// touched: the scratch for O(nnz) gradients on sparse data.
type Indexed struct {
	Val  []float64 // the values; zero outside Idx
	Idx  []int     // touched coordinates, each once, in order of first touch
	mark []uint32  // mark[j] == gen iff j is in Idx
	gen  uint32
}

// NewIndexed makes an all-zero indexed vector of dimension dim.
func NewIndexed(dim int) *Indexed {
	return &Indexed{Val: make([]float64, dim), mark: make([]uint32, dim), gen: 1}
}

// Reset zeroes the touched values and empties the list, in O(len(Idx)).
func (v *Indexed) Reset() {
	for _, j := range v.Idx {
		v.Val[j] = 0
	}
	v.Idx = v.Idx[:0]
	v.gen++
	if v.gen == 0 { // wrapped around: old marks could collide
		clear(v.mark)
		v.gen = 1
	}
}

// Touch adds coordinate j to the list (once).
func (v *Indexed) Touch(j int) {
	if v.mark[j] != v.gen {
		v.mark[j] = v.gen
		v.Idx = append(v.Idx, j)
	}
}

// SparseEvaluator is implemented by evaluators that compute the gradient of
// a minibatch of sparse data (Data.Sparse) in time proportional to the
// batch's nonzeros, with no pass over the model.
type SparseEvaluator interface {
	// Support touches in g every model coordinate that the loss on rows idx
	// of d (every row if idx is nil) reads or may have a nonzero gradient
	// in: the kernel entries of the rows' nonzero features and every
	// unregularized coordinate (the bias).
	Support(d *Data, idx []int, g *Indexed)
	// EvalSparse returns the mean loss over the rows idx of d and writes its
	// gradient into g.Val on g's touched coordinates, which must include
	// Support(d, idx); the gradient is zero elsewhere. It reads w only on
	// those coordinates.
	EvalSparse(w []float64, d *Data, idx []int, g *Indexed) float64
}
