package core

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Status is how a run ended.
type Status string

// Run statuses.
const (
	Done     Status = "done"
	Diverged Status = "diverged"
	Failed   Status = "failed"
	// Interrupted: Settings.Interrupt stopped the run at a round boundary;
	// the result is incomplete and not a record of the run.
	Interrupted Status = "interrupted"
)

// Record holds the metrics measured after Round rounds.
type Record struct {
	Round      int
	Up         int64 // cumulative floats sent client → server
	Down       int64 // cumulative floats sent server → client
	CommRounds int   // rounds that communicated so far (skipped rounds excluded)
	Samples    int64 // cumulative samples accessed by clients
	Values     []float64
}

// Result is the outcome of one run.
type Result struct {
	Metrics    []string
	Records    []Record
	Status     Status
	DivergedAt int // the round at which the run diverged (Settings.Divergence)
	// Unmoved, when nonzero, is the round at which the model was still the
	// run's initial model, bit for bit: the UnmovedEvaluation-th evaluated
	// round after the start (UnmovedNote says it to the user).
	Unmoved int
	Err     string // why a run failed or diverged
	Model   []float64
	Elapsed time.Duration
	// Cohort is the number of runs executed in lockstep with this one,
	// itself included (RunCohort), whose wall time Elapsed is a share of;
	// 0 for a run executed alone.
	Cohort int
}

// Run executes alg on p for s.Rounds rounds and measures metrics. It never
// panics: a panic inside a component marks the run as failed, and a model
// that becomes NaN or ±Inf, or a training loss that grows past the
// divergence threshold at an evaluated round (Settings.Divergence), stops
// the run as diverged; the records end before that round.
func Run(p *Problem, alg Algorithm, s Settings, metrics []Metric) (res *Result) {
	start := time.Now()
	res = newResult(alg, metrics)
	defer func() {
		if r := recover(); r != nil {
			res.Status, res.Err = Failed, fmt.Sprint(r)
		}
		res.Elapsed = time.Since(start)
	}()
	if err := s.Check(); err != nil {
		res.Status, res.Err = Failed, err.Error()
		return res
	}
	e, err := newEngine(p, alg, &s, metrics, res)
	if err != nil {
		res.Status, res.Err = Failed, err.Error()
		return res
	}
	e.loop()
	return res
}

type engine struct {
	p          *Problem
	alg        Algorithm
	s          *Settings
	metrics    []Metric
	res        *Result
	key        streamKey
	dim        int
	clients    []*Client
	weights    []float64
	downMsg    *Message
	ups        []*Message // one per sampled slot, reused
	scratch    []*Scratch // one per worker
	mean       *Message
	upShape    MessageShape
	dnShape    MessageShape
	model      []float64
	evalEv     Evaluator
	trainLoss  *float64 // the next evaluation's training loss, measured by a cohort
	up, down   int64
	commRounds int
	fixed      []int
	round      Round
	sample     []int
	samplePCG  rand.PCG
	gossip     Gossiper    // nil unless the algorithm gossips
	nodes      Nodes       // nil unless the algorithm keeps one model per node
	nodeModels [][]float64 // scratch for the nodes' models
	nodeMean   []float64
	sys        *system   // nil without system effects (system.go)
	evalAt     []bool    // evalAt[t]: evaluate after t rounds
	scale      float64   // max(|F(w₀)|, 1) of the divergence test; 0 until measured
	resumed    bool      // the run continues from a checkpoint (Settings.Resume)
	start      int       // rounds done before the loop: 0, or the checkpoint's
	initial    []float64 // the initial model until checkUnmoved compared it; nil after
	unmovedAt  int       // rounds done after which checkUnmoved runs (unmovedRound); 0: never
}

