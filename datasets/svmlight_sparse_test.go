package datasets

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/fedlab/fedlab/core"
)

// fixtureLines is the text compressed in testdata/lines.bz2 (made with
// Python's bz2 module: the standard library has no bzip2 writer).
func fixtureLines() string {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "%d %d:%g %d:%g\n", i%2, i%7+1, float64(i)*0.5+1, i%7+9, -float64(i)*0.25-1)
	}
	return b.String()
}

func writeBytes(t *testing.T, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gzipped(t *testing.T, s string) []byte {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(s))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSVMLightCompressedEqualsPlain reads the same text plain, gzip, bzip2,
// xz and zstd compressed (detected by magic number, not by name) and
// compares the sparse rows with a hand check of line 1.
func TestSVMLightCompressedEqualsPlain(t *testing.T) {
	text := fixtureLines()
	bz, err := os.ReadFile("testdata/lines.bz2")
	if err != nil {
		t.Fatal(err)
	}
	var xzb, zsb bytes.Buffer
	xw, err := xz.NewWriter(&xzb)
	if err != nil {
		t.Fatal(err)
	}
	xw.Write([]byte(text))
	xw.Close()
	zw, _ := zstd.NewWriter(&zsb)
	zw.Write([]byte(text))
	zw.Close()
	files := map[string][]byte{"a.svm": []byte(text), "a.svm.gz": gzipped(t, text), "a.svm.bz2": bz, "a.xz": xzb.Bytes(), "a.zst": zsb.Bytes()}
	plain, err := LoadSVMLight(writeBytes(t, "plain.svm", []byte(text)), 0, false)
	if err != nil {
		t.Fatal(err)
	}
	ind, val := plain.Data.Sparse.Row(0)
	if plain.Data.N != 300 || plain.Data.Features != 15 || fmt.Sprint(ind, val) != "[0 8] [1 -1]" {
		t.Fatalf("plain: N=%d F=%d row 0 %v %v", plain.Data.N, plain.Data.Features, ind, val)
	}
	for name, content := range files {
		got, err := LoadSVMLight(writeBytes(t, name, content), 0, false)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got.Data, plain.Data) {
			t.Errorf("%s: data differ from the plain file", name)
		}
	}
}

// TestSVMLightDamagedCompressedFilesNameFileAndLine checks that a truncated
// gzip file and a corrupted or truncated bzip2 file fail with the file name
// and a line number, not a panic or a silent short read.
func TestSVMLightDamagedCompressedFilesNameFileAndLine(t *testing.T) {
	text := fixtureLines()
	gz := gzipped(t, text)
	bz, err := os.ReadFile("testdata/lines.bz2")
	if err != nil {
		t.Fatal(err)
	}
	corrupt := bytes.Clone(bz)
	corrupt[len(corrupt)/2] ^= 0x55
	cases := map[string][]byte{
		"truncated.svm.gz":  gz[:len(gz)/2],
		"truncated.svm.bz2": bz[:len(bz)/2],
		"corrupt.svm.bz2":   corrupt,
	}
	for name, content := range cases {
		p := writeBytes(t, name, content)
		_, err := LoadSVMLight(p, 0, false)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if ok, _ := regexp.MatchString(regexp.QuoteMeta(p)+`:[0-9]+: `, err.Error()); !ok {
			t.Errorf("%s: error %q does not name the file and line", name, err)
		}
	}
}

// TestSVMLightRefusesBadLines covers the checks added with sparse reading:
// multi-label lines, a missing label, and indices beyond int, beyond
// fedlab's feature limit or beyond features.
func TestSVMLightRefusesBadLines(t *testing.T) {
	cases := []struct{ content, want string }{
		{"1 1:1\n1,3 2:1\n", `2: multi-label line (labels "1,3")`},
		{"1:1 2:1\n", `1: missing label`},
		{"1 99999999999999999999:1\n", `1: bad feature "99999999999999999999:1": index: value out of range`},
		{fmt.Sprintf("1 %d:1\n", core.MaxFeatures+1), `index beyond fedlab's limit`},
		{"1 2:1 2:0\n", `index not greater than the previous 2`},
	}
	for _, c := range cases {
		p := writeFile(t, "bad.svm", c.content)
		_, err := LoadSVMLight(p, 0, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.content, err, c.want)
		}
	}
	if _, err := ReadSVMLight(strings.NewReader("1 1:1\n"), "x", core.MaxFeatures+1, false); err == nil {
		t.Error("features beyond the limit accepted")
	}
}

// TestSVMLightSparseEqualsDense: the two formats hold the same numbers.
func TestSVMLightSparseEqualsDense(t *testing.T) {
	p := writeFile(t, "a.svm", fixtureLines())
	raw := map[string]any{"path": p, "classes": 2, "clients": 5, "test_fraction": 0.2}
	sp := build(t, "svmlight", raw)
	raw["format"] = "dense"
	de := build(t, "svmlight", raw)
	if !sp.IsSparse() || de.IsSparse() {
		t.Fatal("formats not honoured")
	}
	for m := range sp.Train {
		for _, pair := range [][2]*core.Data{{sp.Train[m], de.Train[m]}, {sp.Test[m], de.Test[m]}} {
			if fmt.Sprint(pair[0].ToDense().X, pair[0].Y) != fmt.Sprint(pair[1].X, pair[1].Y) {
				t.Fatalf("client %d: sparse and dense data differ", m)
			}
		}
	}
}

