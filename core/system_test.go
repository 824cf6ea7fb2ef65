package core

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// tolerant is a recorder that takes every system effect; its reply is
// ID + 1 (dimension 1) and its step count, and it keeps every mean.
type tolerant struct {
	recorder
	means []float64
}

func (a *tolerant) Tolerates() Effects {
	return Dropout | UnequalSteps | CompressedUp | CompressedDown | ClientDP
}
func (a *tolerant) ClientUpdate(_ *Round, c *Client, _, up *Message) {
	up.Scalars[0] = float64(c.Steps)
	up.Vecs[0][0] = float64(c.ID + 1)
}
func (a *tolerant) Aggregate(rd *Round, mean *Message, ups []*Message) {
	a.recorder.Aggregate(rd, mean, ups)
	a.means = append(a.means, mean.Vecs[0][0])
}

// alternating puts every client on in even rounds and off in odd ones,
// and makes it complete k − 1 of k steps.
type alternating struct{}

func (alternating) Online(prev, first bool, _ *rand.Rand) bool { return first || !prev }
func (alternating) Steps(k int, _ *rand.Rand) int              { return max(1, k-1) }
func (alternating) Effects() Effects                           { return Dropout | UnequalSteps }

// halving sends x/2 in 10 bits (a deterministic lossy code).
type halving struct{ ef bool }

func (h halving) Compress(x []float64, _ *rand.Rand, _ []int) int64 {
	for i := range x {
		x[i] /= 2
	}
	return 10
}
func (h halving) ErrorFeedback() bool { return h.ef }

// fixedDP clips and noises with the given parameters; its "ε" records the
// accountant's inputs as q·1000 + rounds.
type fixedDP struct{ c, sigma, local float64 }

func (p fixedDP) Clip() float64                    { return p.c }
func (p fixedDP) Noise() float64                   { return p.sigma }
func (p fixedDP) LocalNoise() float64              { return p.local }
func (p fixedDP) Epsilon(q float64, r int) float64 { return q*1000 + float64(r) }

// evalMetric exposes a field of the evaluation context.
type evalMetric struct {
	name string
	f    func(*Eval) float64
}

func (m evalMetric) Name() string         { return m.name }
func (m evalMetric) Eval(e *Eval) float64 { return m.f(e) }

var systemMetrics = []Metric{
	evalMetric{"bits_up", func(e *Eval) float64 { return float64(e.BitsUp) }},
	evalMetric{"bits_down", func(e *Eval) float64 { return float64(e.BitsDown) }},
	evalMetric{"epsilon", func(e *Eval) float64 { return e.Epsilon }},
}

func TestDroppedRoundsKeepTheServerAndCountTheBroadcast(t *testing.T) {
	p := testProblem(t, sizes(2, 2, 2))
	a := &tolerant{}
	res := Run(p, a, Settings{Rounds: 4, LocalSteps: 3, Availability: alternating{}}, systemMetrics)
	if res.Status != Done {
		t.Fatal(res.Err)
	}
	// rounds 0 and 2: everyone replies after 2 of 3 steps; rounds 1 and 3: nobody
	if len(a.steps) != 2 || a.steps[0] != 2e6 || a.steps[1] != 2e6 {
		t.Fatalf("Aggregate saw mean steps %v, want two rounds of 2", a.steps)
	}
	last := res.Records[len(res.Records)-1]
	// down: 3 clients × 4 rounds × (1 + 2) floats; up: 3 × 2 rounds × (1 + 1)
	if last.Down != 36 || last.Up != 12 || last.CommRounds != 4 {
		t.Fatalf("down %d up %d comm rounds %d; want 36, 12, 4", last.Down, last.Up, last.CommRounds)
	}
	if bu, bd := last.Values[0], last.Values[1]; bu != 12*64 || bd != 36*64 {
		t.Fatalf("bits up %g down %g; want %d and %d", bu, bd, 12*64, 36*64)
	}
	if !math.IsNaN(last.Values[2]) {
		t.Fatalf("ε without DP = %g, want NaN", last.Values[2])
	}
}

