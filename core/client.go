package core

import (
	"math/rand/v2"
)

// Client is one client's view during a round: its data, its minibatch
// stream, scratch vectors and any state an algorithm keeps across rounds.
//
// The scratch (vectors and the loss evaluator) belongs to the engine's
// worker running the client, not to the client: the engine lends each
// worker's scratch to the client it runs, so memory does not grow with the
// number of clients (10,000 clients cost what one per worker does).
type Client struct {
	ID    int
	Data  *Data
	Steps int // local steps in the current round
	// State is kept across rounds for algorithms with persistent client state.
	State any
	// Accessed counts samples whose gradient was evaluated (cumulative).
	Accessed int64

	s         *Scratch
	pcg       *rand.PCG
	rng       *rand.Rand
	batchSize int  // 0: full local batch
	epochs    bool // sequential batches over a reshuffled permutation
	perm      []int
	pos       int
	batch     []int
}

// Scratch is the memory a client update works in: model-sized vectors,
// indexed vectors, counters, stamped entries and marks (allocated on first
// use) and a loss evaluator. One goroutine uses it at a time.
type Scratch struct {
	eval    Evaluator
	dim     int
	vecs    [][]float64
	idx     []*Indexed
	ints    [][]int32
	stamped *StampedVec
	marks   *Marks
}

// NewScratch makes scratch memory for models of problem p.
func NewScratch(p *Problem) *Scratch {
	return &Scratch{eval: p.Loss.NewEvaluator(p.Layout), dim: p.Dim()}
}

// NewClient makes client m of problem p as the engine would, for testing or
// benchmarking an algorithm's ClientUpdate in isolation. Call StartRound
// before each round.
func NewClient(p *Problem, m int, s *Settings) *Client {
	c := newClient(m, p.Data.Train[m], s)
	c.s = NewScratch(p)
	return c
}

// StartRound prepares the client's random stream for round r of the run
// (seed, run), as the engine does.
func (c *Client) StartRound(seed, run uint64, r int) { c.startRound(streamKey{seed, run}, r) }

func newClient(id int, d *Data, s *Settings) *Client {
	pcg := rand.NewPCG(0, 0)
	c := &Client{ID: id, Data: d, pcg: pcg, rng: rand.New(pcg),
		batchSize: s.Batch, epochs: s.LocalEpochs > 0}
	if c.batchSize >= d.N {
		c.batchSize = 0
	}
	c.perm = make([]int, d.N)
	c.batch = make([]int, 0, max(c.batchSize, 1))
	c.Steps = s.stepsFor(d.N)
	return c
}

// startRound reseeds the client's random stream for round r and resets the
// epoch position, so every round starts with a fresh shuffle.
func (c *Client) startRound(seed streamKey, r int) {
	a, b := seed.derive(uint64(r), uint64(c.ID)+1)
	c.pcg.Seed(a, b)
	for i := range c.perm {
		c.perm[i] = i
	}
	c.pos = len(c.perm) // force a shuffle on first use
}

// Rand is the client's random stream for this round (derived from seed,
// run, round and client, so independent of scheduling).
func (c *Client) Rand() *rand.Rand { return c.rng }

// NextBatch returns the indices of the next minibatch, or nil in full-batch
// mode. In epoch mode the batches walk a permutation reshuffled each epoch,
// with a smaller last batch; otherwise each batch is a fresh uniform draw
// without replacement. The slice is reused by the next call.
func (c *Client) NextBatch() []int {
	if c.batchSize == 0 {
		return nil
	}
	n := len(c.perm)
	if c.epochs {
		if c.pos >= n {
			for i := n - 1; i > 0; i-- {
				j := c.rng.IntN(i + 1)
				c.perm[i], c.perm[j] = c.perm[j], c.perm[i]
			}
			c.pos = 0
		}
		end := min(c.pos+c.batchSize, n)
		c.batch = append(c.batch[:0], c.perm[c.pos:end]...)
		c.pos = end
		return c.batch
	}
	// partial Fisher–Yates: the first batchSize entries become a uniform sample
	for i := 0; i < c.batchSize; i++ {
		j := i + c.rng.IntN(n-i)
		c.perm[i], c.perm[j] = c.perm[j], c.perm[i]
	}
	c.batch = append(c.batch[:0], c.perm[:c.batchSize]...)
	return c.batch
}

