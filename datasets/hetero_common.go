package datasets

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// The heterogeneous sparse problems of Liang, Peng & Zhang, "Gradient
// Tracking for High Dimensional Federated Optimization", Sec. 7 and
// App. D.1, with the constants of the authors' code: client optima w̃^m
// that are dense and distinct, and a sparse global optimum w*.

// Hetero is a generated problem: its data, the client optima w̃^m and
// their sparse global optimum w*, the data's truth.
type Hetero struct {
	Data    *core.Federated
	Optima  [][]float64 // w̃^m
	Optimum []float64   // w*
}

func (h *Hetero) federated() *core.Federated { return h.Data }

// heteroProblem is a generated problem (*HeteroLinReg, *HeteroLogReg).
type heteroProblem interface{ federated() *core.Federated }

// defineHetero registers the dataset generator name, whose parameters P
// generate makes the problem of.
func defineHetero[P any](name, doc string, defaults P, generate func(P) (heteroProblem, error)) {
	registry.Define(registry.Dataset, name, doc, defaults, func(p P) (*core.Federated, error) {
		h, err := generate(p)
		if err != nil {
			return nil, err
		}
		return h.federated(), nil
	})
}

// heteroHead and heteroTail are the parameters both generators share
// (each declares its own samples between them).
type heteroHead struct {
	Dim     int `param:"dim" min:"2" doc:"dimension d"`
	Support int `param:"support" min:"1" doc:"sparsity s: w* is supported on coordinates 0..s−1"`
	Clients int `param:"clients" min:"2" doc:"number of clients M (even)"`
}

type heteroTail struct {
	Scale     float64 `param:"scale" min:"0" doc:"scale of the client optima (the code's param_scale)"`
	Threshold float64 `param:"threshold" min:"0" doc:"the common support values are scale·sign(g)(|g| + threshold), g ~ N(0, 1)"`
	Mode      string  `param:"mode" choices:"random|all_one" doc:"client perturbations: Gaussian and Dirichlet (random) or ±scale by halves (all_one)"`
	CovVar    float64 `param:"covariate_var" min:"0" doc:"variance σ₁² of the covariates"`
	Seed      int     `param:"seed" min:"0" doc:"random seed"`
}

var (
	defaultHeteroHead = heteroHead{Dim: 1024, Support: 16, Clients: 16}
	defaultHeteroTail = heteroTail{Scale: 5, Threshold: 1, Mode: "random", CovVar: 1, Seed: 1}
)

// heteroSpec holds the shared parameters.
type heteroSpec struct {
	Dim, Support, Clients, Samples int
	Scale, Threshold, CovVar       float64
	Mode                           string
	Seed                           int
}

// heteroSpecOf assembles the shared parameters.
func heteroSpecOf(h heteroHead, samples int, t heteroTail) heteroSpec {
	return heteroSpec{Dim: h.Dim, Support: h.Support, Clients: h.Clients, Samples: samples,
		Scale: t.Scale, Threshold: t.Threshold, CovVar: t.CovVar, Mode: t.Mode, Seed: t.Seed}
}

func (s heteroSpec) check(quarters bool) error {
	switch {
	case s.Support > s.Dim:
		return fmt.Errorf("support %d exceeds dim %d", s.Support, s.Dim)
	case s.Clients%2 != 0:
		return fmt.Errorf("clients must be even (the perturbations cancel in pairs or halves), got %d", s.Clients)
	case quarters && s.Mode == "all_one" && s.Clients%4 != 0:
		return fmt.Errorf("mode \"all_one\" needs a multiple of 4 clients, got %d", s.Clients)
	}
	return nil
}

// base draws the common support values b_j = scale·sign(g_j)(|g_j| + threshold).
func (s heteroSpec) base() []float64 {
	rng := newRNG(s.Seed, 0x5e7a)
	b := make([]float64, s.Support)
	for j := range b {
		g := rng.NormFloat64()
		b[j] = s.Scale * math.Copysign(math.Abs(g)+s.Threshold, g)
	}
	return b
}
