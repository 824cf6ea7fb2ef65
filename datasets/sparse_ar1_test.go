package datasets

import (
	"maps"
	"math"
	"reflect"
	"testing"
)

func TestSparseAR1Defaults(t *testing.T) {
	// the defaults at once (64 MiB of features), or under -short the
	// default clients with one sample each and the default samples with 2
	// clients
	sizes := []map[string]any{{}}
	if testing.Short() {
		sizes = []map[string]any{{"clients": 2}, {"samples": 1}}
	}
	for _, over := range sizes {
		raw := map[string]any{"test_samples": 2}
		maps.Copy(raw, over)
		f := build(t, "sparse_ar1", raw)
		clients, samples := sizesOf(over, 64, 128)
		if f.Clients() != clients || f.Features != 1024 || f.Samples() != clients*samples || f.Shape != [2]int{} || f.Classes != 0 {
			t.Fatalf("%v: clients %d features %d samples %d shape %v", over, f.Clients(), f.Features, f.Samples(), f.Shape)
		}
		if f.Test[clients-1].N != 2 {
			t.Errorf("%v: test samples %d, want 2", over, f.Test[clients-1].N)
		}
		for i, w := range f.Truth.Weights {
			if want := float64(b2i(i < 512)); w != want {
				t.Fatalf("%v: w*[%d] = %g, want %g", over, i, w, want)
			}
		}
		if f.Truth.Bias != 0 {
			t.Errorf("%v: bias %g, want none", over, f.Truth.Bias)
		}
	}
}

// The within-client covariance is Σ_ij = ρ^|i−j| with unit variances, the
// clients have different means (δ_k ~ N(0, shift²·I)) and y − xᵀw* is the
// N(0, noise²) noise.
func TestSparseAR1Distribution(t *testing.T) {
	const d, n = 8, 20000
	f := build(t, "sparse_ar1", map[string]any{"dim": d, "support": 3, "clients": 3, "samples": n,
		"test_samples": 0, "shift": 2.0, "noise": 0.5, "rho": 0.5, "seed": 7})
	var means [][]float64
	for k, c := range f.Train {
		mean := make([]float64, d)
		for i := range n {
			for j, x := range c.Row(i) {
				mean[j] += x / n
			}
		}
		means = append(means, mean)
		cov := func(a, b int) float64 {
			s := 0.0
			for i := range n {
				r := c.Row(i)
				s += (r[a] - mean[a]) * (r[b] - mean[b])
			}
			return s / (n - 1)
		}
		for lag, want := range []float64{1, 0.5, 0.25, 0.125} {
			for a := 0; a+lag < d; a += 3 {
				if got := cov(a, a+lag); math.Abs(got-want) > 0.04 {
					t.Errorf("client %d: cov(x_%d, x_%d) = %.3f, want %.3f", k, a, a+lag, got, want)
				}
			}
		}
		res := 0.0
		for i := range n {
			r := c.Row(i)
			e := c.Y[i] - r[0] - r[1] - r[2]
			res += e * e / n
		}
		if math.Abs(res-0.25) > 0.02 {
			t.Errorf("client %d: noise variance %.3f, want 0.25", k, res)
		}
	}
	// client means differ by O(shift)
	spread := 0.0
	for j := range d {
		spread += math.Abs(means[0][j]-means[1][j]) / d
	}
	if spread < 1 {
		t.Errorf("client means differ by %.3f on average, want O(shift = 2)", spread)
	}
}

func TestSparseAR1Deterministic(t *testing.T) {
	raw := map[string]any{"dim": 16, "support": 4, "clients": 5, "samples": 7, "seed": 3}
	a, b := build(t, "sparse_ar1", raw), build(t, "sparse_ar1", raw)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same parameters gave different data")
	}
	raw["clients"] = 6 // a client's data does not depend on the client count
	c := build(t, "sparse_ar1", raw)
	if !reflect.DeepEqual(a.Train[4], c.Train[4]) {
		t.Error("client 4 changed when a client was added")
	}
	raw["seed"] = 4
	if d := build(t, "sparse_ar1", raw); reflect.DeepEqual(a.Train[0], d.Train[0]) {
		t.Error("different seeds gave identical data")
	}
	if err := buildErr(t, "sparse_ar1", map[string]any{"dim": 4, "support": 5}); err == nil {
		t.Error("support > dim accepted")
	}
}

// lowrank_shift: every client has its own shift Z_k (the authors' code
// shares one shift), y = ⟨X, W*⟩ + ε with W* = diag(1_r, 0) and no intercept.
func TestLowRankShift(t *testing.T) {
	const n = 6000
	f := build(t, "lowrank_shift", map[string]any{"size": 4, "rank": 2, "clients": 3, "samples": n, "noise": 0.3, "seed": 2})
	if f.Shape != [2]int{4, 4} || f.Features != 16 || f.Truth.Bias != 0 {
		t.Fatalf("shape %v features %d bias %g", f.Shape, f.Features, f.Truth.Bias)
	}
	want := []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	if !reflect.DeepEqual(f.Truth.Weights, want) {
		t.Fatalf("W* = %v, want diag(1, 1, 0, 0)", f.Truth.Weights)
	}
	var shifts [][]float64
	for k, c := range f.Train {
		mean := make([]float64, 16)
		res := 0.0
		for i := range n {
			r := c.Row(i)
			for j, x := range r {
				mean[j] += x / n
			}
			e := c.Y[i] - r[0] - r[5]
			res += e * e / n
		}
		if math.Abs(res-0.09) > 0.01 {
			t.Errorf("client %d: noise variance %.4f, want 0.09", k, res)
		}
		shifts = append(shifts, mean)
	}
	for k := 1; k < len(shifts); k++ {
		diff := 0.0
		for j := range shifts[k] {
			diff += math.Abs(shifts[k][j] - shifts[0][j])
		}
		if diff/16 < 0.3 {
			t.Errorf("clients 0 and %d have nearly the same shift (mean |ΔZ| = %.3f): the shifts must differ per client", k, diff/16)
		}
	}
	if err := buildErr(t, "lowrank_shift", map[string]any{"size": 3, "rank": 4}); err == nil {
		t.Error("rank > size accepted")
	}
}
