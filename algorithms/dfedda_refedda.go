package algorithms

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// ReFedDAGTParams are the parameters of the algorithm "refedda_gt".
type ReFedDAGTParams struct {
	gossipParams
	Q           float64 `param:"Q,required" min:"0" doc:"initial squared radius Q_0 of the ball ‖w − centre‖_q ≤ √Q (the theory needs ‖w_0 − w*‖₁² ≤ Q_0); +Inf: no ball"`
	StageRounds int     `param:"stage_rounds" min:"0" doc:"rounds R_n per stage; after each, the centre becomes the stage's sparse output, Q halves and the duals and trackers restart at 0 (0 = a single stage)"`
	Sparsity    int     `param:"sparsity" min:"0" doc:"s of Sparse(·; s): a stage's output keeps its s largest regularized weights (0 = keep all)"`
	Restart     string  `param:"restart" choices:"last|average" doc:"a stage's output before Sparse: node average of the last iterates (the authors' code) or of the time-averaged round-start iterates (Alg. 2's w̄)"`
}

// MReFedDAGTParams are the parameters of the algorithm "mrefedda_gt".
type MReFedDAGTParams struct{ ReFedDAGTParams }

func init() {
	build := func(p ReFedDAGTParams) (core.Algorithm, error) {
		return &ReFedDA{rates: p.rates(), gossipNet: gossipNet{top: p.Topology}, Q0: p.Q, StageRounds: p.StageRounds,
			Sparsity: p.Sparsity, RestartAverage: p.Restart == "average"}, nil
	}
	registry.Define(registry.Algorithm, "refedda_gt",
		"ReFedDA-GT (Liang et al. Alg. 2): restricted dual averaging in a q-norm ball around a centre, with gradient tracking, over a topology",
		ReFedDAGTParams{gossipParams: defaultGossipParams, Restart: "last"}, build)
	registry.Define(registry.Algorithm, "mrefedda_gt",
		"Multistep ReFedDA-GT (Liang et al. Alg. 3): ReFedDA-GT stages, each recentred at the previous sparse output with Q halved",
		MReFedDAGTParams{ReFedDAGTParams{gossipParams: defaultGossipParams, StageRounds: 2000, Restart: "last"}},
		func(p MReFedDAGTParams) (core.Algorithm, error) { return build(p.ReFedDAGTParams) })
}

// ReFedDA is Restricted FedDA with gradient tracking (Algorithm 2 of
// Liang, Peng & Zhang) over a gossip topology; with StageRounds > 0 it is
// Multistep ReFedDA-GT (Algorithm 3). In a stage with centre w_c and
// radius √Q, node m's dual z^m starts at 0 and its primal is the
// restricted prox w = w_c + min(1, (p−1)√Q/‖z‖_p)·∇h*(z) (the paper's
// Prox_h(w_c, −z; Q, ‖·‖_q) — Algorithm 2 prints the argument z, a sign
// typo). Local steps are those of DFedDA-GT with this primal map:
// g = ∇F(w; ξ) + c^m, z ← z − η_c g, and the round ends with the same
// gossip of z^m + η_s(z^m_K − z^m) and tracker update with
// Δ^m = (z^m_K − z^m)/(Kη_c). With U = J_M this is Algorithm 2 with full
// participation and eq. (4) read with Δ_r = mean_m (z^m_K − z_r)/(Kη_c)
// (the printed Δ_r = mean(c^m_{r+1} − c^m_r) is a typo; see
// docs/algorithms/dfedda.md): the trackers equal the paper's c − c^m. They
// start at 0 in every stage (Algorithm 3 passes c_0 = 0).
//
// After StageRounds rounds the stage's output — the node average of the
// last iterates, or of the time-averaged round-start iterates — is
// sparsified to its Sparsity largest regularized weights and becomes the
// next centre; Q halves, and z and the trackers restart at 0. On a graph
// the node average is a global operation (the authors' code takes it too);
// it is counted as an all-reduce, 2·M·d floats. The problem must be
// unregularized (ψ = 0): sparsity comes from Sparse, not from ψ.
type ReFedDA struct {
	rates
	gossipNet
	Q0             float64
	StageRounds    int
	Sparsity       int
	RestartAverage bool

	ball            core.RestrictedMirror
	layout          core.Layout
	offset          int
	centre          []float64
	radius          float64
	z, track, mixed [][]float64
	msgs            [][]float64
	sum             [][]float64 // Σ of the stage's round-start iterates, per node (RestartAverage)
	stageLen        int
	scratch         []float64
	order           []int
}

// Init centres the first stage at w_0 with Q = Q_0.
func (a *ReFedDA) Init(env *core.Env) error {
	if err := a.gossipNet.init(env); err != nil {
		return err
	}
	p := env.Problem
	if p.Penalty.Name != "none" {
		return fmt.Errorf("ReFedDA-GT solves unregularized problems (reg = none); its sparsity comes from Sparse(·; s), got reg %q", p.Penalty.Name)
	}
	ball, ok := p.Mirror.(core.RestrictedMirror)
	if !ok {
		return fmt.Errorf("ReFedDA-GT needs a mirror map with a closed-form restricted prox (pnorm or euclidean), got %T", p.Mirror)
	}
	a.ball = ball
	M, d := p.Data.Clients(), p.Dim()
	a.layout, a.offset = p.Layout, env.Settings.RoundOffset
	a.centre = append([]float64(nil), env.W0...)
	a.radius = math.Sqrt(a.Q0)
	a.z, a.track, a.mixed = nodeVectors(M, d), nodeVectors(M, d), nodeVectors(M, d)
	if a.RestartAverage {
		a.sum = nodeVectors(M, d)
	}
	a.scratch = make([]float64, d)
	return nil
}

