package datasets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"codeberg.org/sbinet/npyio/npy"
	"codeberg.org/sbinet/npyio/npz"
)

// npzArrays returns the table as NumPy arrays: "x" (n×d uint8 pixels),
// "xf" (n×d float64 features), "y" (int64 labels) and, with writers, "c"
// (int32 writer numbers).
func npzArrays(tb table, pix [][]byte) map[string]any {
	y := make([]int64, len(tb.Y))
	for i, v := range tb.Y {
		y[i] = int64(v)
	}
	m := map[string]any{"x": pix, "xf": tb.X, "y": y}
	if tb.Client != nil {
		c := make([]int32, len(tb.Client))
		for i, w := range tb.Client {
			c[i] = int32(w[1] - '0')
		}
		m["c"] = c
	}
	return m
}

func writeNPZ(t *testing.T, path string, arrays map[string]any) {
	t.Helper()
	if err := npz.Write(path, arrays); err != nil {
		t.Fatal(err)
	}
}

func writeNPY(t *testing.T, path string, v any) {
	t.Helper()
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if err := npy.Write(fh, v); err != nil {
		t.Fatal(err)
	}
}

// TestNPZEqualsCSV: uint8 images in an .npz archive, and float64
// features as .npy files in a directory, give value for value the
// dataset of the same rows written as CSV, for every partition; with a
// writer array, the natural partition equals the CSV's client column and
// keeps each writer's rows together and in order.
func TestNPZEqualsCSV(t *testing.T) {
	tb, pix := byteTable(30, 6, 4, 5)
	dir := t.TempDir()
	archive := filepath.Join(dir, "data.npz")
	arrays := npzArrays(tb, pix)
	writeNPZ(t, archive, arrays)
	writeNPY(t, filepath.Join(dir, "feat.npy"), arrays["xf"])
	writeNPY(t, filepath.Join(dir, "lab.npy"), arrays["y"])
	plain := table{X: tb.X, Y: tb.Y}
	for _, raw := range partitionCases {
		want := plain.CSVTwin(t, raw)
		for _, src := range []map[string]any{{"path": archive}, {"path": dir, "x": "feat.npy", "y": "lab"}} {
			args := map[string]any{}
			for k, v := range raw {
				args[k] = v
			}
			for k, v := range src {
				args[k] = v
			}
			sameFederated(t, build(t, "npz", args), want)
		}
	}
	natural := map[string]any{"classes": 4, "partition": "natural", "client": "c", "path": archive}
	f := build(t, "npz", natural)
	sameFederated(t, f, tb.CSVTwin(t, map[string]any{"classes": 4}))
	naturalKeepsWriters(t, f, tb)
	natural["test_fraction"] = 0.3
	sameFederated(t, build(t, "npz", natural), tb.CSVTwin(t, map[string]any{"classes": 4, "test_fraction": 0.3}))
}

// TestNaturalSubsetAndTestPairing: clients = K keeps K writers in file
// order; a test split's rows go to the client of their writer.
func TestNaturalSubsetAndTestPairing(t *testing.T) {
	tb, pix := byteTable(30, 6, 4, 5)
	arrays := npzArrays(tb, pix)
	testTab, testPix := byteTable(10, 6, 4, 5)
	ta := npzArrays(testTab, testPix)
	arrays["xt"], arrays["yt"], arrays["ct"] = ta["x"], ta["y"], ta["c"]
	archive := filepath.Join(t.TempDir(), "d.npz")
	writeNPZ(t, archive, arrays)
	f := build(t, "npz", map[string]any{"path": archive, "classes": 4, "partition": "natural", "client": "c", "clients": 3, "seed": 4,
		"x_test": "xt", "y_test": "yt", "client_test": "ct"})
	if len(f.Train) != 3 {
		t.Fatalf("%d clients, want 3", len(f.Train))
	}
	writerOf := func(x []float64) string {
		return tb.Client[rowOf(t, tb, x)]
	}
	last := ""
	for m, d := range f.Train {
		w := writerOf(d.Row(0))
		if w <= last {
			t.Fatalf("client %d is writer %s after %s: not in file order", m, w, last)
		}
		last = w
		n := 0
		for i, c := range tb.Client {
			if c == w {
				if d.Row(n)[0] != tb.X[i][0] {
					t.Fatalf("client %d row %d is not row %d", m, n, i)
				}
				n++
			}
		}
		if d.N != n {
			t.Fatalf("client %d has %d rows, writer %s %d", m, d.N, w, n)
		}
		k := 0
		for i, c := range testTab.Client {
			if c == w {
				if f.Test[m].Row(k)[0] != testTab.X[i][0] {
					t.Fatalf("client %d test row %d is not test row %d", m, k, i)
				}
				k++
			}
		}
		if f.Test[m].N != k {
			t.Fatalf("client %d has %d test rows, writer %s %d", m, f.Test[m].N, w, k)
		}
	}
}

