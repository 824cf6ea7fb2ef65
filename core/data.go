package core

import (
	"fmt"
	"math"
)

// Data is one client's samples: a design matrix, stored densely (row-major
// X) or in compressed rows (Sparse), and labels (regression targets, or
// class indices 0..Classes-1 stored as floats). Exactly one of X and Sparse
// is used: Sparse != nil marks sparse data, whose memory is O(nonzeros).
type Data struct {
	X        []float64 // N×Features, row-major; nil for sparse data
	Sparse   *CSR      // compressed rows; nil for dense data
	Y        []float64 // N labels
	N        int
	Features int
}

// Row returns sample i's features; only for dense data (see Dot and AddRow
// for code that handles both formats).
func (d *Data) Row(i int) []float64 { return d.X[i*d.Features : (i+1)*d.Features] }

// Check verifies the shapes and that every value is finite.
func (d *Data) Check() error {
	if d.Features < 0 || d.Features > MaxFeatures {
		return fmt.Errorf("data has %d features; fedlab accepts 0..%d", d.Features, MaxFeatures)
	}
	if d.Sparse != nil {
		if d.X != nil {
			return fmt.Errorf("data is both dense and sparse")
		}
		if len(d.Y) != d.N {
			return fmt.Errorf("data shape mismatch: %d samples but %d labels", d.N, len(d.Y))
		}
		return d.Sparse.check(d.N, d.Features)
	}
	if len(d.X) != d.N*d.Features || len(d.Y) != d.N {
		return fmt.Errorf("data shape mismatch: %d features × %d samples but %d values and %d labels", d.Features, d.N, len(d.X), len(d.Y))
	}
	for i, v := range d.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("sample %d feature %d is not finite", i/d.Features+1, i%d.Features+1)
		}
	}
	return nil
}

// Federated is a dataset split across clients, with optional test data and an
// optional ground truth (for synthetic recovery experiments).
type Federated struct {
	Name     string
	Train    []*Data // one per client
	Test     []*Data // one per client, or nil
	Features int
	Classes  int    // number of classes; 0 for regression
	Shape    [2]int // if non-zero, the weights form a Shape[0]×Shape[1] matrix (trace regression)
	Truth    *Truth
}

// Truth is a known ground-truth model: the regularized weights (flattened
// row-major for matrices) and the intercept.
type Truth struct {
	Weights []float64
	Bias    float64
}

// Clients is the number of clients.
func (f *Federated) Clients() int { return len(f.Train) }

// Samples is the total number of training samples.
func (f *Federated) Samples() int {
	n := 0
	for _, d := range f.Train {
		n += d.N
	}
	return n
}

// Pooled concatenates the clients' data (Train if test is false, else Test).
func (f *Federated) Pooled(test bool) *Data {
	parts := f.Train
	if test {
		parts = f.Test
	}
	out := &Data{Features: f.Features}
	if len(parts) > 0 && parts[0].Sparse != nil {
		out.Sparse = &CSR{Ptr: []int{0}}
	}
	for _, d := range parts {
		if out.Sparse != nil {
			for i := range d.N {
				out.Sparse.AppendRow(d.Sparse.Row(i))
			}
		} else {
			out.X = append(out.X, d.X...)
		}
		out.Y = append(out.Y, d.Y...)
		out.N += d.N
	}
	return out
}

// IsSparse reports whether the clients' data are stored in compressed rows.
func (f *Federated) IsSparse() bool { return len(f.Train) > 0 && f.Train[0].Sparse != nil }

// Check verifies every client's data.
func (f *Federated) Check() error {
	if len(f.Train) == 0 {
		return fmt.Errorf("dataset %q has no clients", f.Name)
	}
	for m, d := range f.Train {
		if d.Features != f.Features {
			return fmt.Errorf("dataset %q: client %d has %d features, want %d", f.Name, m, d.Features, f.Features)
		}
		if d.N == 0 {
			return fmt.Errorf("dataset %q: client %d has no training samples", f.Name, m)
		}
		if (d.Sparse != nil) != f.IsSparse() {
			return fmt.Errorf("dataset %q: client %d is stored %s, client 0 %s (store every client the same way)", f.Name, m, format(d), format(f.Train[0]))
		}
		if err := d.Check(); err != nil {
			return fmt.Errorf("dataset %q: client %d: %w", f.Name, m, err)
		}
	}
	return nil
}

// format names the storage of d ("sparse" or "dense").
func format(d *Data) string {
	if d.Sparse != nil {
		return "sparse"
	}
	return "dense"
}
