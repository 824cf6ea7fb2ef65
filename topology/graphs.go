package topology

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/fedlab/fedlab/registry"
)

// ErdosRenyiParams are the parameters of the topology "erdos_renyi".
type ErdosRenyiParams struct {
	P    float64 `param:"p" min:"0" max:"1" doc:"probability of each edge (connectivity needs p ≳ ln M / M)"`
	Seed int     `param:"seed" min:"0" doc:"random seed of the graph"`
}

// MatrixParams are the parameters of the topology "matrix": the
// user-given gossip matrix.
type MatrixParams struct {
	Weights []float64 `param:"weights,required" doc:"the M×M matrix U row by row (M² numbers); u_ij is the weight node i gives to node j"`
}

// CompleteParams are the parameters of the topology "complete" (there are
// none).
type CompleteParams struct{}

// ChainParams are the parameters of the topology "chain" (there are none).
type ChainParams struct{}

// RingParams are the parameters of the topology "ring" (there are none).
type RingParams struct{}

// StarParams are the parameters of the topology "star" (there are none).
type StarParams struct{}

// fixed registers the parameterless topology t with the params type P.
func fixed[P any](name, doc string, t Topology) {
	var none P
	registry.Define(registry.Topology, name, doc, none, func(P) (Topology, error) { return t, nil })
}

func init() {
	fixed[CompleteParams]("complete", "fully connected graph, U = J_M = 11ᵀ/M (one gossip step is exact averaging; σ₂ = 0)", CompleteGraph{})
	fixed[ChainParams]("chain", "path 1–2–…–M with the paper's weights: 1/3 to self and to each neighbour, 2/3 self-weight at the two ends", ChainGraph{})
	fixed[RingParams]("ring", "cycle 1–2–…–M–1 with weight 1/3 to self and to each neighbour", RingGraph{})
	fixed[StarParams]("star", "node 1 linked to every other node, Metropolis–Hastings weights", StarGraph{})
	registry.Define(registry.Topology, "grid", "2-D rows×cols grid (or torus), Metropolis–Hastings weights; nodes numbered row by row",
		GridGraph{}, func(g GridGraph) (Topology, error) { return g, nil })
	registry.Define(registry.Topology, "erdos_renyi", "Erdős–Rényi graph G(M, p) with Metropolis–Hastings weights, redrawn until connected",
		ErdosRenyiParams{P: 0.2, Seed: 1}, func(p ErdosRenyiParams) (Topology, error) {
			return ErdosRenyiGraph{P: p.P, Seed: uint64(p.Seed)}, nil
		})
	registry.Define(registry.Topology, "matrix", "a user-given gossip matrix, checked to be symmetric, non-negative, doubly stochastic and connected",
		MatrixParams{}, func(p MatrixParams) (Topology, error) { return NewMatrixTopology(p.Weights) })
}

// CompleteGraph is the fully connected graph, U = J_M.
type CompleteGraph struct{}

// Gossip returns J_M.
func (CompleteGraph) Gossip(M int) (*Matrix, error) { return complete(M) }

func (CompleteGraph) String() string { return "complete" }

// ChainGraph is the path graph with the weights of the paper's experiments
// (and its code's chain_gossip): u_ii = u_{i,i±1} = 1/3, u_11 = u_MM = 2/3.
// Its eigenvalues are 1/3 + (2/3)cos(πk/M), k = 0, …, M−1.
type ChainGraph struct{}

// Gossip returns the chain's matrix for M nodes.
func (ChainGraph) Gossip(M int) (*Matrix, error) {
	if M < 1 {
		return nil, fmt.Errorf("chain needs at least one node, got %d", M)
	}
	if M == 1 {
		return complete(1)
	}
	rows := make([][]entry, M)
	for i := range M {
		self := 1.0 / 3
		if i == 0 || i == M-1 {
			self = 2.0 / 3
		}
		rows[i] = append(rows[i], entry{i, self})
		for _, j := range []int{i - 1, i + 1} {
			if j >= 0 && j < M {
				rows[i] = append(rows[i], entry{j, 1.0 / 3})
			}
		}
	}
	return newMatrix(rows)
}

func (ChainGraph) String() string { return "chain" }

// RingGraph is the cycle with weight 1/3 to self and to each neighbour
// (the paper code's "circle"); for M = 2 the two neighbours coincide.
type RingGraph struct{}

// Gossip returns the ring's matrix for M nodes.
func (RingGraph) Gossip(M int) (*Matrix, error) {
	if M < 1 {
		return nil, fmt.Errorf("ring needs at least one node, got %d", M)
	}
	if M == 1 {
		return complete(1)
	}
	rows := make([][]entry, M)
	for i := range M {
		rows[i] = []entry{{i, 1.0 / 3}, {(i + M - 1) % M, 1.0 / 3}, {(i + 1) % M, 1.0 / 3}}
	}
	return newMatrix(rows)
}

func (RingGraph) String() string { return "ring" }

// StarGraph links node 0 to every other node, with Metropolis–Hastings
// weights: 1/M on each edge.
type StarGraph struct{}

// Gossip returns the star's matrix for M nodes.
func (StarGraph) Gossip(M int) (*Matrix, error) {
	if M < 1 {
		return nil, fmt.Errorf("star needs at least one node, got %d", M)
	}
	adj := make([][]int, M)
	for j := 1; j < M; j++ {
		adj[0] = append(adj[0], j)
	}
	return Metropolis(adj)
}

