package core

import (
	"fmt"
	"io"
	"math"
)

// Settings are the engine's knobs for one run (the algorithm's own
// parameters, such as step sizes, live in the algorithm).
type Settings struct {
	Rounds          int
	ClientsPerRound int // 0 or ≥ M: full participation
	LocalSteps      int // K; used when LocalEpochs is 0
	LocalEpochs     int // if > 0, K_m = LocalEpochs·⌈n_m/Batch⌉ (last partial batch kept)
	Batch           int // minibatch size; 0 = full local batch (deterministic)
	EvalEvery       int // evaluate every N rounds (and at the first and last); 0 = last only
	Seed            uint64
	Run             uint64 // run index within an experiment, part of the random-stream key
	Workers         int    // client worker goroutines; ≤ 0 = 1
	W0              []float64
	Init            string  // "" or "default" (the loss's own, see Initializer), "zeros", "normal", or the loss's scheme name
	InitScale       float64 // standard deviation for Init = "normal"
	RoundOffset     int     // first round index (pipelines continue counting across stages)
	// Carry are the counts the run continues from: its records count
	// communication, communication rounds and samples on from them (a
	// pipeline stage continues its pipeline's totals).
	Carry Counts
	// EvalRounds, if not nil, lists the rounds evaluated (global indices
	// in [RoundOffset, RoundOffset+Rounds], any order) in place of
	// EvalEvery's grid and the first and last rounds.
	EvalRounds []int
	// System effects (see effects.go); nil: none.
	Availability Availability
	CompressUp   Compressor
	CompressDown Compressor
	Privacy      Privacy
	// Divergence is the growth factor of the training loss beyond which a
	// run diverges: at the first evaluated round r where F(w_r) is not
	// finite or |F(w_r)| > Divergence·max(|F(w₀)|, 1), the run stops with
	// status Diverged at r (see DefaultDivergence). 0 means
	// DefaultDivergence; +Inf or math.MaxFloat64 (Lua's math.huge) leaves
	// only a NaN/Inf model as divergence, and no training-loss pass.
	Divergence float64
	// DivergenceBase, if > 0, replaces max(|F(w₀)|, 1) in that test (a
	// pipeline stage measures against the pipeline's start, not its own).
	DivergenceBase float64
	// Progress, if set, is called by the coordinator after every round.
	Progress func(done, total int)
	// Interrupt, if set, is called by the coordinator before every round;
	// when it returns true the run stops there with status Interrupted.
	Interrupt func() bool
	// AlgorithmName names the algorithm in messages (may be "").
	AlgorithmName string
	// CheckpointKey is the run's identity, written into its checkpoints
	// and checked against a checkpoint it resumes from.
	CheckpointKey string
	// Checkpoint, if set, is called by the coordinator after every round
	// that did not end the run (the last one included), with the rounds
	// done (as Progress);
	// calling save writes the engine's state at that boundary (a
	// checkpoint) to a writer, or returns why it cannot (an algorithm that
	// does not declare its state, see Stateful). An error returned by
	// Checkpoint fails the run.
	Checkpoint func(done int, save func(io.Writer) error) error
	// CheckpointRounds, if > 0, asks the caller that sets Checkpoint to
	// save one every CheckpointRounds rounds besides its time period (the
	// run setting checkpoint_rounds); not part of the run's identity: it
	// changes when the run's state is saved, never its numbers.
	CheckpointRounds int
	// Resume, if not nil, is a checkpoint of this run (same settings and
	// CheckpointKey) that it continues from, bit for bit as if it had not
	// stopped; a checkpoint that is damaged, truncated or of another run
	// fails the run with the reason (VerifyCheckpoint checks it first).
	Resume []byte
}

// Check validates the settings.
func (s *Settings) Check() error {
	switch {
	case s.Rounds < 0:
		return fmt.Errorf("rounds must be ≥ 0, got %d", s.Rounds)
	case s.LocalEpochs < 0 || s.LocalSteps < 0 || s.Batch < 0 || s.ClientsPerRound < 0 || s.EvalEvery < 0 || s.CheckpointRounds < 0:
		return fmt.Errorf("local_steps, epochs, batch, clients_per_round, eval_every and checkpoint_rounds must be ≥ 0")
	case s.LocalEpochs == 0 && s.LocalSteps == 0:
		return fmt.Errorf("give local_steps or epochs")
	case !(s.InitScale >= 0) || math.IsInf(s.InitScale, 1):
		return fmt.Errorf("init_scale must be a finite number ≥ 0, got %g", s.InitScale)
	case s.Divergence != 0 && !(s.Divergence > 1):
		return fmt.Errorf("divergence must be a factor > 1 (+Inf: only a NaN/Inf model diverges; 0: the default %g), got %g", DefaultDivergence, s.Divergence)
	}
	for _, r := range s.EvalRounds {
		if r < s.RoundOffset || r > s.RoundOffset+s.Rounds {
			return fmt.Errorf("evaluation round %d is outside the run's rounds %d to %d", r, s.RoundOffset, s.RoundOffset+s.Rounds)
		}
	}
	return nil
}

// DefaultDivergence is the default of Settings.Divergence: a run whose
// training loss grows to a million times max(|F(w₀)|, 1) has left every
// regime in which its numbers mean anything (the FCO paper's FedDualAvg
// step size on LASSO goes 4.9 → 8.6e85 → 2.5e284 before it overflows),
// while a converging run rises by a small factor at most (FedDualAvg at
// (0.001, 10) on the FCO LASSO (I): 1050 → 1450, a factor 1.4).
const DefaultDivergence = 1e6

// divergenceFactor is the factor in effect (Divergence, or the default).
func (s *Settings) divergenceFactor() float64 {
	if s.Divergence == 0 {
		return DefaultDivergence
	}
	return s.Divergence
}

// Counts are cumulative totals of a run: floats sent up and down, rounds
// that communicated and samples accessed.
type Counts struct {
	Up, Down   int64
	CommRounds int
	Samples    int64
}

// evaluated returns, for t = 0 … Rounds, whether the engine evaluates the
// model after t rounds (round RoundOffset+t).
func (s *Settings) evaluated() []bool {
	at := make([]bool, s.Rounds+1)
	if s.EvalRounds != nil {
		for _, r := range s.EvalRounds {
			at[r-s.RoundOffset] = true
		}
		return at
	}
	at[0], at[s.Rounds] = true, true
	for t := 1; s.EvalEvery > 0 && t < s.Rounds; t++ {
		at[t] = t%s.EvalEvery == 0
	}
	return at
}

// stepsFor returns the local steps of a client with n samples.
func (s *Settings) stepsFor(n int) int {
	if s.LocalEpochs == 0 {
		return s.LocalSteps
	}
	if s.Batch == 0 || s.Batch >= n {
		return s.LocalEpochs
	}
	return s.LocalEpochs * ((n + s.Batch - 1) / s.Batch)
}
