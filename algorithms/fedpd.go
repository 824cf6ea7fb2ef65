package algorithms

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/schedules/sched"
)

// FedPDParams are FedPD's parameters.
type FedPDParams struct {
	Eta    sched.Schedule `param:"eta" min:"0" doc:"η > 0: augmented-Lagrangian parameter, an inverse penalty ‖x_i − x_0‖²/(2η); the dual step is 1/η"`
	Oracle string         `param:"oracle" choices:"I|II" doc:"I: Alg. 3, K gradient steps on the local AL (GD with batch = 0, SGD otherwise); II: Alg. 4, FedPD-VR"`
	Eta1   sched.Schedule `param:"eta1" min:"0" doc:"oracle I local step η₁; 0 = η (the authors' code, making a GD step x ← x_{0,i} − η(∇f_i + λ_i))"`
	Eps1   float64        `param:"eps1" min:"0" doc:"oracle I: stop the local steps once ‖∇L_i‖² ≤ ε₁ (the step's own gradient estimate); 0 = always K steps"`
	Gamma  sched.Schedule `param:"gamma" min:"0" doc:"oracle II proximal constant γ > 0 of the linearized AL; math.huge (default) = the code's x ← x_{0,i} − η(g + λ_i)"`
	Period int            `param:"period" min:"1" doc:"oracle II: a full local gradient every \"period\" rounds (the paper's I); the estimator is carried in between"`
	P      sched.Schedule `param:"p" min:"0" max:"1" doc:"probability of SKIPPING communication in a round (one coin per round, shared by all clients)"`
	Order  string         `param:"order" choices:"paper|matlab" doc:"x_{0,i} ← x_i + η·λ_i^{r+1} (paper, Alg. 2) or x_{0,i} + η·λ_i^{r+1} = x_i + η·λ_i^r (authors' MATLAB)"`
}

func init() {
	registry.Define(registry.Algorithm, "fedpd",
		"FedPD (Zhang et al. 2021, Alg. 2): local augmented-Lagrangian oracle, dual step, averaging skipped with probability p",
		FedPDParams{Eta: sched.Constant(0.1), Oracle: "I", Eta1: sched.Constant(0), Gamma: sched.Constant(math.Inf(1)),
			Period: 1, P: sched.Constant(0), Order: "paper"},
		newFedPD)
}

// Check refuses η ≤ 0 and γ ≤ 0 (when the schedules' ranges are known).
func (p FedPDParams) Check() error {
	for _, s := range []struct {
		name string
		s    sched.Schedule
	}{{"eta", p.Eta}, {"gamma", p.Gamma}} {
		if b, ok := s.s.(sched.Bounded); ok {
			if lo, _ := b.Range(); lo <= 0 {
				return fmt.Errorf("parameter %q must be > 0, got %g", s.name, lo)
			}
		}
	}
	return nil
}

func newFedPD(p FedPDParams) (core.Algorithm, error) {
	return &FedPD{eta: p.Eta, eta1: p.Eta1, gamma: p.Gamma, skip: p.P,
		vr: p.Oracle == "II", matlab: p.Order == "matlab", eps1: p.Eps1, period: p.Period}, nil
}

