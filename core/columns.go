package core

import (
	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/internal/hugepages"
)

// columns is a column-major copy of the pooled training rows, each row i
// scaled by s[i]: dense data as an n×d column-major array, sparse data in
// compressed columns (O(nonzeros)). Coordinate descent reads it one
// column at a time.
type columns struct {
	n     int
	dense []float64 // column j is dense[j·n : (j+1)·n]; nil for sparse data
	ptr   []int     // compressed columns: column j is rows ind[ptr[j]:ptr[j+1]] ...
	ind   []int32
	val   []float64 // ... with values val[ptr[j]:ptr[j+1]]
}

// transposeRows is the block of rows newColumns transposes at a time
// (32 rows of 1024 features are 256 KiB).
const transposeRows = 32

// newColumns copies the training rows of f (clients in order) scaled by s.
func newColumns(f *Federated, s []float64) columns {
	n, d := f.Samples(), f.Features
	c := columns{n: n}
	if !f.IsSparse() {
		c.dense = hugepages.Floats(n * d)
		buf := make([]float64, 0, transposeRows*d) // 8-bit rows decoded (Data.Rows)
		i := 0
		for _, part := range f.Train {
			// Transpose in blocks of transposeRows rows, so that the rows
			// read stay in cache while each column's stretch is written.
			for r0 := 0; r0 < part.N; r0 += transposeRows {
				rows := min(transposeRows, part.N-r0)
				x := part.Rows(r0, rows, buf[:rows*d])
				for j := range d {
					col := c.dense[j*n+i : j*n+i+rows]
					for r := range col {
						col[r] = s[i+r] * x[r*d+j]
					}
				}
				i += rows
			}
		}
		return c
	}
	c.ptr = make([]int, d+1)
	for _, part := range f.Train {
		for _, j := range part.Sparse.Ind {
			c.ptr[j+1]++
		}
	}
	for j := range d {
		c.ptr[j+1] += c.ptr[j]
	}
	next := append([]int(nil), c.ptr[:d]...)
	c.ind = make([]int32, c.ptr[d])
	c.val = make([]float64, c.ptr[d])
	i := 0
	for _, part := range f.Train {
		for r := range part.N {
			ind, val := part.Sparse.Row(r)
			for k, j := range ind {
				c.ind[next[j]] = int32(i)
				c.val[next[j]] = s[i] * val[k]
				next[j]++
			}
			i++
		}
	}
	return c
}

// dot returns column j · r.
func (c *columns) dot(j int, r []float64) float64 {
	if c.dense != nil {
		return floats.Dot(c.dense[j*c.n:(j+1)*c.n], r)
	}
	sum := 0.0
	for k := c.ptr[j]; k < c.ptr[j+1]; k++ {
		sum += c.val[k] * r[c.ind[k]]
	}
	return sum
}

// addScaled adds a·(column j) to r.
func (c *columns) addScaled(r []float64, a float64, j int) {
	if c.dense != nil {
		floats.AddScaled(r, a, c.dense[j*c.n:(j+1)*c.n])
		return
	}
	for k := c.ptr[j]; k < c.ptr[j+1]; k++ {
		r[c.ind[k]] += a * c.val[k]
	}
}

// sumSq returns the squared norm of column j.
func (c *columns) sumSq(j int) float64 {
	if c.dense != nil {
		col := c.dense[j*c.n : (j+1)*c.n]
		return floats.Dot(col, col)
	}
	sum := 0.0
	for _, v := range c.val[c.ptr[j]:c.ptr[j+1]] {
		sum += v * v
	}
	return sum
}
