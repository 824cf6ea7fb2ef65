package datasets

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const svmFixture = `# a comment line
1 qid:7 1:0.5 3:-2 # trailing comment
-1 qid:7 2:1

+1 qid:3 4:2.5
-1 qid:9
`

func TestSVMLightQid(t *testing.T) {
	p := writeFile(t, "tiny.svm", svmFixture)
	f := build(t, "svmlight", map[string]any{"path": p, "classes": 2, "clients": 99, "format": "dense"})
	if f.Name != "tiny.svm" || f.Features != 4 || f.Classes != 2 || f.Clients() != 3 || f.Test != nil {
		t.Fatalf("name %q features %d classes %d clients %d", f.Name, f.Features, f.Classes, f.Clients())
	}
	want := [][]float64{{0.5, 0, -2, 0, 0, 1, 0, 0}, {0, 0, 0, 2.5}, {0, 0, 0, 0}}
	wantY := [][]float64{{1, 0}, {1}, {0}}
	for m, d := range f.Train {
		if !reflect.DeepEqual(d.X, want[m]) || !reflect.DeepEqual(d.Y, wantY[m]) {
			t.Errorf("client %d: X=%v Y=%v, want %v %v", m, d.X, d.Y, want[m], wantY[m])
		}
	}
	tab, err := LoadSVMLight(p, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tab.ClientIDs, []string{"7", "3", "9"}) || !reflect.DeepEqual(tab.Lines, []int{2, 3, 5, 6}) {
		t.Errorf("client ids %v lines %v", tab.ClientIDs, tab.Lines)
	}
	// Regression keeps the raw labels; features can be padded.
	f = build(t, "svmlight", map[string]any{"path": p, "features": 6, "format": "dense"})
	if f.Features != 6 || f.Train[0].Y[1] != -1 || f.Train[0].X[2] != -2 {
		t.Errorf("regression: features %d Y %v X %v", f.Features, f.Train[0].Y, f.Train[0].X)
	}
}

func TestSVMLightZeroBasedAndPartition(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		b.WriteString([]string{"0 0:1 2:3\n", "2 1:-1\n", "1 0:2\n"}[i%3])
	}
	p := writeFile(t, "z.svm", b.String())
	f := build(t, "svmlight", map[string]any{"path": p, "zero_based": true, "classes": 3, "clients": 4, "test_fraction": 0.2, "format": "dense"})
	if f.Features != 3 || f.Clients() != 4 || len(f.Test) != 4 {
		t.Fatalf("features %d clients %d", f.Features, f.Clients())
	}
	if f.Samples() != 32 || f.Pooled(true).N != 8 {
		t.Errorf("train %d test %d, want 32 and 8", f.Samples(), f.Pooled(true).N)
	}
	for _, d := range append(f.Train, f.Test...) {
		for i := range d.N {
			x := d.Row(i)
			ok := (d.Y[i] == 0 && x[0] == 1 && x[2] == 3) || (d.Y[i] == 2 && x[1] == -1) || (d.Y[i] == 1 && x[0] == 2)
			if !ok {
				t.Fatalf("row %v label %g scrambled", x, d.Y[i])
			}
		}
	}
	again := build(t, "svmlight", map[string]any{"path": p, "zero_based": true, "classes": 3, "clients": 4, "test_fraction": 0.2, "format": "dense"})
	if !reflect.DeepEqual(f, again) {
		t.Error("same seed gave different partitions")
	}
	other := build(t, "svmlight", map[string]any{"path": p, "zero_based": true, "classes": 3, "clients": 4, "test_fraction": 0.2, "seed": 2})
	if reflect.DeepEqual(f.Train, other.Train) {
		t.Error("different seeds gave the same partition")
	}
	// 1-based labels 1..K are shifted down when K occurs.
	p = writeFile(t, "k.svm", "1 1:1\n3 1:2\n2 1:3\n")
	f = build(t, "svmlight", map[string]any{"path": p, "classes": 3, "clients": 1})
	if !reflect.DeepEqual(f.Train[0].Y, []float64{0, 2, 1}) {
		t.Errorf("1-based labels: %v", f.Train[0].Y)
	}
}

func TestSVMLightErrors(t *testing.T) {
	cases := []struct {
		content string
		extra   map[string]any
		want    string // after "bad.svm:"
	}{
		{"1 1:2\n\n1 3:abc\n", nil, `3: bad feature "3:abc": value: invalid syntax`},
		{"x 1:2\n", nil, `1: bad label "x"`},
		{"1 1:2\n1 0:1\n", nil, `2: bad feature "0:1": index below 1`},
		{"1 -1:1\n", map[string]any{"zero_based": true}, `1: bad feature "-1:1": index below 0`},
		{"# c\n1 3:1 2:1\n", nil, `2: bad feature "2:1": index not greater`},
		{"1 3:1 3:1\n", nil, `1: bad feature "3:1": index not greater`},
		{"1 3\n", nil, `1: bad feature "3": want index:value`},
		{"1 a:3\n", nil, `1: bad feature "a:3": index`},
		{"1 2:nan\n", nil, `1: bad feature "2:nan": value: not finite`},
		{"1 5:1\n", map[string]any{"features": 4}, `1: bad feature "5:1": index beyond features = 4`},
		{"1 qid:1 1:1\n1 1:1\n", nil, `2: no qid, but line 1 has one`},
		{"1 1:1\n1 qid:2 1:1\n", nil, `2: qid "qid:2", but line 1 has none`},
		{"1 qid:x 1:1\n", nil, `1: bad qid "qid:x"`},
		{"0 1:1\n1 1:1\n\n2 1:1\n", map[string]any{"classes": 2}, `4: label 2 outside 0..1`},
		{"-1 1:1\n1 1:1\n0 1:1\n", map[string]any{"classes": 2}, `3: label 0 is not -1 or +1 (labels are ±1 because of line 1)`},
		{"1 1:1\n0.5 1:1\n", map[string]any{"classes": 3}, `2: label 0.5 is not an integer`},
		{"0 1:1\n3 1:1\n", map[string]any{"classes": 3}, `1: label 0 outside 1..3 for 3 classes (labels are 1-based because of line 2)`},
	}
	for _, c := range cases {
		p := writeFile(t, "bad.svm", c.content)
		raw := map[string]any{"path": p, "clients": 1}
		for k, v := range c.extra {
			raw[k] = v
		}
		err := buildErr(t, "svmlight", raw)
		if !strings.Contains(err.Error(), p+":"+c.want) {
			t.Errorf("%q: error %q, want it to contain %q", c.content, err, "bad.svm:"+c.want)
		}
	}
	for _, content := range []string{"", "# only\n\n"} {
		p := writeFile(t, "empty.svm", content)
		if err := buildErr(t, "svmlight", map[string]any{"path": p}); !strings.Contains(err.Error(), "no samples") {
			t.Errorf("empty file: %v", err)
		}
	}
	if err := buildErr(t, "svmlight", map[string]any{"path": filepath.Join(t.TempDir(), "missing.svm")}); !strings.Contains(err.Error(), "missing.svm") {
		t.Errorf("missing file: %v", err)
	}
	// More clients than samples.
	p := writeFile(t, "few.svm", "1 1:1\n2 1:1\n")
	if err := buildErr(t, "svmlight", map[string]any{"path": p, "clients": 3}); !strings.Contains(err.Error(), "cannot fill 3 clients") {
		t.Errorf("too many clients: %v", err)
	}
}