// TestScalingFittedOnTrainAppliedToTest checks maxabs (per-feature maxima
// of the training rows only), unit_norm and standardize.
func TestScalingFittedOnTrainAppliedToTest(t *testing.T) {
	mk := func(x []float64, n int) *core.Data { return &core.Data{X: x, Y: make([]float64, n), N: n, Features: 2} }
	f := &core.Federated{Features: 2,
		Train: []*core.Data{mk([]float64{2, 0, -4, 1}, 2), mk([]float64{1, 0.5}, 1)},
		Test:  []*core.Data{mk([]float64{8, 3}, 1), mk([]float64{0, 0}, 1)}}
	sparse := &core.Federated{Features: 2, Train: []*core.Data{f.Train[0].ToSparse(), f.Train[1].ToSparse()},
		Test: []*core.Data{f.Test[0].ToSparse(), f.Test[1].ToSparse()}}
	if err := Scale(sparse, ScaleMaxAbs); err != nil {
		t.Fatal(err)
	}
	// maxima over training rows: 4 and 1
	want := [][]float64{{0.5, 0, -1, 1}, {0.25, 0.5}, {2, 3}, {0, 0}}
	for k, d := range append(append([]*core.Data(nil), sparse.Train...), sparse.Test...) {
		if fmt.Sprint(d.ToDense().X) != fmt.Sprint(want[k]) {
			t.Errorf("maxabs part %d: %v, want %v", k, d.ToDense().X, want[k])
		}
	}
	if err := Scale(sparse, ScaleUnitNorm); err != nil {
		t.Fatal(err)
	}
	_, v := sparse.Test[0].Sparse.Row(0)
	if math.Abs(math.Hypot(v[0], v[1])-1) > 1e-15 || math.Abs(v[0]/v[1]-2.0/3) > 1e-15 {
		t.Errorf("unit_norm row %v", v)
	}
	if err := Scale(sparse, ScaleStandardize); err == nil || !strings.Contains(err.Error(), "format") {
		t.Errorf("standardize on sparse data: %v", err)
	}
	if err := Scale(f, ScaleStandardize); err != nil {
		t.Fatal(err)
	}
	// training feature 0 is {2, -4, 1}: mean −1/3, population sd
	// √(((7/3)² + (11/3)² + (4/3)²)/3) = √(186/27)
	mean, sd := -1.0/3, math.Sqrt(186.0/27)
	if got := f.Test[0].X[0]; math.Abs(got-(8-mean)/sd) > 1e-14 {
		t.Errorf("standardized test value %g, want %g", got, (8-mean)/sd)
	}
	s := f.Train[0].X[0] + f.Train[0].X[2] + f.Train[1].X[0]
	if math.Abs(s) > 1e-14 {
		t.Errorf("standardized training mean %g", s/3)
	}
}

// TestHeartScaleIfInstalled reads Debian's liblinear-tools copy of
// heart_scale when it is installed (270 samples, 13 features, ±1 labels).
func TestHeartScaleIfInstalled(t *testing.T) {
	const path = "/usr/share/doc/liblinear-tools/examples/heart_scale"
	if _, err := os.Stat(path); err != nil {
		t.Skip("liblinear-tools is not installed")
	}
	f := build(t, "svmlight", map[string]any{"path": path, "classes": 2, "clients": 5, "scaling": "maxabs"})
	if f.Samples() != 270 || f.Features != 13 || !f.IsSparse() {
		t.Fatalf("heart_scale: %d samples, %d features", f.Samples(), f.Features)
	}
	for _, d := range f.Train {
		for _, v := range d.Sparse.Val {
			if math.Abs(v) > 1 {
				t.Fatalf("maxabs-scaled value %g", v)
			}
		}
	}
}

// TestSVMLightHugeIndexStaysSparse reads a line with feature index 2³⁰
// (the limit): the data hold one stored value, not a 2³⁰-wide row.
func TestSVMLightHugeIndexStaysSparse(t *testing.T) {
	tab, err := ReadSVMLight(strings.NewReader(fmt.Sprintf("1 3:0.5 %d:2\n-1 1:1\n", core.MaxFeatures)), "huge.svm", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	d := tab.Data
	if d.Features != core.MaxFeatures || d.Nonzeros() != 3 || d.X != nil {
		t.Fatalf("features %d, nonzeros %d, dense %v", d.Features, d.Nonzeros(), d.X != nil)
	}
	if err := d.Check(); err != nil {
		t.Fatal(err)
	}
	if err := tab.densify(); err == nil || !strings.Contains(err.Error(), "GiB") {
		t.Errorf("dense conversion of 2 × 2³⁰ floats: %v", err)
	}
}
