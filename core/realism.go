package core

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// System effects: client availability, compressed messages and client-level
// differential privacy. The engine applies them around any algorithm that
// declares it can take them (Tolerant); with none configured the engine runs
// exactly as without this file (no extra random draws, same records).

// Availability models which sampled clients reply and how much local work
// they complete. The engine draws from a stream of its own per (seed, run,
// round, client), so sampling and minibatch streams are unchanged.
type Availability interface {
	// Online draws whether a client is online this round, given its state
	// in the previous round (prev; first marks the run's first round).
	Online(prev, first bool, rng *rand.Rand) bool
	// Steps draws how many of its k local steps an online client completes
	// (between 1 and k).
	Steps(k int, rng *rand.Rand) int
	// Effects lists what the model can do: Dropout, UnequalSteps or both.
	Effects() Effects
}

// Compressor is a lossy encoding of a vector message.
type Compressor interface {
	// Compress replaces x by what the receiver decodes and returns the
	// number of bits sent, indices and scales included. rng is the
	// sender's stream for this round; idx is scratch of length len(x).
	Compress(x []float64, rng *rand.Rand, idx []int) int64
	// ErrorFeedback reports whether the sender keeps the compression error
	// and adds it to its next message (uplink only).
	ErrorFeedback() bool
}

// DimensionChecker is implemented by components whose parameters hold
// only for vectors of some dimensions (a top-k compressor keeps k ≤ d
// coordinates): CheckDimension returns an error naming the parameter, its
// value and the valid range when they do not hold for dimension d.
type DimensionChecker interface {
	CheckDimension(d int) error
}

// CheckCompressors refuses the compressors of s whose parameters do not
// hold for messages of dimension d (the model's): a parameter beyond what
// a compressor can do is an error, not a clamp.
func CheckCompressors(s *Settings, d int) error {
	for _, c := range []struct {
		key string
		c   Compressor
	}{{"compress_up", s.CompressUp}, {"compress_down", s.CompressDown}} {
		if dc, ok := c.c.(DimensionChecker); ok {
			if err := dc.CheckDimension(d); err != nil {
				return fmt.Errorf("%s: %w", c.key, err)
			}
		}
	}
	return nil
}

// Privacy is client-level differential privacy with the Gaussian mechanism:
// every client's update is clipped to ℓ2 norm Clip, and the server adds
// N(0, (Noise·Clip/n)²) to each coordinate of the mean of n replies
// (central DP); each client may add N(0, (LocalNoise·Clip)²) first.
type Privacy interface {
	Clip() float64
	Noise() float64
	LocalNoise() float64
	// Epsilon is the ε of an (ε, δ)-DP guarantee after the given number of
	// rounds, each sampling clients at rate q.
	Epsilon(q float64, rounds int) float64
}

// Effects is a set of system effects an algorithm may be exposed to. A
// round in which every sampled client dropped out leaves the server state
// unchanged (Aggregate is not called).
type Effects uint

// The system effects.
const (
	// Dropout: some sampled clients do not reply; the algorithm sees only
	// those that did (in Round.Sampled, weights renormalized over them).
	// Aggregate must be valid for any non-empty subset of the sampled clients.
	Dropout Effects = 1 << iota
	// UnequalSteps: clients complete different numbers of local steps
	// (Client.Steps), which the server step must account for.
	UnequalSteps
	// CompressedUp: every vector sent up is an update (a difference) that
	// the engine may replace by a compressed value.
	CompressedUp
	// CompressedDown: the broadcast vectors may reach clients compressed.
	CompressedDown
	// ClientDP: the engine clips each reply's vectors (updates) and adds
	// noise to their mean; Aggregate reads only the mean, and the scalars
	// sent up do not depend on the data.
	ClientDP
)

var effectNames = []string{"dropped clients", "unequal local steps", "uplink compression", "downlink compression", "client-level DP"}

