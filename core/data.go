package core

import (
	"fmt"
	"math"
)

// Data is one client's samples: a design matrix, stored densely as float64s
// (row-major X), densely as bytes (row-major X8, read through Levels: see
// data8.go) or in compressed rows (Sparse), and labels (regression
// targets, or class indices 0..Classes-1 stored as floats). Exactly one of
// X, X8 and Sparse is used: Sparse != nil marks sparse data, whose memory
// is O(nonzeros); Levels != nil marks 8-bit data, one byte per feature.
// Code that reads dense rows in either dense storage uses Rows.
type Data struct {
	X        []float64 // N×Features, row-major; nil for sparse or 8-bit data
	X8       []uint8   // N×Features bytes, row-major; nil unless 8-bit
	Levels   *Levels   // value of each byte of X8; nil unless 8-bit
	Sparse   *CSR      // compressed rows; nil for dense data
	Y        []float64 // N labels
	N        int
	Features int
}

// Row returns sample i's features; only for dense data (see Dot and AddRow
// for code that handles every format). For float64 storage it is a view of
// X; for 8-bit storage a fresh decoded copy (loops use Rows with a buffer).
func (d *Data) Row(i int) []float64 {
	if d.Levels != nil {
		return d.Rows(i, 1, make([]float64, d.Features))
	}
	return d.X[i*d.Features : (i+1)*d.Features]
}

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
	if d.Levels != nil {
		return d.check8()
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
	if len(parts) > 0 && parts[0].Levels != nil && sameLevels(parts) {
		out.Levels = parts[0].Levels
	}
	for _, d := range parts {
		switch {
		case out.Sparse != nil:
			for i := range d.N {
				out.Sparse.AppendRow(d.Sparse.Row(i))
			}
		case out.Levels != nil:
			out.X8 = append(out.X8, d.X8...)
		case d.Levels != nil:
			out.X = append(out.X, d.Rows(0, d.N, make([]float64, len(d.X8)))...)
		default:
			out.X = append(out.X, d.X...)
		}
		out.Y = append(out.Y, d.Y...)
		out.N += d.N
	}
	return out
}

// sameLevels reports whether every part is 8-bit with the same levels.
func sameLevels(parts []*Data) bool {
	for _, d := range parts {
		if d.Levels == nil || *d.Levels != *parts[0].Levels {
			return false
		}
	}
	return true
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

// format names the storage of d ("sparse", "8-bit dense" or "dense").
func format(d *Data) string {
	switch {
	case d.Sparse != nil:
		return "sparse"
	case d.Levels != nil:
		return "8-bit dense"
	}
	return "dense"
}