func TestNPZErrors(t *testing.T) {
	tb, pix := byteTable(8, 4, 3, 0)
	dir := t.TempDir()
	archive := filepath.Join(dir, "d.npz")
	arrays := npzArrays(tb, pix)
	arrays["short"] = arrays["y"].([]int64)[:7]
	arrays["cplx"] = []complex64{1, 2, 3, 4, 5, 6, 7, 8}
	arrays["one"] = make([]int32, 8)
	arrays["big"] = []int64{0, 1, 2, 3, 0, 1, 2, 9}
	writeNPZ(t, archive, arrays)
	writeNPY(t, filepath.Join(dir, "x.npy"), pix)
	writeNPY(t, filepath.Join(dir, "y.npy"), arrays["y"])
	b, _ := os.ReadFile(filepath.Join(dir, "x.npy"))
	os.WriteFile(filepath.Join(dir, "x.npy"), b[:len(b)-3], 0o644)
	for _, c := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"y": "nope"}, archive + ": no array \"nope\" (arrays: "},
		{map[string]any{"y": "short"}, archive + ":short: labels of shape [7], want (8,) like the 8 rows of " + archive + ":x"},
		{map[string]any{"y": "cplx"}, archive + ":cplx: dtype \"<c8\" is not numeric"},
		{map[string]any{"y": "big"}, archive + ":big: row 3: label 3 is not a class in 0..2 (classes = 3)"},
		{map[string]any{"client": "one", "partition": "natural"}, "the data name one writer (\"0\"): a natural partition needs at least two"},
		{map[string]any{"client": "one"}, "client = \"one\" names each row's writer, which only partition = \"natural\" uses"},
		{map[string]any{"partition": "natural"}, "partition = \"natural\" needs the writer of each row: name the array of each row's writer with client = NAME"},
		{map[string]any{"path": dir}, filepath.Join(dir, "x.npy") + ": the header declares shape [8 4] of |u1 (32 bytes), but 29 bytes follow it: truncated"},
		{map[string]any{"path": filepath.Join(dir, "y.npy")}, "not a .npz archive"},
	} {
		args := map[string]any{"path": archive, "classes": 3}
		for k, v := range c.raw {
			args[k] = v
		}
		if err := buildErr(t, "npz", args); !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.raw, err, c.want)
		}
	}
	a := mustValidate(t, "npz", map[string]any{"path": archive, "classes": 3})
	if got, what, _ := a.Spec().Size(a); got != 8*4+8*8+8*4+8*16 || what != "x = [8 4]" {
		t.Errorf("declared %d (%q)", got, what)
	}
}

// TestNaturalClientsShareTheTable: when a natural partition's clients use
// every row, each client's bytes are a capped view of the table read (the
// clients lie end to end in one array), not a second copy.
func TestNaturalClientsShareTheTable(t *testing.T) {
	tb, pix := byteTable(30, 6, 4, 5)
	archive := filepath.Join(t.TempDir(), "d.npz")
	writeNPZ(t, archive, npzArrays(tb, pix))
	f := build(t, "npz", map[string]any{"path": archive, "classes": 4, "partition": "natural", "client": "c"})
	for m := 1; m < len(f.Train); m++ {
		a, b := f.Train[m-1].X8, f.Train[m].X8
		if cap(a) != len(a) || uintptr(unsafe.Pointer(unsafe.SliceData(a)))+uintptr(len(a)) != uintptr(unsafe.Pointer(unsafe.SliceData(b))) {
			t.Fatalf("clients %d and %d do not lie end to end in one capped array", m-1, m)
		}
	}
}
