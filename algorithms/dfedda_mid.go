package algorithms

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// DFedMiDParams are the parameters of the algorithm "dfedmid".
type DFedMiDParams struct{ gossipParams }

func init() {
	registry.Define(registry.Algorithm, "dfedmid",
		"DFedMiD (Liang et al.'s baseline): decentralized FedMiD, nodes gossip their mirror-prox updates",
		DFedMiDParams{defaultGossipParams}, func(p DFedMiDParams) (core.Algorithm, error) {
			return &DFedMiD{rates: p.rates(), gossipNet: gossipNet{top: p.Topology}}, nil
		})
}

// DFedMiD is decentralized Federated Mirror Descent, the baseline of Liang,
// Peng & Zhang (their code's FedMiD). Node m keeps a primal model w^m and
// takes K mirror-prox steps w ← ∇(h + η_c ψ)*(∇h(w) − η_c ∇F(w; ξ)); it
// then sends y^m = ∇h(w^m) + η_s(∇h(w^m_K) − ∇h(w^m)) and e^m = η_s η_c K,
// and sets
//
//	w^m ← ∇(h + ē^m ψ)*(Σ_j u_mj y^j),   ē^m = Σ_j u_mj e^j.
//
// With the Euclidean map this is the authors' code (soft-thresholding at
// λη_c locally and at λη_cKη_s after gossip); with U = J_M it is FedMiD
// with full participation.
type DFedMiD struct {
	rates
	gossipNet
	w, mixed, msgs [][]float64
	scal, thresh   []float64
	scratch        []float64
}

// Init gives every node w_0.
func (a *DFedMiD) Init(env *core.Env) error {
	if err := a.gossipNet.init(env); err != nil {
		return err
	}
	M, d := env.Problem.Data.Clients(), env.Problem.Dim()
	a.w, a.mixed = nodeVectors(M, d), nodeVectors(M, d)
	for _, w := range a.w {
		copy(w, env.W0)
	}
	a.scal, a.thresh = make([]float64, M), make([]float64, M)
	a.scratch = make([]float64, d)
	return nil
}

// Shape: nodes send the dual-space message and the prox weight.
func (a *DFedMiD) Shape() (down, up core.MessageShape) {
	return core.MessageShape{}, core.MessageShape{Vecs: 1, Scalars: 1}
}

// Broadcast fixes the round's step sizes.
func (a *DFedMiD) Broadcast(rd *core.Round, _ *core.Message) { a.at(rd.R) }

// ClientUpdate runs node c.ID's K mirror-prox steps.
func (a *DFedMiD) ClientUpdate(rd *core.Round, c *core.Client, _, up *core.Message) {
	w, g, y := c.Vec(0), c.Vec(1), c.Vec(2)
	w0 := a.w[c.ID]
	copy(w, w0)
	h := rd.Mirror
	for range c.Steps {
		c.Gradient(w, g)
		h.Grad(y, w)
		floats.AddScaled(y, -a.c, g)
		h.Composite(w, y, a.c, rd.Psi)
	}
	h.Grad(y, w)
	h.Grad(g, w0)
	msg := up.Vecs[0]
	for i, v := range y {
		msg[i] = g[i] + a.s*(v-g[i])
	}
	up.Scalars[0] = a.s * a.c * float64(c.Steps)
}

// Aggregate mixes the messages and applies each node's mirror-prox step.
func (a *DFedMiD) Aggregate(rd *core.Round, _ *core.Message, ups []*core.Message) {
	a.msgs = a.msgs[:0]
	for m, up := range ups {
		a.msgs = append(a.msgs, up.Vecs[0])
		a.scal[m] = up.Scalars[0]
	}
	a.u.Mix(a.mixed, a.msgs)
	a.u.MixScalars(a.thresh, a.scal)
	for m, w := range a.w {
		rd.Mirror.Composite(w, a.mixed[m], a.thresh[m], rd.Psi)
	}
}

// EdgeFloats counts the round's messages on the graph's directed edges.
func (a *DFedMiD) EdgeFloats(rd *core.Round) int64 {
	_, up := a.Shape()
	return a.sent(rd.R, up)
}

// Nodes is the number of nodes.
func (a *DFedMiD) Nodes() int { return len(a.w) }

// NodeModel is node m's model.
func (a *DFedMiD) NodeModel(m int, dst []float64) { copy(dst, a.w[m]) }

// Model is the average of the node models.
func (a *DFedMiD) Model(dst []float64) { meanOfNodes(a, dst, a.scratch) }

// ClientVectors: each node's model, mixed state and message.
func (a *DFedMiD) ClientVectors() int { return 3 }

// State declares the nodes' models and the extra communication (core.Stateful).
func (a *DFedMiD) State(st *core.State) {
	a.gossipNet.state(st)
	nodesState(st, "node model", a.w)
}
