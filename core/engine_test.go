package core

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// meanLoss is f(w; x) = ½‖w − x‖² (gradient: w minus the batch mean).
type meanLoss struct{}

func (meanLoss) Layout(f *Federated) (Layout, error) {
	return NewLayout(Block{Name: "kernel", Rows: f.Features, Cols: 1, Regularized: true}), nil
}
func (meanLoss) NewEvaluator(Layout) Evaluator { return meanEval{} }

type meanEval struct{}

func (meanEval) Eval(w []float64, d *Data, idx []int, grad []float64) float64 {
	n := d.N
	if idx != nil {
		n = len(idx)
	}
	clear(grad)
	loss := 0.0
	for j := range n {
		i := j
		if idx != nil {
			i = idx[j]
		}
		for k, x := range d.Row(i) {
			loss += (w[k] - x) * (w[k] - x) / 2
			if grad != nil {
				grad[k] += (w[k] - x) / float64(n)
			}
		}
	}
	return loss / float64(n)
}

type zeroReg struct{}

func (zeroReg) Value([]float64, Layout) float64            { return 0 }
func (zeroReg) Prox(dst, z []float64, _ float64, _ Layout) { copy(dst, z) }
func (zeroReg) Subgradient(dst, _ []float64, _ Layout)     { clear(dst) }

// sizes builds M clients with the given sample counts in one dimension;
// sample i of client m has value 100m + i.
func sizes(ns ...int) *Federated {
	f := &Federated{Name: "sizes", Features: 1}
	for m, n := range ns {
		d := &Data{Features: 1, N: n}
		for i := range n {
			d.X = append(d.X, float64(100*m+i))
			d.Y = append(d.Y, 0)
		}
		f.Train = append(f.Train, d)
	}
	return f
}