func TestUplinkErrorFeedbackAndBits(t *testing.T) {
	p := testProblem(t, sizes(2, 2, 2))
	for _, ef := range []bool{false, true} {
		a := &tolerant{}
		res := Run(p, a, Settings{Rounds: 3, LocalSteps: 1, CompressUp: halving{ef}}, systemMetrics)
		if res.Status != Done {
			t.Fatal(res.Err)
		}
		// the clients send 1, 2, 3 (mean 2) every round. Without error
		// feedback the server gets half; with it, the memory e_t makes the
		// sent values 2·(1 − 2^−t): 1, 1.5, 1.75.
		for r, got := range a.means {
			want := 1.0
			if ef {
				want = 2 * (1 - math.Pow(2, -float64(r+1)))
			}
			if math.Abs(got-want) > 1e-15 {
				t.Fatalf("ef=%v round %d: mean %g, want %g", ef, r, got, want)
			}
		}
		last := res.Records[len(res.Records)-1]
		// up: 3 rounds × 3 clients × (10 bits + one 64-bit scalar);
		// down: uncompressed, 3 × 3 × 3 floats
		if last.Values[0] != 3*3*74 || last.Values[1] != 3*3*3*64 {
			t.Fatalf("bits up %g down %g; want %d and %d", last.Values[0], last.Values[1], 3*3*74, 3*3*3*64)
		}
	}
}

func TestDownlinkCompressionSendsTheChangeAgainstTheClientsCopy(t *testing.T) {
	p := testProblem(t, sizes(2, 2, 2))
	a := &broadcaster{}
	res := Run(p, a, Settings{Rounds: 3, LocalSteps: 1, CompressDown: halving{}}, systemMetrics)
	if res.Status != Done {
		t.Fatal(res.Err)
	}
	// the server broadcasts 8, 8, 8: the first reaches the clients whole
	// (the copy starts from it), later ones as copy + (8 − copy)/2 = 8.
	for r, got := range a.received {
		if got != 8 {
			t.Fatalf("round %d: clients received %g, want 8", r, got)
		}
	}
	b := &broadcaster{grow: true}
	Run(p, b, Settings{Rounds: 3, LocalSteps: 1, CompressDown: halving{}}, nil)
	// broadcasts 8, 16, 24: copy 8, then 8 + 4 = 12, then 12 + 6 = 18
	want := []float64{8, 12, 18}
	for r, got := range b.received {
		if got != want[r] {
			t.Fatalf("round %d: clients received %g, want %g", r, got, want[r])
		}
	}
	last := res.Records[len(res.Records)-1]
	// down bits per client: round 0 64 + 2·64; rounds 1, 2: 10 + 2·64
	if want := float64(3 * (192 + 2*138)); last.Values[1] != want {
		t.Fatalf("bits down %g, want %g", last.Values[1], want)
	}
	if err := CheckEffects("x", &tolerant{}, &Settings{CompressDown: halving{ef: true}}); err == nil {
		t.Fatal("downlink error feedback accepted")
	}
	res = Run(p, &tolerant{}, Settings{Rounds: 1, LocalSteps: 1, CompressDown: halving{ef: true}}, nil)
	if res.Status != Failed || !strings.Contains(res.Err, "error_feedback applies to the uplink only") {
		t.Fatalf("downlink error feedback: %s %q", res.Status, res.Err)
	}
}

// broadcaster broadcasts 8 (or 8·(r+1)) and records what the clients got.
type broadcaster struct {
	tolerant
	grow     bool
	received []float64
}

func (a *broadcaster) Broadcast(rd *Round, down *Message) {
	down.Vecs[0][0] = 8
	if a.grow {
		down.Vecs[0][0] = 8 * float64(rd.R+1)
	}
}
func (a *broadcaster) ClientUpdate(rd *Round, c *Client, down, up *Message) {
	if c.ID == 0 {
		a.received = append(a.received, down.Vecs[0][0])
	}
}

