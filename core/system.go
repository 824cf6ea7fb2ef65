package core

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The engine's side of the system effects (effects.go): one run's state,
// its random streams, and the steps it applies around the algorithm's
// Broadcast, ClientUpdate and Aggregate.

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
