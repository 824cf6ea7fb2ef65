package datasets

import (
	"math"
	"reflect"
	"testing"

	"github.com/fedlab/fedlab/core"
)

// residualStd returns the standard deviation of y − xᵀw − b over every
// training sample of f.
func residualStd(f *core.Federated) float64 {
	s, n := 0.0, 0
	for _, d := range f.Train {
		for i := range d.N {
			r := d.Y[i] - d.Dot(i, f.Truth.Weights) - f.Truth.Bias
			s += r * r
			n++
		}
	}
	return math.Sqrt(s / float64(n))
}

func TestSparseFederatedShapesLabelsAndPowerLaw(t *testing.T) {
	raw := map[string]any{"dim": 1 << 12, "support": 5, "clients": 20, "samples": 100, "test_samples": 10, "nnz": 20, "exponent": 1.5, "noise": 0.1}
	f := build(t, "sparse_federated", raw)
	if !f.IsSparse() || f.Features != 1<<12 || f.Clients() != 20 || len(f.Test) != 20 || f.Classes != 0 {
		t.Fatalf("shape: sparse %v F %d M %d", f.IsSparse(), f.Features, f.Clients())
	}
	support := 0
	for _, w := range f.Truth.Weights {
		if w != 0 {
			support++
			if w != 1 && w != -1 {
				t.Fatalf("truth weight %g not ±1", w)
			}
		}
	}
	if support != 5 {
		t.Fatalf("truth support %d, want 5", support)
	}
	counts := make([]int, f.Features)
	for _, d := range f.Train {
		for i := range d.N {
			ind, _ := d.Sparse.Row(i)
			if len(ind) != 20 {
				t.Fatalf("row with %d nonzeros, want 20", len(ind))
			}
			for _, j := range ind {
				counts[j]++
			}
		}
	}
	if r := residualStd(f); math.Abs(r-0.1) > 0.01 {
		t.Errorf("regression residual std %g, want the noise 0.1", r)
	}
	// Zipf with exponent 1.5: rank 0 is drawn (10/1)^1.5 ≈ 31.6 times as
	// often as rank 9, but a row takes each feature at most once; the top
	// features (present in most rows) must be far more frequent than the
	// median one, and the frequencies must not be flat.
	g := newRankMap(f.Features, newRNG(1, 0))
	top, tenth, hundredth := counts[g.feature(0)], counts[g.feature(9)], counts[g.feature(99)]
	if !(top > tenth && tenth > 3*hundredth && hundredth > 0) {
		t.Errorf("frequencies of ranks 0, 9, 99: %d, %d, %d; want a decreasing power law", top, tenth, hundredth)
	}
	if !reflect.DeepEqual(f, build(t, "sparse_federated", raw)) {
		t.Error("same seed gave different data")
	}
	raw["task"], raw["noise"] = "classification", 0.0
	c := build(t, "sparse_federated", raw)
	for _, d := range c.Train {
		for i := range d.N {
			if want := float64(boolInt(d.Dot(i, c.Truth.Weights) > 0)); d.Y[i] != want {
				t.Fatalf("noiseless label %g, want %g", d.Y[i], want)
			}
		}
	}
}

func TestSparseFederatedVocabulariesDiffer(t *testing.T) {
	f := build(t, "sparse_federated", map[string]any{"dim": 1 << 16, "clients": 3, "samples": 200, "nnz": 10, "vocab": 40})
	var seen []map[int32]bool
	for _, d := range f.Train {
		s := map[int32]bool{}
		for _, j := range d.Sparse.Ind {
			s[j] = true
		}
		if len(s) > 40 {
			t.Fatalf("client uses %d features, vocabulary is 40", len(s))
		}
		seen = append(seen, s)
	}
	if reflect.DeepEqual(seen[0], seen[1]) {
		t.Error("two clients have the same vocabulary")
	}
}

func TestSparseFederatedHugeDimensionAndErrors(t *testing.T) {
	dim := 1 << 24
	if testing.Short() {
		dim = 1 << 20 // the dense truth of 2^24 weights is 128 MiB, cleared page by page once the heap has been used
	}
	f := build(t, "sparse_federated", map[string]any{"dim": dim, "clients": 2, "samples": 3, "nnz": 50})
	if f.Features != dim || f.Pooled(false).Nonzeros() != 2*3*50 {
		t.Fatalf("d=%d: features %d nonzeros %d", dim, f.Features, f.Pooled(false).Nonzeros())
	}
	for _, raw := range []map[string]any{
		{"dim": 100, "vocab": 60},
		{"dim": 100, "support": 30},
		{"dim": 1 << 20, "format": "dense", "clients": 1000},
		{"dim": 100, "vocab": 10, "nnz": 6},
	} {
		buildErr(t, "sparse_federated", raw)
	}
}

func TestLassoSparseFormatAndDensity(t *testing.T) {
	raw := map[string]any{"variant": "III", "dim": 200, "clients": 4, "samples": 10, "test_samples": 3}
	dense := build(t, "lasso", raw)
	raw["format"] = "sparse"
	sp := build(t, "lasso", raw)
	for m := range dense.Train {
		if !reflect.DeepEqual(sp.Train[m].ToDense(), dense.Train[m]) || !reflect.DeepEqual(sp.Test[m].ToDense(), dense.Test[m]) {
			t.Fatalf("client %d: sparse format changed the data", m)
		}
	}
	big := build(t, "lasso", map[string]any{"variant": "III", "dim": 1 << 20, "density": 1e-4, "format": "sparse", "clients": 8, "samples": 16})
	nnz := float64(big.Pooled(false).Nonzeros()) / float64(big.Samples())
	if want := 1e-4 * (1 << 20); math.Abs(nnz-want) > 0.1*want {
		t.Errorf("nonzeros per row %g, want about %g", nnz, want)
	}
	if r := residualStd(big); math.Abs(r-1) > 0.15 {
		t.Errorf("residual std %g, want the unit noise", r)
	}
	buildErr(t, "lasso", map[string]any{"dim": 1 << 20})
}
