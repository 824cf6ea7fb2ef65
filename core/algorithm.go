package core

// Algorithm is a federated algorithm split the way the protocol runs (as in
// FedJAX): server state, a broadcast, a client update that runs on a worker,
// and a server update from the clients' replies. One value serves one run;
// the registry builds a fresh one per run.
//
// The contract an author relies on, for a run executed alone (Run) and for
// a run executed in a cohort (RunCohort, runs of one call in lockstep):
//
//   - Init, Broadcast, Aggregate and Model of one run are called one at a
//     time, in protocol order (Init once, then per round Broadcast, the
//     client updates, Aggregate, and Model at evaluations), never
//     concurrently with each other or with the run's ClientUpdate calls.
//     They are not always called on the same goroutine: in a cohort, each
//     run's server steps execute on a client worker, concurrently with
//     other runs' steps. So an algorithm keeps its state in its own value
//     (never in package variables, nor in anything shared with another
//     value), and needs no locks for it.
//   - ClientUpdate is called concurrently for distinct clients of one
//     round, and in a cohort concurrently with other runs' client updates,
//     on the same client's data too (Client.Data is read-only). It must
//     only read the algorithm's server state and the down message, and
//     write only to its Client (its state and streams) and its up message.
//   - Scratch vectors (Client.Vec) are valid for one ClientUpdate call: a
//     worker's scratch is shared by every run of a cohort, so keep nothing
//     in it between calls (per-client state belongs in ClientStateful).
//   - Result.Elapsed is the run's own wall time when it runs alone; in a
//     cohort it is its share of the cohort's wall time, in proportion to
//     the time spent on its own steps (Result.Cohort is the cohort's size).
//   - An algorithm that cannot honour this (state shared between values,
//     say) implements Solitary, and RunCohort runs it alone.
//
// TestCohortsOfEveryRegisteredAlgorithm (package experiment) checks that
// every registered algorithm gives the same records in a cohort as alone,
// on dense, sparse and neural problems.
type Algorithm interface {
	// Init prepares the server state for a run starting at env.W0.
	Init(env *Env) error
	// Shape declares the down (server → client) and up (client → server) messages.
	Shape() (down, up MessageShape)
	// Broadcast writes round rd's message to the sampled clients into down.
	Broadcast(rd *Round, down *Message)
	// ClientUpdate runs c.Steps local steps from down and writes the reply into up.
	ClientUpdate(rd *Round, c *Client, down, up *Message)
	// Aggregate updates the server state; mean is the weighted mean of ups
	// under rd.Weights.
	Aggregate(rd *Round, mean *Message, ups []*Message)
	// Model writes the current primal model (the point that is evaluated) into dst.
	Model(dst []float64)
}

// Solitary is implemented by algorithms that must not run in a cohort (see
// Algorithm): RunCohort runs them alone.
type Solitary interface {
	// Solitary marks the algorithm; it is never called.
	Solitary()
}

// Participants is implemented by algorithms that choose their own clients
// (e.g. "local", which trains one client alone).
type Participants interface {
	Participants(M int) []int
}

// Env is what an algorithm sees when a run starts.
type Env struct {
	Problem  *Problem
	W0       []float64 // initial model (primal)
	Settings *Settings
}

// MessageShape is the number of model-sized vectors and of scalars in a message.
type MessageShape struct {
	Vecs    int
	Scalars int
}

// Floats is the number of floats a message of this shape carries for models
// of dimension dim.
func (s MessageShape) Floats(dim int) int64 { return int64(s.Vecs*dim + s.Scalars) }

// Message is a set of model-sized vectors and scalars sent in one direction.
type Message struct {
	Vecs    [][]float64
	Scalars []float64
}

// NewMessage allocates a message of the given shape.
func NewMessage(s MessageShape, dim int) *Message {
	m := &Message{Vecs: make([][]float64, s.Vecs), Scalars: make([]float64, s.Scalars)}
	for i := range m.Vecs {
		m.Vecs[i] = make([]float64, dim)
	}
	return m
}

// Round describes one round to the algorithm.
type Round struct {
	R       int       // round index, from 0 (continues across pipeline stages)
	Psi     Psi       // the regularizer at this round's λ
	Mirror  Mirror    // the mirror map h
	Sampled []int     // client indices taking part, in increasing order
	Weights []float64 // aggregation weights of the sampled clients (sum to 1)
	// Local is set by Broadcast when the round exchanges no messages (e.g.
	// FedPD's skipped communication): the clients still run, but the round is
	// not counted as communication.
	Local bool
}

// Gossiper is implemented by decentralized algorithms, whose nodes (the
// clients) exchange messages with their neighbours in a communication graph
// instead of with a server. The engine then counts a round's communication
// as EdgeFloats, added to the floats sent up (by the nodes); nothing is
// counted down. The algorithm simulates the network in Aggregate.
type Gossiper interface {
	// EdgeFloats returns the floats sent in round rd, summed over the
	// directed edges i → j (i ≠ j) of the graph.
	EdgeFloats(rd *Round) int64
}

// Nodes is implemented by algorithms that keep one model per node
// (decentralized ones). The engine evaluates every node's model: a metric's
// column is its mean over the nodes, and the columns <metric>_min and
// <metric>_max hold its extremes. Model should write the nodes' average,
// which becomes the run's final model.
type Nodes interface {
	// Nodes is the number of node models.
	Nodes() int
	// NodeModel writes node m's current primal model into dst.
	NodeModel(m int, dst []float64)
}

// ClientStateful is implemented by algorithms that keep model-sized vectors
// per client between rounds (control variates, dual variables, node
// models). The memory pre-check counts ClientVectors()·M of them; other
// algorithms keep only per-worker scratch and one reply per sampled client.
type ClientStateful interface {
	// ClientVectors is the number of model-sized vectors kept per client.
	ClientVectors() int
}