func (StarGraph) String() string { return "star" }

// GridGraph is the Rows×Cols grid (a torus if Torus) with
// Metropolis–Hastings weights; node r·Cols + c sits at row r, column c.
type GridGraph struct {
	Rows  int  `param:"rows" min:"0" doc:"grid rows (0: the largest divisor of M not above √M); rows·cols must equal M"`
	Cols  int  `param:"cols" min:"0" doc:"grid columns (0: M / rows)"`
	Torus bool `param:"torus" doc:"wrap the rows and the columns around (a torus)"`
}

// Gossip returns the grid's matrix for M nodes.
func (g GridGraph) Gossip(M int) (*Matrix, error) {
	rows, cols := g.Rows, g.Cols
	switch {
	case M < 1:
		return nil, fmt.Errorf("grid needs at least one node, got %d", M)
	case rows == 0 && cols == 0:
		for r := 1; r*r <= M; r++ {
			if M%r == 0 {
				rows = r
			}
		}
		cols = M / rows
	case rows == 0 && M%cols == 0:
		rows = M / cols
	case cols == 0 && M%rows == 0:
		cols = M / rows
	}
	if rows*cols != M {
		return nil, fmt.Errorf("grid: rows·cols = %d·%d does not equal the %d nodes", g.Rows, g.Cols, M)
	}
	adj := make([][]int, M)
	link := func(r1, c1, r2, c2 int) {
		if g.Torus {
			r2, c2 = (r2+rows)%rows, (c2+cols)%cols
		}
		if r2 >= 0 && r2 < rows && c2 >= 0 && c2 < cols {
			adj[r1*cols+c1] = append(adj[r1*cols+c1], r2*cols+c2)
		}
	}
	for r := range rows {
		for c := range cols {
			link(r, c, r+1, c)
			link(r, c, r, c+1)
		}
	}
	return Metropolis(adj)
}

func (g GridGraph) String() string {
	return fmt.Sprintf("grid{rows=%d, cols=%d, torus=%v}", g.Rows, g.Cols, g.Torus)
}

// ErdosRenyiGraph is G(M, P) with Metropolis–Hastings weights. The graph
// is drawn from a stream seeded by (Seed, M) and redrawn, up to 100 times,
// until it is connected.
type ErdosRenyiGraph struct {
	P    float64
	Seed uint64
}

// Gossip draws the graph for M nodes.
func (g ErdosRenyiGraph) Gossip(M int) (*Matrix, error) {
	if M < 1 {
		return nil, fmt.Errorf("erdos_renyi needs at least one node, got %d", M)
	}
	rng := rand.New(rand.NewPCG(g.Seed, uint64(M)))
	for range 100 {
		adj := make([][]int, M)
		for i := range M {
			for j := i + 1; j < M; j++ {
				if rng.Float64() < g.P {
					adj[i] = append(adj[i], j)
				}
			}
		}
		if connected(adj) {
			return Metropolis(adj)
		}
	}
	return nil, fmt.Errorf("erdos_renyi: G(%d, %g) was disconnected in 100 draws; raise p (connectivity needs p ≳ ln M / M = %.3g)",
		M, g.P, math.Log(float64(M))/float64(M))
}

func (g ErdosRenyiGraph) String() string {
	return fmt.Sprintf("erdos_renyi{p=%g, seed=%d}", g.P, g.Seed)
}

// connected reports whether the undirected graph with these (one-sided)
// adjacency lists is connected.
func connected(adj [][]int) bool {
	M := len(adj)
	both := make([][]int, M)
	for i, a := range adj {
		for _, j := range a {
			both[i] = append(both[i], j)
			both[j] = append(both[j], i)
		}
	}
	seen := make([]bool, M)
	seen[0] = true
	stack, n := []int{0}, 1
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, j := range both[i] {
			if !seen[j] {
				seen[j] = true
				n++
				stack = append(stack, j)
			}
		}
	}
	return n == M
}

// MatrixTopology is a user-given gossip matrix, validated when it is made.
type MatrixTopology struct {
	u    *Matrix
	hash string // identifies the weights in String
}

// NewMatrixTopology validates the M×M matrix given row by row.
func NewMatrixTopology(weights []float64) (MatrixTopology, error) {
	M := int(math.Round(math.Sqrt(float64(len(weights)))))
	if M*M != len(weights) || M == 0 {
		return MatrixTopology{}, fmt.Errorf("gossip matrix: %d weights are not M² for an integer M ≥ 1", len(weights))
	}
	u, err := FromDense(M, weights)
	if err != nil {
		return MatrixTopology{}, err
	}
	h := sha256.New()
	for _, w := range weights {
		_ = binary.Write(h, binary.LittleEndian, w)
	}
	return MatrixTopology{u: u, hash: hex.EncodeToString(h.Sum(nil))[:16]}, nil
}

// Gossip returns the matrix if it has M nodes.
func (t MatrixTopology) Gossip(M int) (*Matrix, error) {
	if t.u.M != M {
		return nil, fmt.Errorf("the gossip matrix has %d nodes but there are %d clients", t.u.M, M)
	}
	return t.u, nil
}

func (t MatrixTopology) String() string { return fmt.Sprintf("matrix{M=%d, sha256=%s}", t.u.M, t.hash) }

// Nodes is the number of nodes of the matrix.
func (t MatrixTopology) Nodes() int { return t.u.M }
