package core

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// System effects: client availability, compressed messages and client-level
// differential privacy, as components implement them (Availability,
// Compressor, Privacy) and algorithms declare them (Tolerant). The engine
// applies them (system.go) around any algorithm that declares it can take
// them; with none configured the engine runs exactly as without them (no
// extra random draws, same records).

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