// GradientOn writes the gradient of the mean loss over rows idx (all rows
// if nil) at w into grad and returns the loss.
func (c *Client) GradientOn(idx []int, w, grad []float64) float64 {
	if idx == nil {
		c.Accessed += int64(c.Data.N)
	} else {
		c.Accessed += int64(len(idx))
	}
	return c.s.eval.Eval(w, c.Data, idx, grad)
}

// SparseGradients reports whether the client's data are sparse and its
// loss computes minibatch gradients in O(nonzeros) (SupportOf and
// SparseGradientOn may be used).
func (c *Client) SparseGradients() bool {
	_, ok := c.s.eval.(SparseEvaluator)
	return ok && c.Data.Sparse != nil
}

// SupportOf resets g to the model coordinates the loss on rows idx reads
// (see SparseEvaluator.Support).
func (c *Client) SupportOf(idx []int, g *Indexed) {
	g.Reset()
	c.s.eval.(SparseEvaluator).Support(c.Data, idx, g)
}

// SparseGradientOn writes the gradient of the mean loss over rows idx (all
// rows if nil) at the model values g.At into g.Val, after SupportOf(idx,
// g), and returns the loss.
func (c *Client) SparseGradientOn(idx []int, g *Indexed) float64 {
	if idx == nil {
		c.Accessed += int64(c.Data.N)
	} else {
		c.Accessed += int64(len(idx))
	}
	return c.s.eval.(SparseEvaluator).EvalSparse(c.Data, idx, g)
}

// Gradient draws the next minibatch and writes its gradient at w into grad.
func (c *Client) Gradient(w, grad []float64) float64 {
	return c.GradientOn(c.NextBatch(), w, grad)
}

// Vec returns scratch vector i (model-sized), allocated on first use and
// reused afterwards. Contents persist during one ClientUpdate only: the
// next client run by the same worker shares them (keep state across rounds
// in State).
func (c *Client) Vec(i int) []float64 {
	s := c.s
	for len(s.vecs) <= i {
		s.vecs = append(s.vecs, make([]float64, s.dim))
	}
	return s.vecs[i]
}

// Indexed returns scratch indexed vector i, like Vec.
func (c *Client) Indexed(i int) *Indexed {
	s := c.s
	for len(s.idx) <= i {
		s.idx = append(s.idx, NewIndexed())
	}
	return s.idx[i]
}

// Counters returns scratch counter vector i (model-sized), like Vec.
func (c *Client) Counters(i int) []int32 {
	s := c.s
	for len(s.ints) <= i {
		s.ints = append(s.ints, make([]int32, s.dim))
	}
	return s.ints[i]
}

// Stamped returns the worker's stamped scratch entries (model-sized, see
// StampedVec), allocated on first use; call Begin before using them.
func (c *Client) Stamped() *StampedVec {
	if c.s.stamped == nil {
		c.s.stamped = NewStampedVec(c.s.dim)
	}
	return c.s.stamped
}

// Marks returns the worker's coordinate marks (see Marks), allocated on
// first use and empty between client updates that Clear them.
func (c *Client) Marks() *Marks {
	if c.s.marks == nil {
		c.s.marks = NewMarks(c.s.dim)
	}
	return c.s.marks
}

// use lends scratch s to the client for its next update.
func (c *Client) use(s *Scratch) { c.s = s }

// streamKey identifies a run's random streams: (seed, run).
type streamKey struct{ seed, run uint64 }

// derive returns a PCG seed pair for the stream (seed, run, a, b), using the
// SplitMix64 finalizer so nearby keys give unrelated streams.
func (k streamKey) derive(a, b uint64) (uint64, uint64) {
	h1 := mix(mix(k.seed^0x9e3779b97f4a7c15) ^ k.run)
	h2 := mix(mix(h1^a) ^ (b * 0xbf58476d1ce4e5b9))
	return h1, h2
}

func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