func newEngine(p *Problem, alg Algorithm, s *Settings, metrics []Metric, res *Result) (*engine, error) {
	dim := p.Dim()
	e := &engine{p: p, alg: alg, s: s, metrics: metrics, res: res, dim: dim,
		key: streamKey{seed: s.Seed, run: s.Run}, weights: p.ClientWeights(),
		up: s.Carry.Up, down: s.Carry.Down, commRounds: s.Carry.CommRounds, evalAt: s.evaluated()}
	w0 := make([]float64, dim)
	if err := e.initialModel(w0); err != nil {
		return nil, err
	}
	if err := alg.Init(&Env{Problem: p, W0: w0, Settings: s}); err != nil {
		return nil, err
	}
	if e.unmovedAt = unmovedRound(e.evalAt); e.unmovedAt > 0 {
		e.initial = make([]float64, dim)
		alg.Model(e.initial) // the model begin reads, before a checkpoint replaces it
	}
	e.dnShape, e.upShape = alg.Shape()
	M := p.Data.Clients()
	for m, d := range p.Data.Train {
		e.clients = append(e.clients, newClient(m, d, s))
	}
	for range max(s.Workers, 1) {
		e.scratch = append(e.scratch, NewScratch(p))
	}
	e.downMsg = NewMessage(e.dnShape, dim)
	e.mean = NewMessage(e.upShape, dim)
	e.model = make([]float64, dim)
	e.evalEv = p.Loss.NewEvaluator(p.Layout)
	if f, ok := As[Participants](alg); ok {
		e.fixed = f.Participants(M)
		for _, m := range e.fixed {
			if m < 0 || m >= M {
				return nil, fmt.Errorf("algorithm chose client %d, but there are %d clients", m, M)
			}
		}
	}
	e.round.Mirror = p.Mirror
	if err := e.newSystem(); err != nil {
		return nil, err
	}
	e.gossip, _ = As[Gossiper](alg)
	if n, ok := As[Nodes](alg); ok {
		e.nodes = n
		e.nodeModels = make([][]float64, n.Nodes())
		for i := range e.nodeModels {
			e.nodeModels[i] = make([]float64, dim)
		}
		e.nodeMean = make([]float64, dim)
	}
	if s.Resume != nil {
		if err := e.loadState(s.Resume); err != nil {
			return nil, fmt.Errorf("cannot resume from the checkpoint: %w", err)
		}
		e.resumed = true
		if e.start >= e.unmovedAt { // the checkpoint is past the comparison: compare its model
			e.checkUnmoved(s.RoundOffset + e.start)
		}
	}
	return e, nil
}

func (e *engine) loop() {
	if !e.resumed && e.begin() {
		e.keepModel()
		return
	}
	for t := e.start; t < e.s.Rounds; t++ {
		if e.startRound(t) {
			return
		}
		e.updateClients()
		if e.serverStep(t) || e.endRound(t) {
			break
		}
		if e.checkpoint(t) {
			return
		}
	}
	e.keepModel()
}

// updateClients runs the round's client updates on the run's client
// workers (see forEach). A panic in an update is raised again here once
// the workers are done.
func (e *engine) updateClients() {
	n := len(e.round.Sampled)
	var failMu sync.Mutex
	var failure any
	forEach(min(max(e.s.Workers, 1), n), n, func(i, wk int) {
		defer func() {
			if r := recover(); r != nil {
				failMu.Lock()
				if failure == nil {
					failure = r
				}
				failMu.Unlock()
			}
		}()
		e.updateClient(i, wk)
	})
	if failure != nil {
		panic(failure)
	}
}

// forEach calls f(j, worker) for j in [0, n) on the given number of
// workers and waits for them. The calling goroutine is worker 0 (alone, it
// calls f in turn), and the workers take the next j from a counter: handing
// each j over a channel kept a third goroutine runnable beside the two
// workers on two cores, and an execution trace showed the workers waiting
// for a processor.
func forEach(workers, n int, f func(j, wk int)) {
	var next atomic.Int64
	work := func(wk int) {
		for j := int(next.Add(1) - 1); j < n; j = int(next.Add(1) - 1) {
			f(j, wk)
		}
	}
	var wg sync.WaitGroup
	for wk := 1; wk < min(workers, n); wk++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(wk)
		}()
	}
	work(0)
	wg.Wait()
}

