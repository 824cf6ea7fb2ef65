package datasets

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

func TestRegistered(t *testing.T) {
	for _, n := range []string{"lasso", "lowrank", "svmlight", "csv"} {
		if _, ok := registry.Lookup(registry.Dataset, n); !ok {
			t.Errorf("dataset %q not registered", n)
		}
	}
}

// variantSizes are the sizes a preset's test builds it with: the preset's
// own (none given), and under -short, but for the variant full, the
// preset's clients and its samples per client each with the other made
// small (every preset's full build makes 64 MiB of features).
func variantSizes(variant, full string) []map[string]any {
	if testing.Short() && variant != full {
		return []map[string]any{{"clients": 2}, {"samples": 1}}
	}
	return []map[string]any{{}}
}

// sizesOf returns the clients and samples per client of a build with the
// sizes given in over, the others the preset's.
func sizesOf(over map[string]any, clients, samples int) (int, int) {
	if c, ok := over["clients"]; ok {
		clients = c.(int)
	}
	if n, ok := over["samples"]; ok {
		samples = n.(int)
	}
	return clients, samples
}

func TestLassoVariants(t *testing.T) {
	for v, p := range LassoPresets {
		for _, over := range variantSizes(v, "IV") {
			raw := map[string]any{"variant": v, "test_samples": 2}
			maps.Copy(raw, over)
			f := build(t, "lasso", raw)
			clients, samples := sizesOf(over, p.Clients, p.Samples)
			name := "lasso (" + v + ")"
			if len(over) > 0 {
				name = fmt.Sprintf("lasso (d1=%d, d=1024, M=%d, n=%d)", p.Support, clients, samples)
			}
			if f.Name != name {
				t.Errorf("%s %v: name %q, want %q", v, over, f.Name, name)
			}
			if f.Clients() != clients || f.Features != 1024 || f.Classes != 0 || f.Shape != [2]int{} {
				t.Errorf("%s %v: M=%d d=%d classes=%d shape=%v", v, over, f.Clients(), f.Features, f.Classes, f.Shape)
			}
			if len(over) == 0 && f.Samples() != 8192 {
				t.Errorf("%s: %d samples, want 8192", v, f.Samples())
			}
			for m, d := range f.Train {
				if d.N != samples || f.Test[m].N != 2 || f.Test[m].Features != 1024 {
					t.Fatalf("%s %v client %d: n=%d test=%d", v, over, m, d.N, f.Test[m].N)
				}
			}
			w := f.Truth.Weights
			if len(w) != 1024 {
				t.Fatalf("%s: truth has %d weights", v, len(w))
			}
			for i, x := range w {
				if want := float64(b2i(i < p.Support)); x != want {
					t.Fatalf("%s: truth[%d] = %g, want %g", v, i, x, want)
				}
			}
			if b := f.Truth.Bias; b == 0 || math.Abs(b) > 6 {
				t.Errorf("%s: implausible bias %g", v, b)
			}
		}
	}
}

