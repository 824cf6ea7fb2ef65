package algorithms

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/topology"
)

// The decentralized algorithms of Liang, Peng & Zhang, "Gradient Tracking
// for High Dimensional Federated Optimization": DFedDA and DFedDA-GT
// (Algorithm 1), DFedMiD (their decentralized FedMiD baseline), ReFedDA-GT
// (Algorithm 2) and Multistep ReFedDA-GT (Algorithm 3). See
// docs/algorithms/dfedda.md for the update equations and the fixes of the
// paper's typos.

// gossipParams are the step sizes and the communication graph of a
// decentralized algorithm.
type gossipParams struct {
	stepSizes
	Topology topology.Topology `param:"topology" kind:"topology" default:"complete" doc:"communication graph: a fedlab.topology.* value or its name (\"chain\", ...); complete = exact averaging"`
}

var defaultGossipParams = gossipParams{stepSizes: defaultStepSizes}

// DFedDAParams are the parameters of the algorithm "dfedda".
type DFedDAParams struct {
	gossipParams
	Output string `param:"output" choices:"last|average" doc:"evaluated node model: the last round-start iterate w^m_{r,0} (the authors' code) or the time average of the round-start iterates (the theorems' ŵ^m)"`
}

// DFedDAGTParams are the parameters of the algorithm "dfedda_gt".
type DFedDAGTParams struct{ DFedDAParams }

var defaultDFedDAParams = DFedDAParams{gossipParams: defaultGossipParams, Output: "last"}

func init() {
	registry.Define(registry.Algorithm, "dfedda",
		"DFedDA (Liang et al. Alg. 1 without tracking): decentralized dual averaging, nodes gossip their dual states",
		defaultDFedDAParams, func(p DFedDAParams) (core.Algorithm, error) { return newDFedDA(p, false), nil })
	registry.Define(registry.Algorithm, "dfedda_gt",
		"DFedDA-GT (Liang et al. Alg. 1): decentralized dual averaging with gradient tracking; trackers are gossiped with the dual states",
		DFedDAGTParams{defaultDFedDAParams}, func(p DFedDAGTParams) (core.Algorithm, error) { return newDFedDA(p.DFedDAParams, true), nil })
}

// newDFedDA builds DFedDA, with gradient tracking if tracking is set.
func newDFedDA(p DFedDAParams, tracking bool) *DFedDA {
	return &DFedDA{rates: p.rates(), gossipNet: gossipNet{top: p.Topology}, Tracking: tracking, Average: p.Output == "average"}
}

// gossipNet is what the decentralized algorithms share: the gossip matrix
// over the M nodes (the clients, all of which take part in every round)
// and the communication count of its directed edges.
type gossipNet struct {
	top    topology.Topology
	u      *topology.Matrix
	dim    int
	extra  int64 // floats of an exchange outside the gossip messages (tracker set-up, restarts) …
	extraR int   // … counted with this round
}

// init builds the gossip matrix for the problem's clients. Decentralized
// algorithms minimize (1/M) Σ_m f_m with every node active in every round.
func (n *gossipNet) init(env *core.Env) error {
	p := env.Problem
	M := p.Data.Clients()
	if c := env.Settings.ClientsPerRound; c != 0 && c < M {
		return fmt.Errorf("decentralized: every node takes part in every round; set clients_per_round = 0 (got %d of %d)", c, M)
	}
	for _, w := range p.ClientWeights() {
		if w != 1/float64(M) {
			return fmt.Errorf("decentralized: the nodes minimize (1/M) Σ f_m; weighted = true with unequal client sizes is not supported")
		}
	}
	u, err := n.top.Gossip(M)
	if err != nil {
		return fmt.Errorf("topology %s: %w", n.top, err)
	}
	n.u, n.dim = u, p.Dim()
	n.extra, n.extraR = 0, env.Settings.RoundOffset
	return nil
}

// charge counts floats exchanged outside the gossip messages with round r
// (the tracker set-up with the first round, a restart with the round whose
// Aggregate makes it).
func (n *gossipNet) charge(r int, floats int64) {
	if n.extraR != r {
		n.extra, n.extraR = 0, r
	}
	n.extra += floats
}

// sent returns the floats round r's messages of the given shape cost on
// the graph's directed edges, plus the extra exchanges charged to round r.
// It does not change the state: asking twice gives the same count.
func (n *gossipNet) sent(r int, s core.MessageShape) int64 {
	f := int64(2*n.u.Edges()) * s.Floats(n.dim)
	if n.extraR == r {
		f += n.extra
	}
	return f
}