// The steps of a run, in the order loop (one run) and RunCohort (runs in
// lockstep) call them: begin; then per round t startRound, updateClient
// for every sampled client, serverStep, endRound; then keepModel. A step
// that returns true ended the run (its status says how); a run
// interrupted before a round (startRound) keeps no model.

// begin reads the initial model and measures round 0 (or, when round 0 is
// not evaluated, the divergence test's scale); true: the run ended there.
func (e *engine) begin() bool {
	s := e.s
	e.alg.Model(e.model)
	if e.evalAt[0] {
		return e.evaluate(s.RoundOffset, s.RoundOffset)
	}
	if e.tracking() && s.DivergenceBase == 0 {
		ev := NewEval(e.p, e.evalEv, e.model, s.RoundOffset, e.p.Penalty.At(s.RoundOffset, e.p.Layout))
		return e.diverged(s.RoundOffset, ev.TrainLoss())
	}
	return false
}

// startRound samples round t's clients and broadcasts; true: the run was
// interrupted before it.
func (e *engine) startRound(t int) bool {
	s := e.s
	r := s.RoundOffset + t
	if s.Interrupt != nil && s.Interrupt() {
		e.res.Status, e.res.Err = Interrupted, fmt.Sprintf("interrupted after %d of %d rounds", t, s.Rounds)
		return true
	}
	e.prepareRound(r)
	e.alg.Broadcast(&e.round, e.downMsg)
	if e.sys != nil {
		e.compressDown(r)
	}
	return false
}

// updateClient runs the update of the round's i-th sampled client with the
// scratch of client worker wk.
func (e *engine) updateClient(i, wk int) {
	c := e.clients[e.round.Sampled[i]]
	c.use(e.scratch[wk])
	e.alg.ClientUpdate(&e.round, c, e.downMsg, e.ups[i])
	if e.sys != nil {
		e.processReply(e.round.R, i, c.ID)
	}
}

// serverStep aggregates round t's replies, counts its communication and
// reads the new model; true: the model is not finite (the run diverged).
func (e *engine) serverStep(t int) bool {
	r := e.s.RoundOffset + t
	e.averageReplies()
	if e.sys != nil {
		e.noiseMean(r)
	}
	if e.sys == nil || !e.sys.allDropped(&e.round) {
		e.alg.Aggregate(&e.round, e.mean, e.ups[:len(e.round.Sampled)])
	}
	if !e.round.Local {
		if e.gossip != nil {
			e.up += e.gossip.EdgeFloats(&e.round)
		} else {
			n := int64(len(e.round.Sampled))
			e.down += e.receivers() * e.dnShape.Floats(e.dim)
			e.up += n * e.upShape.Floats(e.dim)
			if e.sys != nil {
				e.countSystemBits()
			}
		}
		e.commRounds++
	}
	e.alg.Model(e.model)
	if !finite(e.model) {
		e.res.Status = Diverged
		e.res.DivergedAt = r + 1
		e.res.Err = fmt.Sprintf("diverged at round %d: the model has NaN or Inf entries", r+1)
		return true
	}
	return false
}

// endRound evaluates the model after round t when it is due and reports
// progress; true: the run ended there (diverged or interrupted).
func (e *engine) endRound(t int) bool {
	r := e.s.RoundOffset + t
	if e.evalAt[t+1] && e.evaluate(r+1, r) {
		return true
	}
	if t+1 == e.unmovedAt {
		e.checkUnmoved(r + 1)
	}
	if e.s.Progress != nil {
		e.s.Progress(t+1, e.s.Rounds)
	}
	return false
}

// evalInterrupt is what stops an evaluation midway: Settings.Interrupt,
// unless the run checkpoints (Settings.Checkpoint). A run that checkpoints
// completes the evaluation of the round it is in, so that the checkpoint
// the interruption asks for holds that round (an evaluation abandoned
// midway leaves a model whose round was not recorded, and no checkpoint);
// it then stops at the next round boundary.
func (e *engine) evalInterrupt() func() bool {
	if e.s.Checkpoint != nil {
		return nil
	}
	return e.s.Interrupt
}