func TestLowRankVariants(t *testing.T) {
	for v, p := range LowRankPresets {
		for _, over := range variantSizes(v, "IV") {
			raw := map[string]any{"variant": v, "test_samples": 1}
			maps.Copy(raw, over)
			f := build(t, "lowrank", raw)
			clients, samples := sizesOf(over, p.Clients, p.Samples)
			name := "lowrank (" + v + ")"
			if len(over) > 0 {
				name = fmt.Sprintf("lowrank (r=%d, 32×32, M=%d, n=%d)", p.Rank, clients, samples)
			}
			if f.Name != name || f.Shape != [2]int{32, 32} || f.Features != 1024 {
				t.Errorf("%s %v: name %q (want %q) shape %v features %d", v, over, f.Name, name, f.Shape, f.Features)
			}
			if f.Clients() != clients || f.Train[0].N != samples || f.Test[clients-1].N != 1 {
				t.Errorf("%s %v: M=%d n=%d", v, over, f.Clients(), f.Train[0].N)
			}
			for i := range 32 {
				for j := range 32 {
					want := float64(b2i(i == j && i < p.Rank))
					if got := f.Truth.Weights[i*32+j]; got != want {
						t.Fatalf("%s: W[%d,%d] = %g, want %g", v, i, j, got, want)
					}
				}
			}
		}
	}
	f := build(t, "lowrank", map[string]any{"variant": "custom", "rank": 2, "size": 5, "clients": 3, "samples": 4, "test_samples": 0})
	if f.Shape != [2]int{5, 5} || f.Features != 25 || f.Test != nil || f.Truth.Weights[6] != 1 || f.Truth.Weights[12] != 0 {
		t.Errorf("custom lowrank: shape %v features %d test %v truth %v", f.Shape, f.Features, f.Test, f.Truth.Weights)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestSyntheticDeterminism(t *testing.T) {
	for _, name := range []string{"lasso", "lowrank"} {
		raw := func(seed int) map[string]any {
			r := map[string]any{"variant": "III", "clients": 4, "samples": 6, "test_samples": 3, "seed": seed}
			if name == "lasso" {
				r["dim"] = 20
			} else {
				r["size"] = 5
			}
			return r
		}
		a, b, c := build(t, name, raw(7)), build(t, name, raw(7)), build(t, name, raw(8))
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed gave different data", name)
		}
		if reflect.DeepEqual(a.Train[0].X, c.Train[0].X) || a.Truth.Bias == c.Truth.Bias {
			t.Errorf("%s: different seeds gave the same data", name)
		}
		if reflect.DeepEqual(a.Train[0].X, a.Train[1].X) {
			t.Errorf("%s: clients 0 and 1 are identical", name)
		}
	}
}

func TestTrainIndependentOfTestSamples(t *testing.T) {
	raw := map[string]any{"variant": "custom", "support": 3, "dim": 10, "clients": 3, "samples": 5}
	a := build(t, "lasso", raw)
	raw["test_samples"] = 0
	b := build(t, "lasso", raw)
	if !reflect.DeepEqual(a.Train, b.Train) || !reflect.DeepEqual(a.Truth, b.Truth) || b.Test != nil {
		t.Error("training data depends on test_samples")
	}
	raw["clients"] = 5
	c := build(t, "lasso", raw)
	if !reflect.DeepEqual(a.Train, c.Train[:3]) {
		t.Error("first clients' data depends on the number of clients")
	}
}

func TestSyntheticParams(t *testing.T) {
	f := build(t, "lasso", map[string]any{"variant": "II", "dim": 100, "clients": 3, "samples": 5, "test_samples": 0})
	if f.Clients() != 3 || f.Train[0].N != 5 || f.Features != 100 || f.Truth.Weights[63] != 1 || f.Truth.Weights[64] != 0 {
		t.Errorf("override: M=%d n=%d d=%d", f.Clients(), f.Train[0].N, f.Features)
	}
	if !strings.Contains(f.Name, "d1=64") {
		t.Errorf("overridden name %q", f.Name)
	}
	err := buildErr(t, "lasso", map[string]any{"variant": "custom", "clients": 3})
	if !strings.Contains(err.Error(), "missing: support, samples") {
		t.Errorf("custom error: %v", err)
	}
	err = buildErr(t, "lowrank", map[string]any{"variant": "custom", "rank": 1, "clients": 3})
	if !strings.Contains(err.Error(), "missing: samples") {
		t.Errorf("custom lowrank error: %v", err)
	}
	if err := buildErr(t, "lasso", map[string]any{"support": 20, "dim": 10}); !strings.Contains(err.Error(), "exceeds dim") {
		t.Errorf("support > dim: %v", err)
	}
	if err := buildErr(t, "lowrank", map[string]any{"rank": 9, "size": 8}); !strings.Contains(err.Error(), "exceeds size") {
		t.Errorf("rank > size: %v", err)
	}
	if err := buildErr(t, "lasso", map[string]any{"scale": 0}); !strings.Contains(err.Error(), "scale") {
		t.Errorf("scale 0: %v", err)
	}
}

func TestScale(t *testing.T) {
	raw := map[string]any{"variant": "custom", "support": 3, "dim": 8, "clients": 2, "samples": 5, "test_samples": 2}
	a := build(t, "lasso", raw)
	raw["scale"] = 0.5
	b := build(t, "lasso", raw)
	for m := range a.Train {
		for i, x := range a.Train[m].X {
			if b.Train[m].X[i] != 0.5*x {
				t.Fatalf("scaled feature %g, unscaled %g", b.Train[m].X[i], x)
			}
		}
		if !reflect.DeepEqual(a.Train[m].Y, b.Train[m].Y) {
			t.Fatal("scale changed the labels")
		}
		for i, x := range a.Test[m].X {
			if b.Test[m].X[i] != 0.5*x {
				t.Fatal("test features not scaled")
			}
		}
	}
	for i, w := range a.Truth.Weights {
		if b.Truth.Weights[i] != 2*w {
			t.Fatalf("scaled truth %g, unscaled %g", b.Truth.Weights[i], w)
		}
	}
	if b.Truth.Bias != a.Truth.Bias {
		t.Error("scale changed the bias")
	}
}

// TestShiftedStatistics checks the generating model on a large sample: client
// means recover mu_m, the within-client feature variance is 1, and the
// residual y − xᵀw − b is N(0,1).
func TestShiftedStatistics(t *testing.T) {
	const d, n, M = 6, 20000, 3
	w := []float64{1, 1, 1, 0, 0, 0}
	f, mus := GenerateShifted(ShiftedSpec{Name: "stat", Weights: w, Clients: M, Samples: n, TestSamples: n, Seed: 3})
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
	tol := 5 / math.Sqrt(n)
	var sum, sum2 float64
	for m := range M {
		for _, data := range []*core.Data{f.Train[m], f.Test[m]} {
			mean, sq := make([]float64, d), make([]float64, d)
			for i := range data.N {
				for j, x := range data.Row(i) {
					mean[j] += x / n
					sq[j] += x * x / n
				}
			}
			for j := range d {
				if math.Abs(mean[j]-mus[m][j]) > tol {
					t.Errorf("client %d feature %d: mean %.4f, mu %.4f", m, j, mean[j], mus[m][j])
				}
				if v := sq[j] - mean[j]*mean[j]; math.Abs(v-1) > 0.05 {
					t.Errorf("client %d feature %d: variance %.4f, want 1", m, j, v)
				}
			}
		}
		for i := range n {
			r := f.Train[m].Y[i] - f.Truth.Bias
			for j, x := range f.Train[m].Row(i) {
				r -= w[j] * x
			}
			sum += r
			sum2 += r * r
		}
	}
	N := float64(n * M)
	mean := sum / N
	if v := sum2/N - mean*mean; math.Abs(v-1) > 0.03 || math.Abs(mean) > 5/math.Sqrt(N) {
		t.Errorf("residual mean %.4f variance %.4f, want 0 and 1", mean, v)
	}
	if mus[0][0] == mus[1][0] {
		t.Error("clients share a mean")
	}
}
