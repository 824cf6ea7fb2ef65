package core

// Metric is a scalar measured on the current model at an evaluation round.
type Metric interface {
	// Name is the column name in tables and CSV files.
	Name() string
	// Eval measures the model in e.
	Eval(e *Eval) float64
}

// ProblemChecker is implemented by metrics that measure only some
// problems (accuracy needs a classification loss): CheckProblem refuses
// the others before any run starts.
type ProblemChecker interface {
	CheckProblem(p *Problem) error
}

// Eval is the evaluation context handed to metrics. It caches the train and
// test losses so that several metrics share one pass over the data.
type Eval struct {
	Problem *Problem
	W       []float64 // the evaluated model
	Round   int       // rounds completed
	Psi     Psi       // the penalty at the current λ
	Up      int64     // cumulative floats sent client → server
	Down    int64     // cumulative floats sent server → client
	Samples int64     // cumulative samples accessed by clients
	// CommRounds counts the rounds that communicated (skipped rounds excluded).
	CommRounds int
	// BitsUp and BitsDown count the bits sent (64 per float without
	// compression); Epsilon is the (ε, δ)-DP ε spent (NaN without DP).
	BitsUp, BitsDown int64
	Epsilon          float64
	// For algorithms with one model per node (see Nodes): the evaluated
	// node, every node's model and their average. NodeModels is nil otherwise.
	Node       int
	NodeModels [][]float64
	NodeMean   []float64

	ev        Evaluator
	stop      func() bool // the run's Settings.Interrupt, if any
	trainLoss *float64
	testLoss  *float64
}

// Stopped reports whether the run is being interrupted (a signal,
// --timeout): a metric that passes over the data client by client checks it
// between clients and returns NaN when it is, so that an evaluation of a
// large dataset does not hold the run past its interruption; the engine
// then stops the run as interrupted and keeps no record of the round.
func (e *Eval) Stopped() bool { return e.stop != nil && e.stop() }

// NewEval makes an evaluation context for model w.
func NewEval(p *Problem, ev Evaluator, w []float64, round int, psi Psi) *Eval {
	return &Eval{Problem: p, W: w, Round: round, Psi: psi, ev: ev}
}

// Evaluator returns the loss evaluator metrics may use.
func (e *Eval) Evaluator() Evaluator { return e.ev }

// TrainLoss is F(w) on the training data.
func (e *Eval) TrainLoss() float64 {
	if e.trainLoss == nil {
		v := e.Problem.smooth(e.ev, e.W, false, nil, nil, e.Stopped)
		e.trainLoss = &v
	}
	return *e.trainLoss
}

// TestLoss is F(w) on the test data (NaN if there is none).
func (e *Eval) TestLoss() float64 {
	if e.testLoss == nil {
		v := nan()
		if len(e.Problem.Data.Test) > 0 {
			v = e.Problem.smooth(e.ev, e.W, true, nil, nil, e.Stopped)
		}
		e.testLoss = &v
	}
	return *e.testLoss
}

// Objective is Φ(w) = F(w) + ψ(w) on the training data.
func (e *Eval) Objective() float64 { return e.TrainLoss() + e.Psi.Value(e.W) }