// checkpoint offers the caller a checkpoint after round t
// (Settings.Checkpoint); true: the caller's error failed the run.
func (e *engine) checkpoint(t int) bool {
	if e.s.Checkpoint == nil {
		return false
	}
	done := t + 1
	err := e.s.Checkpoint(done, func(w io.Writer) error { return e.saveState(done, w) })
	if err != nil {
		e.res.Status, e.res.Err = Failed, fmt.Sprintf("checkpoint after round %d: %v", e.s.RoundOffset+done, err)
		return true
	}
	return false
}

// keepModel stores the final model in the result.
func (e *engine) keepModel() { e.res.Model = append([]float64(nil), e.model...) }

// prepareRound samples clients and fixes round r's penalty and weights.
func (e *engine) prepareRound(r int) {
	M := len(e.clients)
	rd := &e.round
	rd.R = r
	rd.Local = false
	rd.Psi = e.p.Penalty.At(r, e.p.Layout)
	switch {
	case e.fixed != nil:
		rd.Sampled = append(rd.Sampled[:0], e.fixed...)
	case e.s.ClientsPerRound == 0 || e.s.ClientsPerRound >= M:
		rd.Sampled = rd.Sampled[:0]
		for m := range M {
			rd.Sampled = append(rd.Sampled, m)
		}
	default:
		a, b := e.key.derive(uint64(r), 0)
		e.samplePCG.Seed(a, b)
		rng := rand.New(&e.samplePCG) // reseeded in place: no allocation per round
		if len(e.sample) != M {
			e.sample = make([]int, M)
		}
		for i := range e.sample {
			e.sample[i] = i
		}
		k := e.s.ClientsPerRound
		for i := 0; i < k; i++ {
			j := i + rng.IntN(M-i)
			e.sample[i], e.sample[j] = e.sample[j], e.sample[i]
		}
		rd.Sampled = append(rd.Sampled[:0], e.sample[:k]...)
		slices.Sort(rd.Sampled)
	}
	if e.sys != nil {
		e.applyAvailability(r)
	}
	rd.Weights = rd.Weights[:0]
	total := 0.0
	for _, m := range rd.Sampled {
		total += e.weights[m]
	}
	for _, m := range rd.Sampled {
		rd.Weights = append(rd.Weights, e.weights[m]/total)
	}
	for _, m := range rd.Sampled {
		e.clients[m].startRound(e.key, r)
	}
	for len(e.ups) < len(rd.Sampled) {
		e.ups = append(e.ups, NewMessage(e.upShape, e.dim))
	}
}

// averageReplies writes the weighted mean of the sampled clients' replies
// into e.mean, summing in the fixed order of rd.Sampled.
func (e *engine) averageReplies() {
	for _, v := range e.mean.Vecs {
		clear(v)
	}
	clear(e.mean.Scalars)
	for i := range e.round.Sampled {
		w := e.round.Weights[i]
		up := e.ups[i]
		for j, v := range up.Vecs {
			dst := e.mean.Vecs[j]
			for k, x := range v {
				dst[k] += w * x
			}
		}
		for j, x := range up.Scalars {
			e.mean.Scalars[j] += w * x
		}
	}
}

// tracking reports whether the run tests its training loss for
// divergence (Settings.Divergence is not +Inf).
// Lua's math.huge is math.MaxFloat64, not +Inf: both switch it off.
func (e *engine) tracking() bool { return e.s.divergenceFactor() < math.MaxFloat64 }

// diverged applies the divergence test to the training loss measured at
// round: the first measurement sets the scale max(|F(w₀)|, 1) (unless
// Settings.DivergenceBase gives it); a loss that is not finite or exceeds
// Divergence times the scale marks the run diverged at round.
func (e *engine) diverged(round int, loss float64) bool {
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		e.res.Status, e.res.DivergedAt = Diverged, round
		e.res.Err = nonFiniteLoss(e.p.Loss, round, loss)
		return true
	}
	if e.scale == 0 {
		e.scale = max(math.Abs(loss), 1)
		if e.s.DivergenceBase > 0 {
			e.scale = e.s.DivergenceBase
		}
	}
	factor := e.s.divergenceFactor()
	if math.Abs(loss) > factor*e.scale {
		e.res.Status, e.res.DivergedAt = Diverged, round
		e.res.Err = fmt.Sprintf("diverged at round %d: the training loss %.4g exceeds %g × %.4g (divergence × max(|F(w₀)|, 1))",
			round, loss, factor, e.scale)
		return true
	}
	return false
}

