package luaapi

import (
	"fmt"

	"github.com/fedlab/fedlab/topology"
	lua "github.com/yuin/gopher-lua"
)

// topologyInfo is fedlab.info(topology, M): the gossip matrix for M nodes
// (M may be omitted for a user-given matrix) described as { name=, nodes=,
// edges=, sigma2=, gap=, tau=, tau_gt= }, with σ₂(U) the second-largest
// eigenvalue in modulus, gap = 1 − σ₂ and the mixing times
// τ = max(1, log(cM)/(2 log(1/σ₂))) of DFedDA (c = 4) and DFedDA-GT (c = 8).
// maxInfoNodes bounds the nodes of fedlab.info(topology, M): 2000 nodes
// take about 5 s and 130 MB on one core; 5000 took minutes and --timeout
// could not stop the factorization.
const maxInfoNodes = 2000

func (in *interp) topologyInfo(L *lua.LState, c *component) (int, error) {
	top := c.value.(topology.Topology)
	M := 0
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
		mt, ok := top.(topology.MatrixTopology)
		if !ok {
			return 0, fmt.Errorf("fedlab.info(%s, M): give the number of nodes M", c.spec.Name)
		}
		M = mt.Nodes()
	default:
		n, err := integer(v, 1, "fedlab.info: the number of nodes")
		if err != nil {
			return 0, err
		}
		M = n
	}
	if M > maxInfoNodes {
		return 0, fmt.Errorf("fedlab.info(%s, %d): at most %d nodes: the spectral analysis (σ₂ of the dense M × M gossip matrix) takes O(M³) time and O(M²) memory", c.spec.Name, M, maxInfoNodes)
	}
	u, err := top.Gossip(M)
	if err != nil {
		return 0, fmt.Errorf("fedlab.info: topology %s: %w", top, err)
	}
	t := L.NewTable()
	t.RawSetString("name", lua.LString(top.String()))
	t.RawSetString("nodes", lua.LNumber(u.M))
	t.RawSetString("edges", lua.LNumber(u.Edges()))
	t.RawSetString("sigma2", lua.LNumber(u.Sigma2()))
	t.RawSetString("gap", lua.LNumber(u.Gap()))
	t.RawSetString("tau", lua.LNumber(u.MixingTime(4)))
	t.RawSetString("tau_gt", lua.LNumber(u.MixingTime(8)))
	L.Push(t)
	return 1, nil
}
