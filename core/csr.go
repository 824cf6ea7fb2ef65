package core

import (
	"fmt"
	"math"
)

// MaxFeatures is the largest feature count fedlab accepts (2³⁰): sparse
// column indices are stored as int32, and a model of that many float64
// weights already takes 8 GiB.
const MaxFeatures = 1 << 30

// CSR is a sparse matrix in compressed-row form: row i's nonzeros are
// Val[Ptr[i]:Ptr[i+1]] in the columns Ind[Ptr[i]:Ptr[i+1]], which are
// strictly increasing. Memory is O(rows + nonzeros).
type CSR struct {
	Ptr []int     // row starts; len = rows + 1, Ptr[0] = 0
	Ind []int32   // column of each nonzero
	Val []float64 // value of each nonzero
}

// Row returns row i's columns and values (shared with the matrix).
func (s *CSR) Row(i int) ([]int32, []float64) {
	a, b := s.Ptr[i], s.Ptr[i+1]
	return s.Ind[a:b], s.Val[a:b]
}

// AppendRow adds a row with the given columns (strictly increasing) and values.
func (s *CSR) AppendRow(ind []int32, val []float64) {
	if len(s.Ptr) == 0 {
		s.Ptr = append(s.Ptr, 0)
	}
	s.Ind = append(s.Ind, ind...)
	s.Val = append(s.Val, val...)
	s.Ptr = append(s.Ptr, len(s.Ind))
}

// check verifies the structure for rows×cols and that the values are finite.
func (s *CSR) check(rows, cols int) error {
	if len(s.Ptr) != rows+1 || s.Ptr[0] != 0 || s.Ptr[rows] != len(s.Ind) || len(s.Ind) != len(s.Val) {
		return fmt.Errorf("sparse data shape mismatch: %d samples but %d row pointers, %d indices and %d values", rows, len(s.Ptr), len(s.Ind), len(s.Val))
	}
	for i := range rows {
		if s.Ptr[i+1] < s.Ptr[i] {
			return fmt.Errorf("sparse data: sample %d: row pointers decrease", i+1)
		}
		ind, val := s.Row(i)
		for k, j := range ind {
			switch {
			case j < 0 || int(j) >= cols:
				return fmt.Errorf("sparse data: sample %d: feature %d outside 1..%d", i+1, int(j)+1, cols)
			case k > 0 && j <= ind[k-1]:
				return fmt.Errorf("sparse data: sample %d: feature indices not strictly increasing at feature %d", i+1, int(j)+1)
			case math.IsNaN(val[k]) || math.IsInf(val[k], 0):
				return fmt.Errorf("sample %d feature %d is not finite", i+1, int(j)+1)
			}
		}
	}
	return nil
}

// NewSparseData stores rows×features dense data x (row-major) in CSR form,
// keeping only the nonzeros.
func NewSparseData(x, y []float64, n, features int) *Data {
	s := &CSR{Ptr: make([]int, 1, n+1)}
	for i := range n {
		for j, v := range x[i*features : (i+1)*features] {
			if v != 0 {
				s.Ind = append(s.Ind, int32(j))
				s.Val = append(s.Val, v)
			}
		}
		s.Ptr = append(s.Ptr, len(s.Ind))
	}
	return &Data{Sparse: s, Y: append([]float64(nil), y...), N: n, Features: features}
}

// ToSparse returns d in CSR form (d itself if it is already sparse).
func (d *Data) ToSparse() *Data {
	if d.Sparse != nil {
		return d
	}
	return NewSparseData(d.Float64().X, d.Y, d.N, d.Features)
}

// ToDense returns d stored densely (d itself if it is already dense, in
// float64s or bytes). It needs N×Features floats.
func (d *Data) ToDense() *Data {
	if d.Sparse == nil {
		return d
	}
	out := &Data{X: make([]float64, d.N*d.Features), Y: append([]float64(nil), d.Y...), N: d.N, Features: d.Features}
	for i := range d.N {
		ind, val := d.Sparse.Row(i)
		row := out.Row(i)
		for k, j := range ind {
			row[j] = val[k]
		}
	}
	return out
}

// Nonzeros is the number of stored feature values (N×Features when dense).
func (d *Data) Nonzeros() int {
	if d.Sparse != nil {
		return len(d.Sparse.Val)
	}
	if d.Levels != nil {
		return len(d.X8)
	}
	return len(d.X)
}

// Subset returns a copy of the rows idx of d, in that order, in d's format.
func (d *Data) Subset(idx []int) *Data {
	out := &Data{Y: make([]float64, 0, len(idx)), N: len(idx), Features: d.Features}
	if d.Sparse != nil {
		nnz := 0
		for _, i := range idx {
			nnz += d.Sparse.Ptr[i+1] - d.Sparse.Ptr[i]
		}
		out.Sparse = &CSR{Ptr: make([]int, 1, len(idx)+1), Ind: make([]int32, 0, nnz), Val: make([]float64, 0, nnz)}
		for _, i := range idx {
			out.Sparse.AppendRow(d.Sparse.Row(i))
			out.Y = append(out.Y, d.Y[i])
		}
		return out
	}
	if d.Levels != nil {
		out.Levels = d.Levels
		out.X8 = make([]uint8, 0, len(idx)*d.Features)
		for _, i := range idx {
			out.X8 = append(out.X8, d.X8[i*d.Features:(i+1)*d.Features]...)
			out.Y = append(out.Y, d.Y[i])
		}
		return out
	}
	out.X = make([]float64, 0, len(idx)*d.Features)
	for _, i := range idx {
		out.X = append(out.X, d.Row(i)...)
		out.Y = append(out.Y, d.Y[i])
	}
	return out
}

// Dot returns xᵢᵀw for row i of d (w has at least Features entries).
func (d *Data) Dot(i int, w []float64) float64 {
	s := 0.0
	if d.Sparse != nil {
		ind, val := d.Sparse.Row(i)
		for k, j := range ind {
			s += val[k] * w[j]
		}
		return s
	}
	if lv := d.Levels; lv != nil {
		for j, b := range d.X8[i*d.Features : (i+1)*d.Features] {
			s += lv[b] * w[j]
		}
		return s
	}
	for j, v := range d.Row(i) {
		s += v * w[j]
	}
	return s
}

// AddRow adds a·xᵢ to dst (length at least Features).
func (d *Data) AddRow(dst []float64, a float64, i int) {
	if d.Sparse != nil {
		ind, val := d.Sparse.Row(i)
		for k, j := range ind {
			dst[j] += a * val[k]
		}
		return
	}
	if lv := d.Levels; lv != nil {
		for j, b := range d.X8[i*d.Features : (i+1)*d.Features] {
			dst[j] += a * lv[b]
		}
		return
	}
	for j, v := range d.Row(i) {
		dst[j] += a * v
	}
}