// nodeVectors allocates M model-sized vectors.
func nodeVectors(M, dim int) [][]float64 {
	v := make([][]float64, M)
	for i := range v {
		v[i] = make([]float64, dim)
	}
	return v
}

// DFedDA is Decentralized Federated Dual Averaging; with Tracking it is
// DFedDA-GT (Algorithm 1 of Liang, Peng & Zhang). Node m keeps the dual
// state z^m (post-gossip, at the start of a round), the elapsed step size
// ẽ^m and, with tracking, the tracker c^m. Local step k:
//
//	w = ∇(h + ẽψ)*(z),  g = ∇F(w; ξ) + c^m,  z ← z − η_c g,  ẽ ← ẽ + η_c,
//
// with c^m fixed within the round. After K steps node m sends
// z^m + η_s(z^m_K − z^m) and ẽ^m + η_s η_c K to its neighbours and, with
// tracking, Δ^m = (z^m_K − z^m)/(Kη_c) = −(1/K)Σ_k g_k; then
//
//	z^m ← Σ_j u_mj (z^j + η_s(z^j_K − z^j)),   c^m ← c^m + Δ^m − Σ_j u_mj Δ^j.
//
// The trackers start at c^m_0 = −∇F(w_0; ξ^m_0) + Σ_j u_mj ∇F(w_0; ξ^j_0)
// (one minibatch per node from a stream of its own, and one exchange
// counted with round 0), so Σ_m c^m = 0 in every round. With U = J_M and no
// tracking this is FedDualAvg with full participation. ψ = 0 (reg = none)
// is the paper's algorithm; another ψ enters through the composite map, as
// in FedDualAvg.
type DFedDA struct {
	rates
	gossipNet
	Tracking bool
	Average  bool // evaluate the time average of the round-start iterates

	z, track, mixed [][]float64
	msgs            [][]float64 // the replies' vectors, by node
	elapsed, scal   []float64
	sum             [][]float64 // Σ_r w^m_{r,0} (Average)
	rounds          int
	psi             core.Psi
	mirror          core.Mirror
	scratch         []float64
}

// Init sets z^m = ∇h(w_0), ẽ^m = 0 and the trackers.
func (a *DFedDA) Init(env *core.Env) error {
	if err := a.gossipNet.init(env); err != nil {
		return err
	}
	p := env.Problem
	M, d := p.Data.Clients(), p.Dim()
	a.mirror = p.Mirror
	a.psi = p.Penalty.At(env.Settings.RoundOffset, p.Layout)
	a.z, a.mixed, a.track = nodeVectors(M, d), nodeVectors(M, d), nodeVectors(M, d)
	a.elapsed, a.scal = make([]float64, M), make([]float64, M)
	a.scratch = make([]float64, d)
	for m := range a.z {
		a.mirror.Grad(a.z[m], env.W0)
	}
	if a.Average {
		a.sum = nodeVectors(M, d)
	}
	if a.Tracking {
		initGossipTrackers(env, a.u, a.track, a.mixed)
		a.charge(env.Settings.RoundOffset, int64(2*a.u.Edges())*int64(d))
	}
	return nil
}

// initGossipTrackers sets c^m = −g^m + Σ_j u_mj g^j with g^m the gradient at w_0
// on one minibatch of node m, drawn from the node's stream for round −1
// (independent of the rounds' streams). Those samples are not counted in
// the samples metric. scratch holds M vectors.
func initGossipTrackers(env *core.Env, u *topology.Matrix, track, scratch [][]float64) {
	p, s := env.Problem, env.Settings
	for m := range track {
		c := core.NewClient(p, m, s)
		c.StartRound(s.Seed, s.Run, -1)
		c.Gradient(env.W0, track[m])
	}
	u.Mix(scratch, track)
	for m, c := range track {
		for i := range c {
			c[i] = scratch[m][i] - c[i]
		}
	}
}

// Shape: nodes send the mixed dual message and ẽ (and Δ with tracking).
// Nothing is broadcast; each node reads its own state.
func (a *DFedDA) Shape() (down, up core.MessageShape) {
	up = core.MessageShape{Vecs: 1, Scalars: 1}
	if a.Tracking {
		up.Vecs = 2
	}
	return core.MessageShape{}, up
}

// Broadcast fixes the round's step sizes.
func (a *DFedDA) Broadcast(rd *core.Round, _ *core.Message) { a.at(rd.R) }

