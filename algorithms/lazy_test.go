package algorithms

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// sparseProblem builds a sparse_federated problem stored as format, with
// the given loss and regularizer.
func sparseProblem(t *testing.T, format, loss, task, reg string, regParams map[string]any) *core.Problem {
	t.Helper()
	f, err := registry.Build[*core.Federated](registry.Dataset, "sparse_federated", map[string]any{
		"dim": 300, "support": 5, "clients": 4, "samples": 30, "nnz": 8, "task": task, "format": format, "seed": 3})
	if err != nil {
		t.Fatal(err)
	}
	l, err := registry.Build[core.Loss](registry.Loss, loss, nil)
	if err != nil {
		t.Fatal(err)
	}
	pen, err := registry.Build[core.Penalty](registry.Regularizer, reg, regParams)
	if err != nil {
		t.Fatal(err)
	}
	p, err := core.NewProblem(f, l, pen, core.Euclidean{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLazySparseStepsEqualDenseSteps runs every algorithm with a lazy path
// on the same data stored densely (dense client steps) and sparse (lazy
// O(nnz) steps), from a random nonzero start so that skipped proxes and
// subgradient steps matter, and requires the final models to agree to
// 1e-10 relative.
func TestLazySparseStepsEqualDenseSteps(t *testing.T) {
	regs := []struct {
		name   string
		params map[string]any
	}{
		{"none", nil},
		{"l1", map[string]any{"lambda": 0.05}},
		{"l2sq", map[string]any{"lambda": 0.05}},
		{"elastic_net", map[string]any{"lambda": 0.05, "l1_ratio": 0.4}},
	}
	losses := []struct{ loss, task string }{{"squared", "regression"}, {"logistic", "classification"}, {"multinomial", "classification"}}
	algs := []string{"feddualavg", "feddualavg_osp", "fedmid", "fedmid_osp", "fedavg", "fedavg_subgrad", "dfedda", "dfedda_gt"}
	for _, ls := range losses {
		for _, reg := range regs {
			dense := sparseProblem(t, "dense", ls.loss, ls.task, reg.name, reg.params)
			sparse := sparseProblem(t, "sparse", ls.loss, ls.task, reg.name, reg.params)
			for _, name := range algs {
				if name == "fedavg_subgrad" && reg.name == "elastic_net" {
					continue // no closed form for its subgradient steps: the dense path runs
				}
				t.Run(fmt.Sprintf("%s/%s/%s", ls.loss, reg.name, name), func(t *testing.T) {
					s := core.Settings{Rounds: 4, LocalSteps: 7, Batch: 3, Seed: 5, Init: "normal", InitScale: 0.5, Workers: 2}
					if name[0] != 'd' {
						s.ClientsPerRound = 2
					}
					params := map[string]any{"eta_c": 0.05, "eta_s": 0.9}
					want := run(t, dense, algo(t, name, params), s).Model
					got := run(t, sparse, algo(t, name, params), s).Model
					diff := make([]float64, len(want))
					floats.SubTo(diff, got, want)
					if rel := floats.Norm(diff, 2) / floats.Norm(want, 2); !(rel <= 1e-10) {
						t.Fatalf("sparse (lazy) and dense models differ: relative %g", rel)
					}
					s.Rounds = 0
					if start := run(t, dense, algo(t, name, params), s).Model; floats.EqualApprox(start, want, 1e-3) {
						t.Fatal("the model did not move")
					}
				})
			}
		}
	}
}

// TestLazyPathIsTaken checks that the lazy updates actually run on sparse
// data (so the comparison above is not dense against dense) and not on
// dense data or with a non-Euclidean mirror map.
func TestLazyPathIsTaken(t *testing.T) {
	s := &core.Settings{LocalSteps: 1, Batch: 3}
	sp := sparseProblem(t, "sparse", "squared", "regression", "l1", map[string]any{"lambda": 0.1})
	de := sparseProblem(t, "dense", "squared", "regression", "l1", map[string]any{"lambda": 0.1})
	rd := &core.Round{Psi: sp.Penalty.At(0, sp.Layout), Mirror: core.Euclidean{}}
	if _, ok := lazyProx(rd, core.NewClient(sp, 0, s)); !ok {
		t.Error("no lazy path on sparse data with l1")
	}
	if _, ok := lazyProx(rd, core.NewClient(de, 0, s)); ok {
		t.Error("lazy path on dense data")
	}
	pnorm, err := registry.Build[core.Mirror](registry.Mirror, "pnorm", map[string]any{"p": 3.0})
	if err != nil {
		t.Fatal(err)
	}
	rd.Mirror = pnorm
	if _, ok := lazyProx(rd, core.NewClient(sp, 0, s)); ok {
		t.Error("lazy path with the p-norm mirror map")
	}
	if _, ok := (&FedAvg{Subgradient: true}).lazyStep(rd, core.NewClient(sp, 0, s)); !ok {
		t.Error("no lazy FedAvg(∂) with l1")
	}
}

// TestLazyStepsDoNotDependOnWorkers: the scratch is per worker and lent
// to the clients a worker runs, so results are bit-identical for any
// worker count.
func TestLazyStepsDoNotDependOnWorkers(t *testing.T) {
	p := sparseProblem(t, "sparse", "logistic", "classification", "l1", map[string]any{"lambda": 0.01})
	var models [][]float64
	for _, workers := range []int{1, 3} {
		s := core.Settings{Rounds: 5, ClientsPerRound: 3, LocalSteps: 4, Batch: 5, Seed: 2, Init: "normal", InitScale: 0.3, Workers: workers}
		for _, name := range []string{"feddualavg", "fedmid", "fedavg_subgrad"} {
			models = append(models, run(t, p, algo(t, name, map[string]any{"eta_c": 0.1}), s).Model)
		}
	}
	for i := range 3 {
		if !floats.Equal(models[i], models[i+3]) {
			t.Errorf("algorithm %d: models differ between 1 and 3 workers", i)
		}
	}
}
