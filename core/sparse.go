package core

// Indexed is the scratch of an O(nnz) gradient on sparse data: the list of
// model coordinates a minibatch touches, and compact arrays indexed by
// slot (the position of a coordinate in that list) holding the model's
// values there and the gradient. The loss works on the compact arrays
// only, so a step touches each coordinate's memory once per array the
// algorithm keeps, however large the model. Resetting costs O(touched).
type Indexed struct {
	Idx []int     // touched coordinates, each once, in order of first touch (slot s holds Idx[s])
	At  []float64 // At[s]: the model's value at Idx[s], set by the caller before the gradient
	Val []float64 // Val[s]: the gradient at Idx[s], written by the gradient
	// Ref lists, per stored nonzero of the batch rows in row order, the
	// slot of the first model coordinate it reads (Support writes it).
	Ref []int32
	tag []uint64 // tag[j] = gen<<32 | slot of j when j is touched in generation gen
	gen uint64
}

// NewIndexed makes empty indexed scratch for models of dimension dim.
func NewIndexed(dim int) *Indexed {
	return &Indexed{tag: make([]uint64, dim), gen: 1}
}

// Reset empties the list in O(1) (stale tags are told apart by generation).
func (v *Indexed) Reset() {
	v.Idx, v.At, v.Val, v.Ref = v.Idx[:0], v.At[:0], v.Val[:0], v.Ref[:0]
	v.gen++
	if v.gen == 1<<32 { // generations wrapped around: old tags could collide
		clear(v.tag)
		v.gen = 1
	}
}

// Touch adds coordinate j (once) and returns its slot.
func (v *Indexed) Touch(j int) int {
	if t := v.tag[j]; t>>32 == v.gen {
		return int(uint32(t))
	}
	s := len(v.Idx)
	v.tag[j] = v.gen<<32 | uint64(s)
	v.Idx = append(v.Idx, j)
	v.At = append(v.At, 0)
	v.Val = append(v.Val, 0)
	return s
}

// Slot returns the slot of coordinate j, or −1 if j is not touched.
func (v *Indexed) Slot(j int) int {
	if t := v.tag[j]; t>>32 == v.gen {
		return int(uint32(t))
	}
	return -1
}

// SparseEvaluator is implemented by evaluators that compute the gradient of
// a minibatch of sparse data (Data.Sparse) in time proportional to the
// batch's nonzeros, with no pass over the model.
type SparseEvaluator interface {
	// Support touches in g every model coordinate that the loss on rows idx
	// of d (every row if idx is nil) reads or may have a nonzero gradient
	// in — the kernel entries of the rows' nonzero features and every
	// unregularized coordinate (the bias) — and fills g.Ref.
	Support(d *Data, idx []int, g *Indexed)
	// EvalSparse returns the mean loss over the same rows at the model
	// values g.At and writes its gradient into g.Val (zero on touched
	// coordinates the rows do not reach; zero off the list).
	EvalSparse(d *Data, idx []int, g *Indexed) float64
}
