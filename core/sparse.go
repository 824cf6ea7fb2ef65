package core

// Indexed is the scratch of an O(nnz) gradient on sparse data: the list of
// model coordinates a minibatch touches, and compact arrays indexed by
// slot (the position of a coordinate in that list) holding the model's
// values there and the gradient. The loss works on the compact arrays
// only, and coordinates are found in a hash table sized to the batch, not
// to the model, so a step touches model-sized memory only in the arrays
// the algorithm keeps. Resetting costs O(touched).
type Indexed struct {
	Idx []int     // touched coordinates, each once, in order of first touch (slot s holds Idx[s])
	At  []float64 // At[s]: the model's value at Idx[s], set by the caller before the gradient
	Val []float64 // Val[s]: the gradient at Idx[s], written by the gradient
	// Ref lists, per stored nonzero of the batch rows in row order, the
	// slot of the first model coordinate it reads (Support writes it).
	Ref []int32
	// table is an open-addressing hash table with linear probing, keyed by
	// coordinate: an entry packs coordinate j and its slot s as
	// j<<32 | (s+1) (0 = empty), so a probe reads one word. Its size is a
	// power of two at least twice len(Idx).
	table []uint64
}

// NewIndexed makes empty indexed scratch.
func NewIndexed() *Indexed { return &Indexed{table: make([]uint64, 1024)} }

// Reset empties the list in O(touched).
func (v *Indexed) Reset() {
	if len(v.Idx) > 0 {
		clear(v.table)
	}
	v.Idx, v.At, v.Val, v.Ref = v.Idx[:0], v.At[:0], v.Val[:0], v.Ref[:0]
}

// hash returns coordinate j's home position in a table of size mask+1.
func hash(j int, mask int) int { return int((uint64(j) * 0x9e3779b97f4a7c15) >> 32 & uint64(mask)) }

// find returns j's table position and entry: the one holding j, or the
// empty one (entry 0) where j belongs.
func (v *Indexed) find(j int) (int, uint64) {
	mask := len(v.table) - 1
	for h := hash(j, mask); ; h = (h + 1) & mask {
		if e := v.table[h]; e == 0 || e>>32 == uint64(j) {
			return h, e
		}
	}
}

// Touch adds coordinate j (once) and returns its slot.
func (v *Indexed) Touch(j int) int {
	h, e := v.find(j)
	if e != 0 {
		return int(uint32(e)) - 1
	}
	s := len(v.Idx)
	v.Idx = append(v.Idx, j)
	v.At = append(v.At, 0)
	v.Val = append(v.Val, 0)
	v.table[h] = uint64(j)<<32 | uint64(s+1)
	if 2*len(v.Idx) > len(v.table) {
		v.table = make([]uint64, 2*len(v.table))
		for t, k := range v.Idx {
			h, _ := v.find(k)
			v.table[h] = uint64(k)<<32 | uint64(t+1)
		}
	}
	return s
}

// Slot returns the slot of coordinate j, or −1 if j is not touched.
func (v *Indexed) Slot(j int) int {
	_, e := v.find(j)
	return int(uint32(e)) - 1
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
