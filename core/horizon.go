package core

import "bytes"

// HorizonDependent is implemented by an algorithm whose updates depend on
// the run's horizon, Settings.Rounds (a step size ∝ 1/√T, a schedule that
// decays to the last round): its run of T rounds is then not the first T
// rounds of a longer run, so a checkpoint of a shorter run must not be
// continued to a longer one. Successive halving recomputes such an
// algorithm's survivors from round 0 at each rung, and says so. No
// registered algorithm reads Settings.Rounds today.
type HorizonDependent interface {
	// DependsOnHorizon reports whether this instance (with its
	// parameters) depends on the horizon.
	DependsOnHorizon() bool
}

// DependsOnHorizon reports whether alg declares that it depends on the
// horizon (HorizonDependent).
func DependsOnHorizon(alg Algorithm) bool {
	h, ok := alg.(HorizonDependent)
	return ok && h.DependsOnHorizon()
}

// RekeyCheckpoint returns checkpoint data of run from, verified
// (VerifyCheckpoint), as a checkpoint of run to: the same state under
// another identity, for a run that continues it with a longer horizon (a
// halving rung's survivor continued to the next rung's rounds, which is
// another run key).
func RekeyCheckpoint(data []byte, from, to string) ([]byte, error) {
	payload, err := decodeCheckpoint(data, from)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := encodeCheckpoint(&b, to, payload); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Evaluates reports whether a run with settings s evaluates after round
// r (a global index, RoundOffset included): the rounds of EvalRounds, or
// the first, the last and every EvalEvery-th.
func (s *Settings) Evaluates(r int) bool {
	r -= s.RoundOffset
	if r < 0 || r > s.Rounds {
		return false
	}
	return s.evaluated()[r]
}
