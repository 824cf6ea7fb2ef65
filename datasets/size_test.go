package datasets

import (
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// heldBytes counts what a built dataset stores: features, labels and, for
// sparse data, indices and row pointers.
func heldBytes(f *core.Federated) uint64 {
	var n uint64
	for _, part := range [][]*core.Data{f.Train, f.Test} {
		for _, d := range part {
			n += uint64(8*len(d.X) + 8*len(d.Y))
			if d.Sparse != nil {
				n += uint64(8*len(d.Sparse.Ptr) + 4*len(d.Sparse.Ind) + 8*len(d.Sparse.Val))
			}
		}
	}
	return n
}

// TestGeneratorsDeclareTheirMemory: every generated dataset declares its
// memory (registry.Sizer), from its own sizes (a preset's clients and
// samples where they are 0, which a guess from parameter names read as
// 0), and the declaration bounds what the built data hold: at least all
// of it, at most twice (sparse estimates from a density) or 1.3 times.
func TestGeneratorsDeclareTheirMemory(t *testing.T) {
	files := map[string]bool{"svmlight": true, "csv": true, "fashion_mnist": true, "idx": true, "cifar": true, "npz": true, "leaf": true} // file readers: their tests check the size each declares from its files
	for _, spec := range registry.Specs(registry.Dataset) {
		if files[spec.Name] {
			continue
		}
		if _, _, ok := spec.Size(mustValidate(t, spec.Name, nil)); !ok {
			t.Errorf("dataset %q declares no memory", spec.Name)
		}
	}
	for _, c := range []struct {
		name  string
		raw   map[string]any
		slack float64
	}{
		{"lasso", map[string]any{"variant": "custom", "dim": 40, "support": 4, "clients": 3, "samples": 20}, 1.3},
		{"lasso", map[string]any{"variant": "IV", "support": 2, "dim": 30}, 1.3}, // 256 clients × 32 samples from the preset
		{"lasso", map[string]any{"variant": "custom", "dim": 400, "support": 4, "clients": 3, "samples": 20, "density": 0.1, "format": "sparse"}, 2},
		{"lowrank", map[string]any{"variant": "custom", "size": 6, "rank": 2, "clients": 3, "samples": 20}, 1.3},
		{"sparse_federated", map[string]any{"dim": 1000, "support": 5, "clients": 4, "samples": 30, "nnz": 7}, 2},
		{"sparse_ar1", map[string]any{"dim": 30, "support": 3, "clients": 3, "samples": 20}, 1.3},
		{"lowrank_shift", map[string]any{"size": 5, "rank": 2, "clients": 3, "samples": 20}, 1.3},
		{"fedpd_logistic", map[string]any{"variant": "weak", "clients": 4, "samples": 25, "features": 20}, 1.3},
		{"fedavg_counterexample", map[string]any{"dim": 10, "samples": 3}, 1.3},
		{"hetero_linreg", map[string]any{"dim": 10, "support": 2, "clients": 4, "samples": 20}, 1.3},
		{"hetero_logreg", map[string]any{"dim": 10, "support": 2, "clients": 4, "samples": 20}, 1.3},
	} {
		a := mustValidate(t, c.name, c.raw)
		declared, what, _ := a.Spec().Size(a)
		f, err := registry.BuildArgs[*core.Federated](a)
		if err != nil {
			t.Fatalf("%s %v: %v", c.name, c.raw, err)
		}
		held := heldBytes(f)
		if declared < held || float64(declared) > c.slack*float64(held) {
			t.Errorf("%s (%s): declares %d bytes, holds %d (want %d to %.1f×)", c.name, what, declared, held, held, c.slack)
		}
	}
}