// FedPD is the federated primal-dual algorithm (Zhang, Hong, Dhople, Yin &
// Liu, "FedPD", IEEE TSP 2021, Alg. 2) for min_x (1/N) Σ_i f_i(x), run on the
// consensus reformulation x_i = x_0 with the local augmented Lagrangian
//
//	L_i(x_i, x_0, λ_i) = f_i(x_i) + ⟨λ_i, x_i − x_0⟩ + ‖x_i − x_0‖²/(2η).
//
// Client i keeps x_i, λ_i and its copy x_{0,i} across rounds (x_i is never
// reset; it warm-starts the next oracle call). Round r:
//
//	x_i ← Oracle_i(L_i(·, x_{0,i}, λ_i))                      warm-started at x_i
//	λ_i ← λ_i + (x_i − x_{0,i})/η                              with the old x_{0,i}
//	x_{0,i} ← x_i + η λ_i                                      the new λ_i (paper)
//	          [x_{0,i} + η λ_i = x_i + η λ_i^old with order = "matlab"]
//	with probability 1 − p:  x_0 = mean_i x_{0,i};  x_{0,i} ← x_0 for all i
//	with probability p:      every client keeps its x_{0,i}
//
// Oracle I (Alg. 3): K steps x ← x − η₁(∇f_i(x; ξ) + λ_i + (x − x_{0,i})/η)
// on the round's minibatches (GD with the full local batch), stopping early
// once the squared norm of that AL gradient is ≤ ε₁. Oracle II (Alg. 4,
// FedPD-VR): K closed-form steps on the linearized AL,
//
//	x ← (η x + γ x_{0,i} − ηγ(g + λ_i))/(η + γ),   g ← g + ∇f_i(x; ξ) − ∇f_i(x_old; ξ),
//
// with the SARAH/SPIDER estimator g evaluated on the same minibatch ξ at
// both points, set to the full local gradient ∇f_i(x_i) when r mod I = 0
// and carried over from the previous round otherwise.
//
// The skip coin is drawn once per round by the coordinator from a stream
// derived from (seed, run, round), so every client sees the same outcome and
// runs are reproducible; a skipped round is marked core.Round.Local and not
// counted as communication. A communicating round costs d floats up (x_{0,i})
// and d floats down (the average x_0, sent at the start of the next round).
// The evaluated model is the average of the x_{0,i}: x_0 after a
// communicating round, and after a skipped round the average the server
// would form (computed for evaluation only, as the authors' code logs it).
// The initial state is x_i = x_{0,i} = w₀ and λ_i = 0. FedPD needs every
// client in every round (clients_per_round = 0).
type FedPD struct {
	eta, eta1, gamma, skip sched.Schedule
	vr, matlab             bool
	eps1                   float64
	period                 int

	// fixed by Broadcast for the round, read by the clients
	e, e1, gam float64
	fresh      bool // the previous round communicated: clients adopt the broadcast x_0
	refresh    bool // oracle II takes a full local gradient this round

	avg       []float64 // mean of the x_{0,i} after the last round (x_0 if it communicated)
	seed, run uint64
	coin      *rand.PCG
	coinRNG   *rand.Rand
	sends     bool // the current round communicates
}

// pdState is a client's persistent FedPD state.
type pdState struct {
	x, lam, x0 []float64
	g          []float64 // oracle II estimator, carried across rounds
}

// Init stores the initial model and the coin's stream key.
func (a *FedPD) Init(env *core.Env) error {
	s := env.Settings
	if M := env.Problem.Data.Clients(); s.ClientsPerRound > 0 && s.ClientsPerRound < M {
		return fmt.Errorf("fedpd needs every client in every round (clients_per_round = 0), got %d of %d", s.ClientsPerRound, M)
	}
	a.avg = append([]float64(nil), env.W0...)
	a.seed, a.run = s.Seed, s.Run
	a.coin = rand.NewPCG(0, 0)
	a.coinRNG = rand.New(a.coin)
	return nil
}

// Shape: x_0 down, x_{0,i} up.
func (a *FedPD) Shape() (down, up core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1}
}

// Broadcast fixes the round's parameters, draws the skip coin and sends x_0.
func (a *FedPD) Broadcast(rd *core.Round, down *core.Message) {
	a.fresh = a.sends
	a.e = a.eta.At(rd.R)
	a.e1 = a.eta1.At(rd.R)
	if a.e1 == 0 {
		a.e1 = a.e
	}
	a.gam = a.gamma.At(rd.R)
	a.refresh = rd.R%a.period == 0
	a.sends = a.communicates(rd.R)
	rd.Local = !a.sends
	copy(down.Vecs[0], a.avg)
}

// communicates draws round r's coin: true (communicate) with probability
// 1 − p, from a PCG keyed by (seed, run, r) alone, so the outcome is the same
// for every client and every call.
func (a *FedPD) communicates(r int) bool {
	k := splitmix(splitmix(a.seed^0x5fedbd0c0111) ^ a.run)
	a.coin.Seed(k, splitmix(k^uint64(r)^0x636f696e)) // "coin"
	return a.coinRNG.Float64() >= a.skip.At(r)
}

