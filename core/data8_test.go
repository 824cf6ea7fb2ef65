package core

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// bytesData is 3 samples of 4 features in 8-bit storage, and the same
// values in float64 storage.
func bytesData() (*Data, *Data) {
	x := []uint8{0, 1, 254, 255, 7, 0, 128, 3, 255, 255, 0, 9}
	y := []float64{0, 1, 2}
	d8 := NewBytesData(x, PixelLevels(), y, 3, 4)
	v := make([]float64, len(x))
	for k, b := range x {
		v[k] = float64(b) / 255
	}
	return d8, &Data{X: v, Y: y, N: 3, Features: 4}
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// Every reader of rows gives 8-bit data's values as the float64 storage
// holds them: Rows, Row, Dot, AddRow, Float64, Subset, Pooled, ToSparse.
func TestBytesDataReadsTheFloat64Values(t *testing.T) {
	d8, d64 := bytesData()
	if err := d8.Check(); err != nil || !d8.Is8Bit() || d64.Is8Bit() {
		t.Fatalf("check %v, 8-bit %v %v", err, d8.Is8Bit(), d64.Is8Bit())
	}
	buf := make([]float64, 8)
	if got := d8.Rows(1, 2, buf); !bitsEqual(got, d64.X[4:12]) || &got[0] != &buf[0] {
		t.Fatalf("Rows(1, 2) = %v, want %v decoded into the buffer", got, d64.X[4:12])
	}
	if got := d64.Rows(1, 2, nil); &got[0] != &d64.X[4] {
		t.Fatal("Rows of float64 data is not a view of X")
	}
	w := []float64{0.5, -2, 3, 1e-3}
	for i := range 3 {
		if !bitsEqual(d8.Row(i), d64.Row(i)) || math.Float64bits(d8.Dot(i, w)) != math.Float64bits(d64.Dot(i, w)) {
			t.Fatalf("row %d: %v · w = %v, want %v · w = %v", i, d8.Row(i), d8.Dot(i, w), d64.Row(i), d64.Dot(i, w))
		}
		a8, a64 := slices.Clone(w), slices.Clone(w)
		d8.AddRow(a8, 0.3, i)
		d64.AddRow(a64, 0.3, i)
		if !bitsEqual(a8, a64) {
			t.Fatalf("AddRow %d: %v, want %v", i, a8, a64)
		}
	}
	if f := d8.Float64(); !bitsEqual(f.X, d64.X) || f.Is8Bit() || d64.Float64() != d64 {
		t.Fatalf("Float64: %v, want %v", f.X, d64.X)
	}
	sub := d8.Subset([]int{2, 0})
	if !sub.Is8Bit() || !slices.Equal(sub.X8, []uint8{255, 255, 0, 9, 0, 1, 254, 255}) || !slices.Equal(sub.Y, []float64{2, 0}) {
		t.Fatalf("Subset: %v %v", sub.X8, sub.Y)
	}
	if sp, want := d8.ToSparse(), d64.ToSparse(); !bitsEqual(sp.Sparse.Val, want.Sparse.Val) || !slices.Equal(sp.Sparse.Ind, want.Sparse.Ind) || d8.Nonzeros() != 12 {
		t.Fatalf("ToSparse: %v, want %v", sp.Sparse.Val, want.Sparse.Val)
	}
	// Pooled keeps 8-bit storage when the clients share levels, and
	// decodes to float64 when they do not.
	f := &Federated{Name: "b", Features: 4, Train: []*Data{d8, sub}}
	if p := f.Pooled(false); !p.Is8Bit() || p.N != 5 || !slices.Equal(p.X8[12:], sub.X8) {
		t.Fatalf("pooled: 8-bit %v, %d samples", p.Is8Bit(), p.N)
	}
	other := NewBytesData(slices.Clone(sub.X8), AffineLevels(1, 0), sub.Y, 2, 4)
	f.Train = []*Data{d8, other}
	if p := f.Pooled(false); p.Is8Bit() || !bitsEqual(p.X[:12], d64.X) || p.X[12] != 255 {
		t.Fatalf("pooled over different levels: 8-bit %v, values %v", p.Is8Bit(), p.X)
	}
	if err := f.Check(); err != nil {
		t.Fatal(err)
	}
}

// Check refuses inconsistent 8-bit data with a message naming the problem.
func TestBytesDataCheck(t *testing.T) {
	bad := AffineLevels(1, 0)
	bad[7] = math.Inf(1)
	for _, tc := range []struct {
		d    *Data
		want string
	}{
		{NewBytesData(make([]uint8, 5), PixelLevels(), make([]float64, 2), 2, 3), "data shape mismatch: 3 features × 2 samples but 5 bytes and 2 labels"},
		{NewBytesData(make([]uint8, 6), bad, make([]float64, 2), 2, 3), "8-bit data: the level of byte 7 is not finite (+Inf)"},
		{&Data{X: make([]float64, 6), X8: make([]uint8, 6), Levels: PixelLevels(), Y: make([]float64, 2), N: 2, Features: 3}, "data is both 8-bit and float64"},
	} {
		if err := tc.d.Check(); err == nil || err.Error() != tc.want {
			t.Errorf("Check: %v, want %q", err, tc.want)
		}
	}
	f := &Federated{Name: "mixed", Features: 4, Train: []*Data{NewSparseData(make([]float64, 4), []float64{0}, 1, 4)}}
	d8, _ := bytesData()
	f.Train = append(f.Train, d8)
	if err := f.Check(); err == nil || !strings.Contains(err.Error(), "client 1 is stored 8-bit dense, client 0 sparse") {
		t.Fatalf("mixed storage: %v", err)
	}
}
