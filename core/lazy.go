package core

// Lazy local steps. On sparse data a minibatch touches few coordinates, and
// an algorithm whose every other coordinate follows a fixed scalar map per
// step can skip those coordinates and catch them up exactly when they are
// next read. The capabilities below are what such an algorithm needs from
// a regularizer.

// RepeatedProx is implemented by regularizers whose prox acts on every
// regularized coordinate by one scalar map p_t (ψ₁ separable and the same
// on each coordinate; unregularized coordinates are left unchanged), with a
// closed form for repeated application.
type RepeatedProx interface {
	// ProxRepeat returns p_tᵏ(z): k ≥ 0 consecutive proximal steps
	// prox_{tψ₁} applied to one regularized coordinate z (k = 1 is the prox).
	ProxRepeat(z, t float64, k int) float64
}

// RepeatedSubgradient is implemented by separable regularizers for which k
// consecutive subgradient steps on one coordinate have a closed form.
type RepeatedSubgradient interface {
	// SubgradientRepeat returns z after k ≥ 0 steps z ← z − t·g(z), where
	// g(z) is the coordinate's subgradient as Subgradient writes it.
	SubgradientRepeat(z, t float64, k int) float64
}

// Stamped is one model coordinate's state in a lazy local step: its value
// X and the number of local steps it has been brought up to date through.
// The two are read together and stored together, so a touched coordinate
// costs one cache line (16 bytes, aligned); gen says which client update
// the entry belongs to.
type Stamped struct {
	X    float64
	Step int32
	gen  uint32
}

// StampedVec is model-sized per-worker scratch of Stamped entries that is
// valid only inside one client update (one generation): Begin makes every
// entry stale in O(1), and Load reports the first access of an update, so
// a client update neither copies nor clears model-sized memory to start.
type StampedVec struct {
	v    []Stamped
	gen  uint32
	sink uint32 // keeps Warm's loads
	// Touched lists the coordinates loaded since Begin, in order of first
	// load, each once.
	Touched []int
}

// NewStampedVec makes scratch for models of dimension dim.
func NewStampedVec(dim int) *StampedVec { return &StampedVec{v: make([]Stamped, dim)} }

// Begin starts a client update: every entry becomes stale and Touched empty.
func (s *StampedVec) Begin() {
	s.gen++
	if s.gen == 0 { // wrapped around after 2³² updates: forget every stamp
		clear(s.v)
		s.gen = 1
	}
	s.Touched = s.Touched[:0]
}

// Load returns coordinate j's entry. If it is stale (first load since
// Begin), Load sets it to value x0 at step 0 and appends j to Touched.
func (s *StampedVec) Load(j int, x0 []float64) *Stamped {
	e := &s.v[j]
	if e.gen != s.gen {
		*e = Stamped{X: x0[j], gen: s.gen}
		s.Touched = append(s.Touched, j)
	}
	return e
}

// Warm reads the entries of coordinates js in a loop that does nothing
// else, so their cache misses overlap (the processor issues the
// independent loads together) instead of stalling one by one behind the
// work done per coordinate; it changes no entry.
func (s *StampedVec) Warm(js []int) {
	var x uint32
	for _, j := range js {
		x += s.v[j].gen
	}
	s.sink = x
}

// At returns coordinate j's entry, which must have been loaded since Begin.
func (s *StampedVec) At(j int) *Stamped { return &s.v[j] }

// Marks is per-worker scratch recording which model coordinates a client
// update has loaded: one bit per coordinate (d/8 bytes, small enough to
// stay in cache) and the list of marked coordinates, so that clearing
// costs O(marked).
type Marks struct {
	bits []uint64
	// Touched lists the marked coordinates in order of marking, each once.
	Touched []int
}

// NewMarks makes marks for models of dimension dim.
func NewMarks(dim int) *Marks { return &Marks{bits: make([]uint64, (dim+63)/64)} }

// Mark marks coordinate j and reports whether it was unmarked.
func (m *Marks) Mark(j int) bool {
	w, b := j>>6, uint64(1)<<(j&63)
	if m.bits[w]&b != 0 {
		return false
	}
	m.bits[w] |= b
	m.Touched = append(m.Touched, j)
	return true
}

// Clear unmarks every coordinate in O(marked).
func (m *Marks) Clear() {
	for _, j := range m.Touched {
		m.bits[j>>6] = 0
	}
	m.Touched = m.Touched[:0]
}