// String lists the effects by name.
func (f Effects) String() string {
	var out []string
	for i, n := range effectNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// Tolerant is implemented by algorithms that declare which system effects
// they handle. An algorithm that does not implement it takes none.
type Tolerant interface {
	Tolerates() Effects
}

// effects returns the system effects the settings ask for.
func (s *Settings) effects() Effects {
	var f Effects
	if s.Availability != nil {
		f |= s.Availability.Effects()
	}
	if s.CompressUp != nil {
		f |= CompressedUp
	}
	if s.CompressDown != nil {
		f |= CompressedDown
	}
	if s.Privacy != nil {
		f |= ClientDP
	}
	return f
}

// CheckEffects reports an error if alg cannot run under the system effects
// of s (name is the algorithm's name, for the message; may be ""), or if
// the effects are inconsistent (error feedback on the downlink).
func CheckEffects(name string, alg Algorithm, s *Settings) error {
	need := s.effects()
	if need == 0 {
		return nil
	}
	if name == "" {
		name = fmt.Sprintf("%T", alg)
	}
	if s.CompressDown != nil && s.CompressDown.ErrorFeedback() {
		return fmt.Errorf("downlink compression always sends the change of the broadcast against the clients' copy (its error is carried in that copy); error_feedback applies to the uplink only")
	}
	var have Effects
	if t, ok := As[Tolerant](alg); ok {
		have = t.Tolerates()
	}
	if missing := need &^ have; missing != 0 {
		return fmt.Errorf("algorithm %q cannot take %s (it declares support for: %s); remove that setting or choose another algorithm",
			name, missing, orNone(have.String()))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// Stream tags of the system effects' random streams: the round index is
// combined with a tag in its top bits, so these streams never coincide
// with the sampling and client streams (tag 0).
const (
	tagAvailability uint64 = 1 << 62
	tagCompression  uint64 = 2 << 62
	tagNoise        uint64 = 3 << 62
)

// bitsPerFloat is the size of an uncompressed float on the wire.
const bitsPerFloat = 64

// system is the engine's state for the system effects of one run.
type system struct {
	avail      Availability
	online     []bool
	started    bool
	up, down   Compressor
	dp         Privacy
	q          float64     // client sampling rate, for the accountant
	pcgs       []*rand.PCG // per client; reseeded per round and purpose
	rngs       []*rand.Rand
	idx        [][]int       // per client compression scratch
	errs       [][][]float64 // per client error-feedback memory, per up vector
	replica    [][]float64   // the clients' copy of each broadcast vector
	serverPCG  rand.PCG
	serverRNG  *rand.Rand
	serverIdx  []int
	upBits     []int64 // bits sent up by each client this round
	noised     int     // rounds whose mean was noised (for the accountant)
	sampled    int     // clients sampled this round, before dropouts
	bitsUp     int64
	bitsDown   int64
	downBitsRd int64 // bits of this round's broadcast, per receiving client
}

// newSystem prepares the system effects of s, or returns nil if there are none.
func (e *engine) newSystem() error {
	s := e.s
	if s.effects() == 0 {
		return nil
	}
	if err := CheckEffects("", e.alg, s); err != nil {
		return err
	}
	if err := CheckCompressors(s, e.dim); err != nil {
		return err
	}
	if _, ok := As[Gossiper](e.alg); ok {
		return fmt.Errorf("system effects apply to server-based algorithms, not to gossip")
	}
	M := len(e.clients)
	sys := &system{avail: s.Availability, up: s.CompressUp, down: s.CompressDown, dp: s.Privacy, q: 1,
		bitsUp: s.Carry.Up * bitsPerFloat, bitsDown: s.Carry.Down * bitsPerFloat}
	if sys.dp != nil {
		for _, w := range e.weights[1:] {
			if w != e.weights[0] {
				return fmt.Errorf("client-level DP needs equal client weights (the sensitivity of the mean is Clip/n); use fedlab.problem{weighted = false}")
			}
		}
		if k := s.ClientsPerRound; k > 0 && k < M {
			sys.q = float64(k) / float64(M)
		}
	}
	sys.online = make([]bool, M)
	sys.pcgs = make([]*rand.PCG, M)
	sys.rngs = make([]*rand.Rand, M)
	for m := range sys.pcgs {
		sys.pcgs[m] = rand.NewPCG(0, 0)
		sys.rngs[m] = rand.New(sys.pcgs[m])
	}
	sys.idx = make([][]int, M)
	sys.errs = make([][][]float64, M)
	sys.upBits = make([]int64, M)
	sys.serverRNG = rand.New(&sys.serverPCG)
	e.sys = sys
	return nil
}

// clientRNG reseeds client m's system stream for purpose tag in round r.
func (e *engine) clientRNG(tag uint64, r, m int) *rand.Rand {
	a, b := e.key.derive(tag|uint64(r), uint64(m)+1)
	e.sys.pcgs[m].Seed(a, b)
	return e.sys.rngs[m]
}

// applyAvailability draws every client's online state for round r (Markov
// models need the state of clients not sampled too), keeps the sampled
// clients that are online and draws their local steps.
func (e *engine) applyAvailability(r int) {
	sys := e.sys
	rd := &e.round
	sys.sampled = len(rd.Sampled)
	if sys.avail == nil {
		return
	}
	for m := range sys.online {
		sys.online[m] = sys.avail.Online(sys.online[m], !sys.started, e.clientRNG(tagAvailability, r, m))
	}
	sys.started = true
	kept := rd.Sampled[:0]
	for _, m := range rd.Sampled {
		if !sys.online[m] {
			continue
		}
		kept = append(kept, m)
		c := e.clients[m]
		// the same stream continues: Online's draw came first
		c.Steps = sys.avail.Steps(e.s.stepsFor(c.Data.N), sys.rngs[m])
	}
	rd.Sampled = kept
}

// allDropped reports whether every sampled client dropped out of rd: the
// server then keeps its state (no reply arrived).
func (sys *system) allDropped(rd *Round) bool { return sys.sampled > 0 && len(rd.Sampled) == 0 }

// receivers is the number of clients that received round's broadcast: the
// sampled ones, including those that then dropped out.
func (e *engine) receivers() int64 {
	if e.sys == nil {
		return int64(len(e.round.Sampled))
	}
	return int64(e.sys.sampled)
}

// compressDown replaces the broadcast vectors by the clients' copy after
// this round's compressed change: copy += C(down − copy). The first
// broadcast initialises the copy (the initial state is common knowledge).
func (e *engine) compressDown(r int) {
	sys := e.sys
	sys.downBitsRd = int64(len(e.downMsg.Scalars)) * bitsPerFloat
	if sys.down == nil {
		sys.downBitsRd += int64(len(e.downMsg.Vecs)) * int64(e.dim) * bitsPerFloat
		return
	}
	if sys.replica == nil {
		for _, v := range e.downMsg.Vecs {
			sys.replica = append(sys.replica, append([]float64(nil), v...))
			sys.downBitsRd += int64(len(v)) * bitsPerFloat
		}
		return
	}
	a, b := e.key.derive(tagCompression|uint64(r), 0)
	sys.serverPCG.Seed(a, b)
	if len(sys.serverIdx) != e.dim {
		sys.serverIdx = make([]int, e.dim)
	}
	for i, v := range e.downMsg.Vecs {
		rep := sys.replica[i]
		for k := range v {
			v[k] -= rep[k]
		}
		sys.downBitsRd += sys.down.Compress(v, sys.serverRNG, sys.serverIdx)
		for k := range v {
			rep[k] += v[k]
			v[k] = rep[k]
		}
	}
}

// processReply applies clipping, local noise and compression to the reply
// of client m, the i-th replying client of round r (on the worker that ran
// the client).
func (e *engine) processReply(r, i, m int) {
	sys := e.sys
	up := e.ups[i]
	rng := e.clientRNG(tagCompression, r, m)
	if sys.dp != nil {
		clipVecs(up.Vecs, sys.dp.Clip())
		if s := sys.dp.LocalNoise() * sys.dp.Clip(); s > 0 {
			for _, v := range up.Vecs {
				for k := range v {
					v[k] += s * rng.NormFloat64()
				}
			}
		}
	}
	bits := int64(len(up.Scalars)) * bitsPerFloat
	if sys.up == nil {
		bits += int64(len(up.Vecs)) * int64(e.dim) * bitsPerFloat
	} else {
		if sys.idx[m] == nil {
			sys.idx[m] = make([]int, e.dim)
		}
		ef := sys.up.ErrorFeedback()
		if ef && sys.errs[m] == nil {
			sys.errs[m] = make([][]float64, len(up.Vecs))
			for j := range up.Vecs {
				sys.errs[m][j] = make([]float64, e.dim)
			}
		}
		for j, v := range up.Vecs {
			if ef {
				mem := sys.errs[m][j]
				for k := range v {
					mem[k] += v[k]
				}
				copy(v, mem)
			}
			bits += sys.up.Compress(v, rng, sys.idx[m])
			if ef {
				mem := sys.errs[m][j]
				for k := range v {
					mem[k] -= v[k]
				}
			}
		}
		if sys.dp != nil {
			// the server must sum vectors of norm ≤ C; compression (and its
			// error memory) may have left that ball
			clipVecs(up.Vecs, sys.dp.Clip())
		}
	}
	sys.upBits[m] = bits
}

// noiseMean adds the server's Gaussian noise to the mean of round r's replies.
func (e *engine) noiseMean(r int) {
	sys := e.sys
	if sys.dp == nil || len(e.round.Sampled) == 0 {
		return
	}
	a, b := e.key.derive(tagNoise|uint64(r), 0)
	sys.serverPCG.Seed(a, b)
	s := sys.dp.Noise() * sys.dp.Clip() / float64(len(e.round.Sampled))
	for _, v := range e.mean.Vecs {
		for k := range v {
			v[k] += s * sys.serverRNG.NormFloat64()
		}
	}
	sys.noised++
}

// countSystemBits adds the round's bits: the broadcast to every sampled client
// (dropped ones included: they received it) and the replies that arrived.
func (e *engine) countSystemBits() {
	sys := e.sys
	sys.bitsDown += int64(sys.sampled) * sys.downBitsRd
	for _, m := range e.round.Sampled {
		sys.bitsUp += sys.upBits[m]
	}
}

// bits returns the cumulative bits sent up and down.
func (e *engine) bits() (up, down int64) {
	if e.sys == nil {
		return e.up * bitsPerFloat, e.down * bitsPerFloat
	}
	return e.sys.bitsUp, e.sys.bitsDown
}

// epsilon is the privacy spent so far (NaN without DP).
func (e *engine) epsilon() float64 {
	if e.sys == nil || e.sys.dp == nil {
		return math.NaN()
	}
	if e.sys.noised == 0 {
		return 0
	}
	return e.sys.dp.Epsilon(e.sys.q, e.sys.noised)
}

// clipVecs scales the vectors jointly so that their ℓ2 norm is at most c.
func clipVecs(vs [][]float64, c float64) {
	var sq float64
	for _, v := range vs {
		for _, x := range v {
			sq += x * x
		}
	}
	if n := math.Sqrt(sq); n > c {
		f := c / n
		for _, v := range vs {
			for k := range v {
				v[k] *= f
			}
		}
	}
}