// ClientUpdate runs node c.ID's K local dual-averaging steps.
func (a *DFedDA) ClientUpdate(rd *core.Round, c *core.Client, _, up *core.Message) {
	if prox, ok := lazyProx(rd, c); ok {
		a.lazyClientUpdate(rd, c, prox, up) // O(nnz) steps on sparse data (lazy.go)
		return
	}
	m := c.ID
	z, w, g, acc := c.Vec(0), c.Vec(1), c.Vec(2), c.Vec(3)
	z0 := a.z[m]
	copy(z, z0)
	clear(acc)
	eta := a.elapsed[m]
	for range c.Steps {
		rd.Mirror.Composite(w, z, eta, rd.Psi)
		c.Gradient(w, g)
		if a.Tracking {
			floats.AddScaled(g, 1, a.track[m])
			floats.AddScaled(acc, 1, g)
		}
		floats.AddScaled(z, -a.c, g)
		eta += a.c
	}
	msg := up.Vecs[0]
	for i, v := range z {
		msg[i] = z0[i] + a.s*(v-z0[i])
	}
	up.Scalars[0] = a.elapsed[m] + a.s*a.c*float64(c.Steps)
	if a.Tracking {
		delta := up.Vecs[1]
		for i, v := range acc {
			delta[i] = -v / float64(c.Steps)
		}
	}
}

// Aggregate simulates the gossip: dual states and elapsed steps are mixed
// with U, and the trackers take their neighbours' Δ.
func (a *DFedDA) Aggregate(rd *core.Round, _ *core.Message, ups []*core.Message) {
	if a.Average {
		for m := range a.z {
			a.mirror.Composite(a.scratch, a.z[m], a.elapsed[m], a.psi)
			floats.AddScaled(a.sum[m], 1, a.scratch)
		}
		a.rounds++
	}
	msgs := a.msgs[:0]
	for m, up := range ups {
		msgs = append(msgs, up.Vecs[0])
		a.scal[m] = up.Scalars[0]
	}
	a.msgs = msgs
	a.u.Mix(a.z, msgs)
	a.u.MixScalars(a.elapsed, a.scal)
	if a.Tracking {
		for m, up := range ups {
			msgs[m] = up.Vecs[1]
		}
		a.u.Mix(a.mixed, msgs)
		for m, c := range a.track {
			for i := range c {
				c[i] += msgs[m][i] - a.mixed[m][i]
			}
		}
	}
	a.psi = rd.Psi
}

// EdgeFloats counts the round's messages on the graph's directed edges.
func (a *DFedDA) EdgeFloats(rd *core.Round) int64 {
	_, up := a.Shape()
	return a.sent(rd.R, up)
}

// Nodes is the number of nodes.
func (a *DFedDA) Nodes() int { return len(a.z) }

// NodeModel is node m's primal ∇(h + ẽψ)*(z^m), or its time average.
func (a *DFedDA) NodeModel(m int, dst []float64) {
	if a.Average && a.rounds > 0 {
		for i, v := range a.sum[m] {
			dst[i] = v / float64(a.rounds)
		}
		return
	}
	a.mirror.Composite(dst, a.z[m], a.elapsed[m], a.psi)
}

// Model is the average of the node models.
func (a *DFedDA) Model(dst []float64) { meanOfNodes(a, dst, a.scratch) }

// meanOfNodes writes the mean of n's node models into dst.
func meanOfNodes(n core.Nodes, dst, scratch []float64) {
	clear(dst)
	M := n.Nodes()
	for m := range M {
		n.NodeModel(m, scratch)
		floats.AddScaled(dst, 1/float64(M), scratch)
	}
}

// ClientVectors: each node's z, tracker, mixed state, message and running sum.
func (a *DFedDA) ClientVectors() int { return 5 }

// state declares the communication charged outside the gossip messages.
func (n *gossipNet) state(st *core.State) {
	st.Count64("extra floats", &n.extra)
	st.Count("extra floats round", &n.extraR)
}

// nodesState declares one vector per node.
func nodesState(st *core.State, name string, v [][]float64) {
	for _, x := range v {
		st.Floats(name, x)
	}
}

// State declares the nodes' dual states, elapsed step sizes, trackers,
// the time average's sums, the λ of the last aggregated round's ψ and the
// extra communication (core.Stateful).
func (a *DFedDA) State(st *core.State) {
	a.gossipNet.state(st)
	nodesState(st, "node dual state", a.z)
	st.Floats("node elapsed step sizes", a.elapsed)
	nodesState(st, "node tracker", a.track)
	nodesState(st, "node iterate sum", a.sum)
	st.Count("rounds", &a.rounds)
	st.Float("penalty weight", &a.psi.Lambda)
}