func testProblem(t *testing.T, f *Federated) *Problem {
	p, err := NewProblem(f, meanLoss{}, Penalty{Name: "none", Reg: zeroReg{}, Lambda: constant(1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type constant float64

func (c constant) At(int) float64 { return float64(c) }

func TestEpochBatchesKeepLastPartialBatchAndReshuffle(t *testing.T) {
	s := &Settings{LocalEpochs: 2, Batch: 3}
	d := sizes(7).Train[0]
	c := newClient(0, d, s)
	if c.Steps != 6 {
		t.Fatalf("K = %d, want 2·⌈7/3⌉ = 6", c.Steps)
	}
	var epochs [2][]int
	var lens []int
	c.startRound(streamKey{seed: 1}, 0)
	for k := range c.Steps {
		b := c.NextBatch()
		lens = append(lens, len(b))
		epochs[k/3] = append(epochs[k/3], b...)
	}
	if !slices.Equal(lens, []int{3, 3, 1, 3, 3, 1}) {
		t.Fatalf("batch sizes %v", lens)
	}
	for e, idx := range epochs {
		sorted := slices.Sorted(slices.Values(idx))
		if !slices.Equal(sorted, []int{0, 1, 2, 3, 4, 5, 6}) {
			t.Fatalf("epoch %d is not a permutation: %v", e, idx)
		}
	}
	if slices.Equal(epochs[0], epochs[1]) {
		t.Fatalf("epochs not reshuffled: %v", epochs)
	}
}

func TestStepBatchesAreDistinctUniformDraws(t *testing.T) {
	s := &Settings{LocalSteps: 1, Batch: 4}
	c := newClient(0, sizes(10).Train[0], s)
	counts := make([]int, 10)
	for r := range 2000 {
		c.startRound(streamKey{seed: 3}, r)
		b := c.NextBatch()
		if len(b) != 4 || len(slices.Compact(slices.Sorted(slices.Values(b)))) != 4 {
			t.Fatalf("batch %v is not 4 distinct indices", b)
		}
		for _, i := range b {
			counts[i]++
		}
	}
	for i, n := range counts { // expected 800 each; 5σ ≈ 110
		if math.Abs(float64(n)-800) > 110 {
			t.Fatalf("index %d drawn %d times, expected ≈ 800 (%v)", i, n, counts)
		}
	}
}

// recorder is an algorithm that records which clients it saw.
type recorder struct {
	seen  [][]int
	steps []int
	w     []float64
}

func (a *recorder) Init(env *Env) error { a.w = append([]float64(nil), env.W0...); return nil }
func (a *recorder) Shape() (MessageShape, MessageShape) {
	return MessageShape{Vecs: 1, Scalars: 2}, MessageShape{Vecs: 1, Scalars: 1}
}
func (a *recorder) Broadcast(rd *Round, _ *Message) {
	a.seen = append(a.seen, slices.Clone(rd.Sampled))
}
func (a *recorder) ClientUpdate(_ *Round, c *Client, _, up *Message) {
	up.Scalars[0] = float64(c.Steps)
	up.Vecs[0][0] = float64(c.ID)
}
func (a *recorder) Aggregate(rd *Round, mean *Message, _ []*Message) {
	a.steps = append(a.steps, int(math.Round(mean.Scalars[0]*1e6)))
	a.w[0] = mean.Vecs[0][0]
}
func (a *recorder) Model(dst []float64) { copy(dst, a.w) }

func TestSamplingCommunicationAndWeights(t *testing.T) {
	p := testProblem(t, sizes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
	a := &recorder{}
	res := Run(p, a, Settings{Rounds: 50, ClientsPerRound: 3, LocalEpochs: 1, Batch: 2, Seed: 9}, nil)
	if res.Status != Done {
		t.Fatal(res.Err)
	}
	counts := make([]int, 10)
	for _, s := range a.seen {
		if len(s) != 3 || !slices.IsSorted(s) || len(slices.Compact(slices.Clone(s))) != 3 {
			t.Fatalf("sample %v is not 3 distinct sorted clients", s)
		}
		for _, m := range s {
			counts[m]++
		}
	}
	if slices.Contains(counts, 0) {
		t.Fatalf("some client never sampled in 50 rounds: %v", counts)
	}
	last := res.Records[len(res.Records)-1]
	if last.Down != 50*3*(1+2) || last.Up != 50*3*(1+1) {
		t.Fatalf("communication down=%d up=%d, want %d and %d", last.Down, last.Up, 50*3*3, 50*3*2)
	}
	// uniform weights: the mean of the client ids of the last round
	s := a.seen[len(a.seen)-1]
	if want := float64(s[0]+s[1]+s[2]) / 3; math.Abs(a.w[0]-want) > 1e-12 {
		t.Fatalf("uniform mean = %g, want %g", a.w[0], want)
	}
	// weighted by samples: client m has m+1 samples
	p.WeightBySamples = true
	b := &recorder{}
	Run(p, b, Settings{Rounds: 1, ClientsPerRound: 3, LocalEpochs: 1, Batch: 2, Seed: 9}, nil)
	s = b.seen[0]
	num, den := 0.0, 0.0
	for _, m := range s {
		num += float64(m * (m + 1))
		den += float64(m + 1)
	}
	if math.Abs(b.w[0]-num/den) > 1e-12 {
		t.Fatalf("weighted mean = %g, want %g", b.w[0], num/den)
	}
	// same seed ⇒ same samples; another seed ⇒ different
	c := &recorder{}
	Run(testProblem(t, sizes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)), c, Settings{Rounds: 50, ClientsPerRound: 3, LocalEpochs: 1, Batch: 2, Seed: 9}, nil)
	if !slices.EqualFunc(a.seen, c.seen, slices.Equal[[]int]) {
		t.Fatal("same seed gave different samples")
	}
}

// divergent takes a step that explodes.
type divergent struct{ recorder }

func (a *divergent) Aggregate(*Round, *Message, []*Message) { a.w[0] = a.w[0]*1e200 + 1e200 }

func TestDivergedRunStopsAndReportsRound(t *testing.T) {
	p := testProblem(t, sizes(2, 2))
	res := Run(p, &divergent{}, Settings{Rounds: 10, LocalSteps: 1}, nil)
	if res.Status != Diverged || res.DivergedAt != 2 {
		t.Fatalf("status %s at %d (%s), want diverged at round 2", res.Status, res.DivergedAt, res.Err)
	}
}

// panicking fails inside a client worker.
type panicking struct{ recorder }

func (a *panicking) ClientUpdate(*Round, *Client, *Message, *Message) { panic("boom") }

func TestPanicInWorkerFailsTheRunCleanly(t *testing.T) {
	res := Run(testProblem(t, sizes(2, 2)), &panicking{}, Settings{Rounds: 3, LocalSteps: 1, Workers: 2}, nil)
	if res.Status != Failed || res.Err != "boom" {
		t.Fatalf("status %s err %q", res.Status, res.Err)
	}
}

// skipper marks every other round as local (no communication).
type skipper struct{ recorder }

func (a *skipper) Broadcast(rd *Round, _ *Message) { rd.Local = rd.R%2 == 1 }

func TestLocalRoundsAreNotCommunication(t *testing.T) {
	res := Run(testProblem(t, sizes(2, 2, 2)), &skipper{}, Settings{Rounds: 10, LocalSteps: 1}, nil)
	last := res.Records[len(res.Records)-1]
	if last.CommRounds != 5 || last.Down != 5*3*3 || last.Up != 5*3*2 {
		t.Fatalf("comm rounds %d, down %d, up %d; want 5, 45, 30", last.CommRounds, last.Down, last.Up)
	}
}

// growing multiplies its model by factor every round: finite, but its
// training loss ½(w − x)² grows by about factor² per round.
type growing struct {
	recorder
	factor float64
}

func (a *growing) Init(env *Env) error {
	err := a.recorder.Init(env)
	a.w[0] = 1
	return err
}
func (a *growing) Aggregate(*Round, *Message, []*Message) { a.w[0] *= a.factor }

func TestFiniteBlowUpDivergesAtTheExactRound(t *testing.T) {
	// one client with the sample 0: F(w) = w²/2, F(w₀) = 0.5, scale 1.
	// w after r rounds is 10^r: F = 10^(2r)/2 first exceeds 1e6 at r = 4.
	p := testProblem(t, sizes(1))
	res := Run(p, &growing{factor: 10}, Settings{Rounds: 10, LocalSteps: 1, EvalEvery: 1}, []Metric{objectiveMetric{}})
	if res.Status != Diverged || res.DivergedAt != 4 {
		t.Fatalf("status %s at %d (%s), want diverged at round 4", res.Status, res.DivergedAt, res.Err)
	}
	want := "diverged at round 4: the training loss 5e+07 exceeds 1e+06 × 1 (divergence × max(|F(w₀)|, 1))"
	if res.Err != want {
		t.Fatalf("message %q, want %q", res.Err, want)
	}
	if n := len(res.Records); n != 4 || res.Records[n-1].Round != 3 {
		t.Fatalf("%d records ending at round %d; want rounds 0–3", n, res.Records[n-1].Round)
	}
	// a larger factor moves the round: 10^(2r)/2 > 1e10 first at r = 6
	res = Run(p, &growing{factor: 10}, Settings{Rounds: 10, LocalSteps: 1, EvalEvery: 1, Divergence: 1e10}, []Metric{objectiveMetric{}})
	if res.Status != Diverged || res.DivergedAt != 6 {
		t.Fatalf("divergence 1e10: status %s at %d, want diverged at round 6", res.Status, res.DivergedAt)
	}
	// +Inf: only a non-finite model diverges (10^r overflows at r = 309)
	res = Run(p, &growing{factor: 10}, Settings{Rounds: 320, LocalSteps: 1, EvalEvery: 1, Divergence: math.Inf(1)}, nil)
	if res.Status != Diverged || res.DivergedAt != 309 {
		t.Fatalf("divergence +Inf: status %s at %d, want diverged at round 309", res.Status, res.DivergedAt)
	}
	// a given scale (a pipeline's later stage) replaces max(|F(w₀)|, 1):
	// 10^(2r)/2 > 1e6 × 1e3 first at r = 5
	res = Run(p, &growing{factor: 10}, Settings{Rounds: 10, LocalSteps: 1, EvalEvery: 1, DivergenceBase: 1e3}, nil)
	if res.Status != Diverged || res.DivergedAt != 5 {
		t.Fatalf("scale 1e3: status %s at %d, want diverged at round 5", res.Status, res.DivergedAt)
	}
	if got := DivergenceScale(p, []float64{3}); got != 4.5 {
		t.Fatalf("DivergenceScale at w = 3: %g, want F = 9/2", got)
	}
	// between evaluations the first evaluated round past the threshold
	res = Run(p, &growing{factor: 10}, Settings{Rounds: 10, LocalSteps: 1, EvalEvery: 5}, nil)
	if res.Status != Diverged || res.DivergedAt != 5 {
		t.Fatalf("eval_every 5: status %s at %d, want diverged at round 5", res.Status, res.DivergedAt)
	}
}

func TestRunUnderTheThresholdIsUntouched(t *testing.T) {
	// F grows by 10^(2·3)/2 = 5e5 < 1e6 over three rounds: not divergence,
	// and the records equal those of a run with the test off.
	p := testProblem(t, sizes(1))
	s := Settings{Rounds: 3, LocalSteps: 1, EvalEvery: 1}
	res := Run(p, &growing{factor: 10}, s, []Metric{objectiveMetric{}})
	s.Divergence = math.Inf(1)
	off := Run(p, &growing{factor: 10}, s, []Metric{objectiveMetric{}})
	if res.Status != Done || len(res.Records) != 4 {
		t.Fatalf("status %s (%s), %d records; want done, 4 records", res.Status, res.Err, len(res.Records))
	}
	for i := range res.Records {
		if !slices.Equal(res.Records[i].Values, off.Records[i].Values) {
			t.Fatalf("record %d: %v with the test, %v without", i, res.Records[i].Values, off.Records[i].Values)
		}
	}
	if got := res.Records[3].Values[0]; got != 5e5 {
		t.Fatalf("objective at round 3 = %g, want 5e5", got)
	}
}

func TestDivergenceSettingIsChecked(t *testing.T) {
	for _, d := range []float64{1, 0.5, -1, math.NaN()} {
		err := (&Settings{Rounds: 1, LocalSteps: 1, Divergence: d}).Check()
		if err == nil || !strings.Contains(err.Error(), "divergence must be a factor > 1") {
			t.Fatalf("divergence %g: error %v", d, err)
		}
	}
}

type objectiveMetric struct{}

func (objectiveMetric) Name() string         { return "objective" }
func (objectiveMetric) Eval(e *Eval) float64 { return e.Objective() }

// trainLoss is the metric F(w).
type trainLoss struct{}

func (trainLoss) Name() string         { return "train_loss" }
func (trainLoss) Eval(e *Eval) float64 { return e.TrainLoss() }

// TestInterruptStopsAnEvaluation: an evaluation passes over the clients'
// data one client at a time and checks Settings.Interrupt between them, so
// a signal or --timeout stops a run in the middle of a long evaluation (a
// pass over 70,000 images of a CNN held a run for minutes past
// --timeout); the run ends interrupted (not diverged, though the stopped
// pass is NaN) and keeps no record of that round.
func TestInterruptStopsAnEvaluation(t *testing.T) {
	p := testProblem(t, sizes(2, 2, 2, 2, 2, 2))
	calls := 0
	interrupt := func() bool { calls++; return calls > 9 } // the first 9 checks pass
	res := Run(p, &recorder{}, Settings{Rounds: 3, LocalSteps: 1, EvalEvery: 1, Interrupt: interrupt}, []Metric{trainLoss{}})
	// round 0: 6 checks (one per client); round 1's check before the round,
	// then 2 of round 1's evaluation checks pass and the third stops it
	if res.Status != Interrupted || !strings.Contains(res.Err, "interrupted while evaluating round 1") {
		t.Fatalf("status %s (%s), want interrupted while evaluating round 1", res.Status, res.Err)
	}
	if len(res.Records) != 1 || res.Records[0].Round != 0 || math.IsNaN(res.Records[0].Values[0]) {
		t.Errorf("records %+v, want round 0's only", res.Records)
	}
}

// passCounter counts the evaluator's passes over a whole client's data
// (idx == nil: evaluations, not client steps).
type passCounter struct {
	meanLoss
	passes *int
}

func (l passCounter) NewEvaluator(Layout) Evaluator { return countingEval{l.passes} }

type countingEval struct{ passes *int }

func (c countingEval) Eval(w []float64, d *Data, idx []int, grad []float64) float64 {
	if idx == nil {
		*c.passes++
	}
	return meanEval{}.Eval(w, d, idx, grad)
}

// TestMathHugeDivergenceSkipsTheLossPass: a divergence factor of +Inf or
// math.MaxFloat64 (what Lua's math.huge is) measures no training loss at
// evaluated rounds (lua-api.md promises math.huge avoids that pass; it
// cost a full pass over the data per evaluation since math.huge is not
// +Inf); the default factor measures it.
func TestMathHugeDivergenceSkipsTheLossPass(t *testing.T) {
	for _, c := range []struct {
		divergence float64
		passes     bool
	}{{0, true}, {math.Inf(1), false}, {math.MaxFloat64, false}} {
		n := 0
		p, err := NewProblem(sizes(2, 2), passCounter{passes: &n}, Penalty{Name: "none", Reg: zeroReg{}, Lambda: constant(1)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := Run(p, &recorder{}, Settings{Rounds: 4, LocalSteps: 1, EvalEvery: 2, Divergence: c.divergence}, []Metric{})
		if res.Status != Done || (n > 0) != c.passes {
			t.Errorf("divergence %g: %s, %d full passes (want passes: %v)", c.divergence, res.Status, n, c.passes)
		}
	}
}
