package core

import (
	"fmt"
	"math"
)

// 8-bit storage. Image data (grey levels, RGB planes) arrive as bytes; held
// as float64 they would take eight times their size (Fashion-MNIST's 60,000
// images: 376 MB instead of 47 MB). Data with Levels != nil keep the bytes
// in X8 and a table of 256 values: feature (i, j) is Levels[X8[i·F+j]].
// Readers of rows decode them through Rows (or Row, Dot, AddRow), which
// look each byte up in the table, so the values a loss computes with are
// the float64s the table holds — for PixelLevels exactly float64(b)/255, the
// values the float64 storage of pixels has always held.

// Levels maps the bytes of 8-bit data to feature values: byte b stands for
// Levels[b].
type Levels [256]float64

// PixelLevels returns the levels b/255 (computed as float64(b)/255): pixel
// bytes scaled to [0, 1].
func PixelLevels() *Levels {
	var lv Levels
	for b := range lv {
		lv[b] = float64(b) / 255
	}
	return &lv
}

// AffineLevels returns the levels offset + scale·b (computed as
// float64(b)*scale + offset), a declared affine map of the bytes.
func AffineLevels(scale, offset float64) *Levels {
	var lv Levels
	for b := range lv {
		lv[b] = float64(b)*scale + offset
	}
	return &lv
}

// NewBytesData stores n samples of width features as bytes x (row-major,
// n×features, kept, not copied) read through the levels lv, with labels y
// (kept).
func NewBytesData(x []uint8, lv *Levels, y []float64, n, features int) *Data {
	return &Data{X8: x, Levels: lv, Y: y, N: n, Features: features}
}

// Is8Bit reports whether d stores its features as bytes (X8 and Levels).
func (d *Data) Is8Bit() bool { return d.Levels != nil }

// Rows returns the features of the n samples start..start+n−1, row-major:
// for float64 storage a view of X (buf unused), for 8-bit storage the rows
// decoded into buf (which must hold n×Features values). Dense data only.
// This is the one way the losses read dense rows.
func (d *Data) Rows(start, n int, buf []float64) []float64 {
	F := d.Features
	if d.Levels == nil {
		return d.X[start*F : (start+n)*F]
	}
	out := buf[:n*F]
	lv := d.Levels
	for k, b := range d.X8[start*F : (start+n)*F] {
		out[k] = lv[b]
	}
	return out
}

// Float64 returns d with 8-bit features decoded into float64 storage (the
// same values), or d itself if it is not 8-bit.
func (d *Data) Float64() *Data {
	if d.Levels == nil {
		return d
	}
	x := make([]float64, len(d.X8))
	return &Data{X: d.Rows(0, d.N, x), Y: d.Y, N: d.N, Features: d.Features}
}

// check8 verifies the shapes of 8-bit data and that every level is finite.
func (d *Data) check8() error {
	if d.X != nil {
		return fmt.Errorf("data is both 8-bit and float64")
	}
	if len(d.X8) != d.N*d.Features || len(d.Y) != d.N {
		return fmt.Errorf("data shape mismatch: %d features × %d samples but %d bytes and %d labels", d.Features, d.N, len(d.X8), len(d.Y))
	}
	for b, v := range d.Levels {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("8-bit data: the level of byte %d is not finite (%g)", b, v)
		}
	}
	return nil
}