// DivergenceScale is max(|F(w)|, 1) for the training loss F of p: the
// scale of the divergence test of a run that starts at w (see
// Settings.Divergence and Settings.DivergenceBase).
func DivergenceScale(p *Problem, w []float64) float64 {
	ev := NewEval(p, p.Loss.NewEvaluator(p.Layout), w, 0, Psi{})
	return max(math.Abs(ev.TrainLoss()), 1)
}

// evaluate measures the metrics at round and appends their record, unless
// the run diverged there (see diverged), which it reports.
func (e *engine) evaluate(round, psiRound int) bool {
	ev := NewEval(e.p, e.evalEv, e.model, round, e.p.Penalty.At(psiRound, e.p.Layout))
	ev.trainLoss, e.trainLoss = e.trainLoss, nil
	ev.stop = e.evalInterrupt()
	ev.Up, ev.Down, ev.CommRounds = e.up, e.down, e.commRounds
	ev.Samples = e.s.Carry.Samples
	for _, c := range e.clients {
		ev.Samples += c.Accessed
	}
	ev.BitsUp, ev.BitsDown = e.bits()
	ev.Epsilon = e.epsilon()
	rec := Record{Round: round, Up: e.up, Down: e.down, CommRounds: e.commRounds, Samples: ev.Samples}
	var loss float64
	if e.nodes != nil {
		rec.Values, loss = e.evaluateNodes(ev)
	} else {
		rec.Values = make([]float64, len(e.metrics))
		for i, m := range e.metrics {
			rec.Values[i] = m.Eval(ev)
		}
		if e.tracking() {
			loss = ev.TrainLoss() // after the metrics: shares their cached pass
		}
	}
	if ev.Stopped() { // before the divergence check: a stopped pass is NaN
		e.res.Status, e.res.Err = Interrupted, fmt.Sprintf("interrupted while evaluating round %d", round)
		return true
	}
	if e.tracking() && e.diverged(round, loss) {
		return true
	}
	e.res.Records = append(e.res.Records, rec)
	return false
}

// evaluateNodes measures every metric on every node's model and returns,
// per metric, the mean, minimum and maximum over the nodes, and the
// training loss of largest magnitude among the nodes (when tracked). base
// holds the round's counters.
func (e *engine) evaluateNodes(base *Eval) (vals []float64, loss float64) {
	M := len(e.nodeModels)
	clear(e.nodeMean)
	for m, w := range e.nodeModels {
		e.nodes.NodeModel(m, w)
		for k, x := range w {
			e.nodeMean[k] += x / float64(M)
		}
	}
	vals = make([]float64, 3*len(e.metrics))
	for i := range e.metrics {
		vals[3*i+1], vals[3*i+2] = math.Inf(1), math.Inf(-1)
	}
	for m, w := range e.nodeModels {
		ev := NewEval(e.p, e.evalEv, w, base.Round, base.Psi)
		ev.stop = base.stop
		ev.Up, ev.Down, ev.CommRounds, ev.Samples = base.Up, base.Down, base.CommRounds, base.Samples
		ev.BitsUp, ev.BitsDown, ev.Epsilon = base.BitsUp, base.BitsDown, base.Epsilon
		ev.Node, ev.NodeModels, ev.NodeMean = m, e.nodeModels, e.nodeMean
		for i, metric := range e.metrics {
			v := metric.Eval(ev)
			vals[3*i] += v / float64(M)
			vals[3*i+1] = math.Min(vals[3*i+1], v)
			vals[3*i+2] = math.Max(vals[3*i+2], v)
		}
		if e.tracking() {
			if l := ev.TrainLoss(); m == 0 || !(math.Abs(l) <= math.Abs(loss)) {
				loss = l
			}
		}
	}
	return vals, loss
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func nan() float64 { return math.NaN() }