// Shape: nodes send the mixed dual message and Δ.
func (a *ReFedDA) Shape() (down, up core.MessageShape) {
	return core.MessageShape{}, core.MessageShape{Vecs: 2}
}

// Broadcast fixes the round's step sizes.
func (a *ReFedDA) Broadcast(rd *core.Round, _ *core.Message) { a.at(rd.R) }

// ClientUpdate runs node c.ID's K local steps in the stage's ball.
func (a *ReFedDA) ClientUpdate(_ *core.Round, c *core.Client, _, up *core.Message) {
	m := c.ID
	z, w, g, acc := c.Vec(0), c.Vec(1), c.Vec(2), c.Vec(3)
	z0 := a.z[m]
	copy(z, z0)
	clear(acc)
	for range c.Steps {
		a.ball.Ball(w, a.centre, z, a.radius)
		c.Gradient(w, g)
		floats.AddScaled(g, 1, a.track[m])
		floats.AddScaled(acc, 1, g)
		floats.AddScaled(z, -a.c, g)
	}
	msg, delta := up.Vecs[0], up.Vecs[1]
	for i, v := range z {
		msg[i] = z0[i] + a.s*(v-z0[i])
		delta[i] = -acc[i] / float64(c.Steps)
	}
}

// Aggregate gossips the duals and trackers and, at the end of a stage,
// recentres.
func (a *ReFedDA) Aggregate(rd *core.Round, _ *core.Message, ups []*core.Message) {
	if a.RestartAverage {
		for m := range a.z {
			a.ball.Ball(a.scratch, a.centre, a.z[m], a.radius)
			floats.AddScaled(a.sum[m], 1, a.scratch)
		}
	}
	a.stageLen++
	a.msgs = a.msgs[:0]
	for _, up := range ups {
		a.msgs = append(a.msgs, up.Vecs[0])
	}
	a.u.Mix(a.z, a.msgs)
	for m, up := range ups {
		a.msgs[m] = up.Vecs[1]
	}
	a.u.Mix(a.mixed, a.msgs)
	for m, c := range a.track {
		for i := range c {
			c[i] += a.msgs[m][i] - a.mixed[m][i]
		}
	}
	if a.StageRounds > 0 && (rd.R-a.offset+1)%a.StageRounds == 0 {
		a.restart(rd.R)
	}
}

// restart makes the stage's sparse output the next centre, halves Q and
// resets the duals, trackers and averages.
func (a *ReFedDA) restart(r int) {
	out := a.mixed[0] // free scratch until the next Aggregate
	clear(out)
	M := len(a.z)
	for m := range M {
		if a.RestartAverage {
			floats.AddScaled(out, 1/(float64(M)*float64(a.stageLen)), a.sum[m])
			clear(a.sum[m])
		} else {
			a.NodeModel(m, a.scratch)
			floats.AddScaled(out, 1/float64(M), a.scratch)
		}
	}
	a.sparsify(out)
	copy(a.centre, out)
	// the node average is global: count it as an all-reduce in which every
	// node sends its model and receives the centre
	a.charge(r, int64(2*M*len(out)))
	a.radius /= math.Sqrt2
	for m := range M {
		clear(a.z[m])
		clear(a.track[m])
	}
	a.stageLen = 0
}

// sparsify keeps the Sparsity largest regularized weights of w (ties go to
// the lower index) and zeroes the other regularized weights.
func (a *ReFedDA) sparsify(w []float64) {
	a.order = a.order[:0]
	for _, b := range a.layout.Regularized() {
		for i := b.Offset; i < b.Offset+b.Size(); i++ {
			a.order = append(a.order, i)
		}
	}
	if a.Sparsity == 0 || a.Sparsity >= len(a.order) {
		return
	}
	slices.SortStableFunc(a.order, func(i, j int) int {
		switch x, y := math.Abs(w[i]), math.Abs(w[j]); {
		case x > y:
			return -1
		case x < y:
			return 1
		}
		return 0
	})
	for _, i := range a.order[a.Sparsity:] {
		w[i] = 0
	}
}

// EdgeFloats counts the round's messages on the graph's directed edges.
func (a *ReFedDA) EdgeFloats(rd *core.Round) int64 {
	_, up := a.Shape()
	return a.sent(rd.R, up)
}

// Nodes is the number of nodes.
func (a *ReFedDA) Nodes() int { return len(a.z) }

// NodeModel is node m's iterate w_c + min(1, (p−1)√Q/‖z^m‖_p)·∇h*(z^m).
func (a *ReFedDA) NodeModel(m int, dst []float64) { a.ball.Ball(dst, a.centre, a.z[m], a.radius) }

// Model is the average of the node models.
func (a *ReFedDA) Model(dst []float64) { meanOfNodes(a, dst, a.scratch) }

// ClientVectors: each node's z, tracker, mixed state, message and running sum.
func (a *ReFedDA) ClientVectors() int { return 5 }

// State declares the ball's centre and radius, the nodes' dual states,
// trackers and stage sums, the stage length and the extra communication
// (core.Stateful).
func (a *ReFedDA) State(st *core.State) {
	a.gossipNet.state(st)
	st.Floats("ball centre", a.centre)
	st.Float("ball radius", &a.radius)
	nodesState(st, "node dual state", a.z)
	nodesState(st, "node tracker", a.track)
	nodesState(st, "node stage sum", a.sum)
	st.Count("stage rounds", &a.stageLen)
}
