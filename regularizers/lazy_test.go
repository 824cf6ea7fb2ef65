package regularizers

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// TestRepeatedStepsEqualSequentialSteps compares each closed form with k
// steps of the regularizer's own Prox (or subgradient step) on a
// one-coordinate regularized layout.
func TestRepeatedStepsEqualSequentialSteps(t *testing.T) {
	lay := core.NewLayout(core.Block{Name: "kernel", Rows: 1, Cols: 1, Regularized: true})
	rng := rand.New(rand.NewPCG(1, 2))
	regs := []core.Regularizer{None{}, L1{}, L2Sq{}, ElasticNet{L1Ratio: 0.3}, ElasticNet{L1Ratio: 1}, ElasticNet{L1Ratio: 0}}
	for _, reg := range regs {
		for range 200 {
			z, step, k := 3*rng.NormFloat64(), 0.2*rng.Float64(), rng.IntN(40)
			seq := []float64{z}
			for range k {
				reg.Prox(seq, seq, step, lay)
			}
			got := reg.(core.RepeatedProx).ProxRepeat(z, step, k)
			if math.Abs(got-seq[0]) > 1e-12*(1+math.Abs(z)) {
				t.Fatalf("%T: %d proxes of %g with t=%g: closed form %g, sequential %g", reg, k, z, step, got, seq[0])
			}
			rs, ok := reg.(core.RepeatedSubgradient)
			if !ok {
				continue
			}
			seq[0] = z
			g := []float64{0}
			for range k {
				reg.Subgradient(g, seq, lay)
				seq[0] -= step * g[0]
			}
			if got := rs.SubgradientRepeat(z, step, k); math.Abs(got-seq[0]) > 1e-12*(1+math.Abs(z)) {
				t.Fatalf("%T: %d subgradient steps of %g with t=%g: closed form %g, sequential %g", reg, k, z, step, got, seq[0])
			}
		}
	}
}