// splitmix is the SplitMix64 finalizer (well-mixed PCG seeds from small keys).
func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// ClientUpdate runs the oracle, the dual step and the x_{0,i} step, and
// uploads x_{0,i}.
func (a *FedPD) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	st, _ := c.State.(*pdState)
	if st == nil {
		st = &pdState{x: append([]float64(nil), down.Vecs[0]...), lam: make([]float64, len(down.Vecs[0])),
			x0: append([]float64(nil), down.Vecs[0]...)}
		c.State = st
	} else if a.fresh {
		copy(st.x0, down.Vecs[0])
	}
	if a.vr {
		a.oracleII(c, st)
	} else {
		a.oracleI(c, st)
	}
	inv := 1 / a.e
	for i, x := range st.x {
		st.lam[i] += inv * (x - st.x0[i])
		if a.matlab {
			st.x0[i] += a.e * st.lam[i]
		} else {
			st.x0[i] = x + a.e*st.lam[i]
		}
	}
	copy(up.Vecs[0], st.x0)
}

// oracleI takes K (stochastic) gradient steps on the local AL.
func (a *FedPD) oracleI(c *core.Client, st *pdState) {
	g := c.Vec(0)
	x, lam, x0 := st.x, st.lam, st.x0
	inv := 1 / a.e
	for range c.Steps {
		c.Gradient(x, g)
		if a.eps1 > 0 {
			n2 := 0.0
			for i, gi := range g {
				v := gi + lam[i] + inv*(x[i]-x0[i])
				n2 += v * v
			}
			if n2 <= a.eps1 {
				return
			}
		}
		for i, gi := range g {
			x[i] -= a.e1 * (gi + lam[i] + inv*(x[i]-x0[i]))
		}
	}
}

// oracleII takes K linearized-AL steps with the SARAH/SPIDER estimator.
func (a *FedPD) oracleII(c *core.Client, st *pdState) {
	if st.g == nil {
		st.g = make([]float64, len(st.x))
		c.GradientOn(nil, st.x, st.g)
	} else if a.refresh {
		c.GradientOn(nil, st.x, st.g)
	}
	cx, c0, cg := 0.0, 1.0, a.e // γ = ∞
	if !math.IsInf(a.gam, 1) {
		s := a.e + a.gam
		cx, c0, cg = a.e/s, a.gam/s, a.e*a.gam/s
	}
	old, hNew, hOld := c.Vec(0), c.Vec(1), c.Vec(2)
	x, g := st.x, st.g
	for range c.Steps {
		copy(old, x)
		for i := range x {
			x[i] = cx*x[i] + c0*st.x0[i] - cg*(g[i]+st.lam[i])
		}
		idx := c.NextBatch()
		c.GradientOn(idx, x, hNew)
		c.GradientOn(idx, old, hOld)
		for i := range g {
			g[i] += hNew[i] - hOld[i]
		}
	}
}

// Aggregate keeps the mean of the x_{0,i}: the new x_0 if the round
// communicated, an evaluation-only average otherwise.
func (a *FedPD) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	copy(a.avg, mean.Vecs[0])
}

// Model is the average of the clients' x_{0,i}.
func (a *FedPD) Model(dst []float64) { copy(dst, a.avg) }

// ClientVectors: x_i, λ_i, the round's start x0 and oracle II's estimator.
func (a *FedPD) ClientVectors() int { return 4 }

// State declares the mean of the x_{0,i} and whether the last round
// communicated (core.Stateful); the round's parameters are set by
// Broadcast and the coin is drawn from (seed, run, round).
func (a *FedPD) State(st *core.State) {
	st.Floats("mean of the clients' x0", a.avg)
	st.Bool("last round communicated", &a.sends)
}

// ClientState declares client c's x_i, λ_i, x_{0,i} and oracle II's
// estimator, absent until its first round (core.ClientStateDeclarer).
func (a *FedPD) ClientState(c *core.Client, st *core.State) {
	s, _ := c.State.(*pdState)
	has := s != nil
	st.Bool("client state", &has)
	if !has || st.Err() != nil {
		return
	}
	if st.Loading() {
		s = &pdState{}
	}
	st.Vector("client x", &s.x)
	st.Vector("client dual", &s.lam)
	st.Vector("client x0", &s.x0)
	st.Vector("client estimator", &s.g)
	if st.Loading() {
		c.State = s
	}
}
