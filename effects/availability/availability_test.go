package availability_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/effects/availability"
	"github.com/fedlab/fedlab/effects/compress"
	"github.com/fedlab/fedlab/effects/privacy"
	"github.com/fedlab/fedlab/registry"

	_ "github.com/fedlab/fedlab/algorithms"
	_ "github.com/fedlab/fedlab/datasets"
	_ "github.com/fedlab/fedlab/losses"
	_ "github.com/fedlab/fedlab/metrics"
	_ "github.com/fedlab/fedlab/regularizers"
)

// lasso is a small federated LASSO (the FCO generator at d = 64).
func lasso(t *testing.T) *core.Problem {
	t.Helper()
	f, err := registry.Build[*core.Federated](registry.Dataset, "lasso",
		map[string]any{"variant": "custom", "support": 8.0, "dim": 64.0, "clients": 20.0, "samples": 30.0})
	if err != nil {
		t.Fatal(err)
	}
	loss, err := registry.Build[core.Loss](registry.Loss, "squared", map[string]any{"intercept": true})
	if err != nil {
		t.Fatal(err)
	}
	pen, err := registry.Build[core.Penalty](registry.Regularizer, "l1", map[string]any{"lambda": 0.1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := core.NewProblem(f, loss, pen, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func run(t *testing.T, p *core.Problem, algo string, s core.Settings) *core.Result {
	t.Helper()
	alg, err := registry.Build[core.Algorithm](registry.Algorithm, algo, map[string]any{"eta_c": 0.002, "eta_s": 1.0})
	if err != nil {
		t.Fatal(err)
	}
	var ms []core.Metric
	for _, name := range []string{"objective", "bits_up", "bits_down", "epsilon"} {
		m, err := registry.Build[core.Metric](registry.Metric, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	res := core.Run(p, alg, s, ms)
	if res.Status != core.Done {
		t.Fatalf("%s: %s %s", algo, res.Status, res.Err)
	}
	return res
}

// identical compares records and models bit for bit (NaN equals NaN).
func identical(a, b *core.Result) bool {
	if len(a.Records) != len(b.Records) || !sameBits(a.Model, b.Model) {
		return false
	}
	for i, r := range a.Records {
		q := b.Records[i]
		if r.Round != q.Round || r.Up != q.Up || r.Down != q.Down || r.CommRounds != q.CommRounds ||
			r.Samples != q.Samples || !sameBits(r.Values, q.Values) {
			return false
		}
	}
	return true
}

func sameBits(x, y []float64) bool {
	return slices.EqualFunc(x, y, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
}

var base = core.Settings{Rounds: 30, ClientsPerRound: 8, LocalSteps: 5, Batch: 5, EvalEvery: 3, Seed: 4}

// TestZeroDropoutIsBitIdenticalToNoEffects: p = 0 draws from a stream of
// its own and drops nobody, so records and model equal a run without it.
func TestZeroDropoutIsBitIdenticalToNoEffects(t *testing.T) {
	p := lasso(t)
	for _, algo := range []string{"feddualavg", "fedmid", "fedavg"} {
		plain := run(t, p, algo, base)
		s := base
		s.Availability = availability.Dropout{P: 0}
		zero := run(t, p, algo, s)
		if !identical(plain, zero) {
			t.Fatalf("%s: dropout p = 0 changed the records", algo)
		}
		// the streams are untouched: a full top-k compressor changes only the bit counts
		s = base
		s.CompressUp = compress.TopK{Count: compress.Count{Fraction: 1}}
		ident := run(t, p, algo, s)
		for i, r := range ident.Records {
			if r.Values[0] != plain.Records[i].Values[0] {
				t.Fatalf("%s: top-k with k = d changed the objective at record %d", algo, i)
			}
		}
	}
}

// TestEffectsAreIdenticalAcrossWorkerCounts: every effect at once, with 1
// and 4 client workers.
func TestEffectsAreIdenticalAcrossWorkerCounts(t *testing.T) {
	p := lasso(t)
	for _, avail := range []core.Availability{availability.Dropout{P: 0.3}, availability.Markov{POff: 0.2, POn: 0.5},
		availability.Fraction{Min: 0.2, Max: 1}, availability.Pareto{Alpha: 1.2}} {
		s := base
		s.Availability = avail
		s.CompressUp = compress.QSGD{Levels: 4, EF: true}
		s.CompressDown = compress.TopK{Count: compress.Count{Fraction: 0.25}}
		s.Privacy = privacy.Gaussian{C: 5, Sigma: 0.5, Delta: 1e-5, Local: 0.1}
		s.Workers = 1
		one := run(t, p, "feddualavg", s)
		s.Workers = 4
		four := run(t, p, "feddualavg", s)
		if !identical(one, four) {
			t.Fatalf("%T: records differ between 1 and 4 workers", avail)
		}
		// and the effect is real: differs from the run without availability
		s.Availability = nil
		other := run(t, p, "feddualavg", s)
		if reflect.DeepEqual(one.Model, other.Model) {
			t.Fatalf("%T changed nothing", avail)
		}
	}
}

func TestDropoutFrequencyAndMarkovStationarity(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	const N = 100000
	on := 0
	for range N {
		if (availability.Dropout{P: 0.3}).Online(true, false, rng) {
			on++
		}
	}
	// binomial sd √(N·0.3·0.7) ≈ 145
	if math.Abs(float64(on)-0.7*N) > 5*145 {
		t.Fatalf("dropout 0.3: %d of %d online", on, N)
	}
	m := availability.Markov{POff: 0.1, POn: 0.3}
	state, on, switches := false, 0, 0
	for i := range N {
		next := m.Online(state, i == 0, rng)
		if next != state && i > 0 {
			switches++
		}
		state = next
		if state {
			on++
		}
	}
	// stationary P(on) = 0.3/0.4 = 0.75; switches per round 2·0.75·0.1 = 0.15
	if math.Abs(float64(on)/N-0.75) > 0.02 || math.Abs(float64(switches)/N-0.15) > 0.01 {
		t.Fatalf("markov: on %g, switches %g per round", float64(on)/N, float64(switches)/N)
	}
}

func TestStragglerSteps(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for k, want := range map[int]int{10: 3, 1: 1, 7: 3} { // ⌈0.3·10⌉ = 3, at least 1, ⌈2.1⌉ = 3
		if got := (availability.Fraction{Min: 0.3, Max: 0.3}).Steps(k, rng); got != want {
			t.Errorf("fixed 0.3 of %d: %d steps, want %d", k, got, want)
		}
	}
	// Pareto(α = 1): P(T > t) = 1/t, so P(steps < k/2) = P(T > 2) = 1/2 for large k
	const N = 20000
	short := 0
	for range N {
		s := (availability.Pareto{Alpha: 1}).Steps(1000, rng)
		if s < 1 || s > 1000 {
			t.Fatalf("pareto steps %d outside [1, 1000]", s)
		}
		if s < 500 {
			short++
		}
	}
	if math.Abs(float64(short)/N-0.5) > 0.02 {
		t.Fatalf("pareto α = 1: %g of clients below half the steps, want 0.5", float64(short)/N)
	}
	for range 1000 {
		if s := (availability.Fraction{Min: 0.5, Max: 1}).Steps(10, rng); s < 5 || s > 10 {
			t.Fatalf("uniform [0.5, 1] of 10: %d steps", s)
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		raw  map[string]any
		want string
	}{
		{"dropout", map[string]any{"p": 1.0}, "p must be in [0, 1)"},
		{"dropout", map[string]any{"p": -0.1}, `parameter "p" = -0.1 is below its minimum 0`},
		{"dropout", map[string]any{"p": 1.5}, `parameter "p" = 1.5 is above its maximum 1`},
		{"markov", map[string]any{"p_off": 0.1, "p_on": 0.0}, "need p_off in [0, 1) and p_on in (0, 1]"},
		{"fixed_fraction", map[string]any{"fraction": 0.0}, "fraction must be in (0, 1]"},
		{"pareto", map[string]any{"alpha": 0.0}, "alpha must be > 0"},
	} {
		_, err := registry.Build[core.Availability](registry.Availability, c.name, c.raw)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: got %v, want %q", c.name, c.raw, err, c.want)
		}
	}
	if _, err := registry.Build[core.Privacy](registry.Privacy, "gaussian", map[string]any{"clip": 1.0, "noise": -1.0}); err == nil ||
		!strings.Contains(err.Error(), `parameter "noise" = -1 is below its minimum 0`) {
		t.Errorf("negative noise: %v", err)
	}
	if _, err := registry.Build[core.Privacy](registry.Privacy, "gaussian", map[string]any{"clip": 0.0, "noise": 1.0}); err == nil ||
		!strings.Contains(err.Error(), "clip must be > 0") {
		t.Errorf("zero clip: %v", err)
	}
	// an algorithm that does not declare dropped clients refuses them
	alg, err := registry.Build[core.Algorithm](registry.Algorithm, "fedpd", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := base
	s.Availability = availability.Dropout{P: 0.2}
	if err := core.CheckEffects("fedpd", alg, &s); err == nil || !strings.Contains(err.Error(), `algorithm "fedpd" cannot take dropped clients`) {
		t.Errorf("fedpd under dropout: %v", err)
	}
}

// TestFixedFractionEqualsFewerSteps: completing half of K = 6 steps is
// running K = 3 (the minibatch streams are the clients' own, and a fixed
// fraction draws nothing), so the records are bit-identical — the server
// steps (FedDualAvg's running step-size sum, FedMiD's prox threshold) see
// the steps that were done.
func TestFixedFractionEqualsFewerSteps(t *testing.T) {
	p := lasso(t)
	for _, algo := range []string{"feddualavg", "fedmid", "fedavg", "scaffold"} {
		s := base
		s.LocalSteps = 6
		s.Availability = availability.Fraction{Min: 0.5, Max: 0.5}
		half := run(t, p, algo, s)
		s = base
		s.LocalSteps = 3
		three := run(t, p, algo, s)
		// bits and ε do not depend on the steps; compare everything
		if !identical(half, three) {
			t.Fatalf("%s: half of 6 steps differs from 3 steps", algo)
		}
	}
}

// TestEpsilonColumn: the engine reports the accountant's ε for the rounds
// so far at q = clients_per_round / M.
func TestEpsilonColumn(t *testing.T) {
	p := lasso(t)
	s := base
	s.Privacy = privacy.Gaussian{C: 5, Sigma: 1.2, Delta: 1e-5}
	res := run(t, p, "fedavg", s)
	for _, r := range res.Records {
		want, _ := privacy.Epsilon(8.0/20, 1.2, r.Round, 1e-5)
		if got := r.Values[3]; got != want {
			t.Fatalf("round %d: ε = %g, want %g", r.Round, got, want)
		}
	}
	if eps := res.Records[len(res.Records)-1].Values[3]; !(eps > 1 && eps < 100) {
		t.Fatalf("ε after 30 rounds = %g", eps)
	}
}
