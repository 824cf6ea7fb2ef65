package core

import (
	"math"
	"testing"
)

// overflowLoss is meanLoss computed "in float32" that overflows: its
// training loss is NaN.
type overflowLoss struct {
	meanLoss
	float32 bool
}

func (l overflowLoss) Float32Arithmetic() bool     { return l.float32 }
func (overflowLoss) NewEvaluator(Layout) Evaluator { return nanEval{} }

type nanEval struct{}

func (nanEval) Eval(w []float64, d *Data, idx []int, grad []float64) float64 {
	clear(grad)
	return math.NaN()
}

// TestFloat32OverflowIsNamed: a run whose loss computes in float32 and
// whose training loss is NaN is reported as float32 overflow with the
// ways out (it said only "the training loss is NaN": the same data ran in
// float64); in float64 the message is as before.
func TestFloat32OverflowIsNamed(t *testing.T) {
	for _, c := range []struct {
		float32 bool
		want    string
	}{
		{true, `diverged at round 0: the training loss is NaN in float32 arithmetic (the loss's precision = "float32"): a value passed float32's range (about 3.4e38), which float64 may hold; give the loss precision = "float64", or a smaller step size (or scale the features)`},
		{false, "diverged at round 0: the training loss is NaN"},
	} {
		p, err := NewProblem(sizes(2, 2), overflowLoss{float32: c.float32}, Penalty{Name: "none", Reg: zeroReg{}, Lambda: constant(1)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res := Run(p, &recorder{}, Settings{Rounds: 3, LocalSteps: 1, EvalEvery: 1}, []Metric{trainLoss{}})
		if res.Status != Diverged || res.Err != c.want {
			t.Errorf("float32 %v: %s %q\nwant %q", c.float32, res.Status, res.Err, c.want)
		}
	}
}