func TestClippingNoiseAndAccountantInputs(t *testing.T) {
	p := testProblem(t, sizes(2, 2, 2, 2))
	// replies 1, 2, 3, 4 clipped to 2.5: mean (1 + 2 + 2.5 + 2.5)/4 = 2
	a := &tolerant{}
	res := Run(p, a, Settings{Rounds: 2, LocalSteps: 1, Privacy: fixedDP{c: 2.5}}, systemMetrics)
	if res.Status != Done || a.means[0] != 2 || a.means[1] != 2 {
		t.Fatalf("%s %s: means %v, want 2", res.Status, res.Err, a.means)
	}
	if eps := res.Records[len(res.Records)-1].Values[2]; eps != 1000+2 {
		t.Fatalf("accountant saw q·1000 + rounds = %g, want 1002 (full participation, 2 rounds)", eps)
	}
	// two of four clients per round: q = 1/2; the mean gets N(0, (σC/n)²)
	const rounds = 2000
	b := &tolerant{}
	res = Run(p, b, Settings{Rounds: rounds, LocalSteps: 1, ClientsPerRound: 2, Seed: 3,
		Privacy: fixedDP{c: 10, sigma: 0.8}}, systemMetrics)
	if eps := res.Records[len(res.Records)-1].Values[2]; eps != 500+rounds {
		t.Fatalf("accountant inputs %g, want %d", eps, 500+rounds)
	}
	var sq float64
	for r, m := range b.means {
		s := b.seen[r]
		clean := float64(s[0]+s[1]+2) / 2
		sq += (m - clean) * (m - clean)
	}
	// the sample variance of 2000 normals is within ±10% of σ² with
	// probability > 0.999 (its relative sd is √(2/1999) ≈ 3.2%)
	want := math.Pow(0.8*10/2, 2)
	if v := sq / rounds; math.Abs(v/want-1) > 0.1 {
		t.Fatalf("noise variance %g, want %g ± 10%%", v, want)
	}
	// local noise only: each of the 2 replies gets N(0, (σ_l C)²), so the
	// mean's error has variance (σ_l C)²/2
	c := &tolerant{}
	Run(p, c, Settings{Rounds: rounds, LocalSteps: 1, ClientsPerRound: 2, Seed: 5,
		Privacy: fixedDP{c: 10, local: 0.3}}, nil)
	sq = 0
	for r, m := range c.means {
		s := c.seen[r]
		clean := float64(s[0]+s[1]+2) / 2
		sq += (m - clean) * (m - clean)
	}
	if v, want := sq/rounds, 0.3*0.3*100/2; math.Abs(v/want-1) > 0.1 {
		t.Fatalf("local noise variance of the mean %g, want %g ± 10%%", v, want)
	}
	// unequal client weights are refused
	q := testProblem(t, sizes(1, 2))
	q.WeightBySamples = true
	res = Run(q, &tolerant{}, Settings{Rounds: 1, LocalSteps: 1, Privacy: fixedDP{c: 1}}, nil)
	if res.Status != Failed || !strings.Contains(res.Err, "equal client weights") {
		t.Fatalf("weighted DP: %s %q", res.Status, res.Err)
	}
}

func TestEffectsAreRefusedUnlessDeclared(t *testing.T) {
	s := &Settings{Availability: alternating{}, CompressUp: halving{}}
	err := CheckEffects("plain", &recorder{}, s)
	if err == nil || !strings.Contains(err.Error(), `algorithm "plain" cannot take dropped clients, unequal local steps, uplink compression`) {
		t.Fatalf("got %v", err)
	}
	res := Run(testProblem(t, sizes(2, 2)), &recorder{}, Settings{Rounds: 1, LocalSteps: 1, Availability: alternating{}}, nil)
	if res.Status != Failed || !strings.Contains(res.Err, "cannot take dropped clients") {
		t.Fatalf("%s %q", res.Status, res.Err)
	}
	if err := CheckEffects("plain", &recorder{}, &Settings{}); err != nil {
		t.Fatalf("no effects: %v", err)
	}
}
