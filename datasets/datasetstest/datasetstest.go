// Package datasetstest holds what the tests of the dataset readers share
// (datasets and datasets/parquetdata): small labelled tables written in
// each format and as CSV, builds of registered datasets, and comparisons of
// federated datasets bit for bit. The test binary registers the datasets
// it builds (by importing their packages).
package datasetstest

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// Table is a small labelled dataset the tests write in a format and as
// CSV: row i has features X[i], label Y[i] and writer Client[i].
type Table struct {
	X      [][]float64
	Y      []int
	Client []string // nil: no writers
}

// ByteTable is n rows of width pixel bytes (pixel values b/255 as
// features), labels i·7 mod classes and, with writers > 0, writers
// "w0".."w{writers-1}" in contiguous runs of varying length, so that a
// natural partition is not an iid one.
func ByteTable(n, width, classes, writers int) (Table, [][]byte) {
	var t Table
	pix := make([][]byte, n)
	for i := range n {
		pix[i] = make([]byte, width)
		row := make([]float64, width)
		for j := range width {
			pix[i][j] = byte((i*31 + j*17 + i*j) % 256)
			row[j] = float64(pix[i][j]) / 255
		}
		t.X = append(t.X, row)
		t.Y = append(t.Y, i*7%classes)
		if writers > 0 {
			t.Client = append(t.Client, fmt.Sprintf("w%d", min(i*i*writers/(n*n), writers-1)))
		}
	}
	return t, pix
}

// WriteCSV writes the table as CSV (columns x0.., label, and client when
// the Table names writers), values in shortest round-trip form.
func (tb Table) WriteCSV(t *testing.T, path string) {
	t.Helper()
	var b strings.Builder
	for j := range tb.X[0] {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("label")
	if tb.Client != nil {
		b.WriteString(",client")
	}
	b.WriteString("\n")
	for i, row := range tb.X {
		for _, v := range row {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		b.WriteString(strconv.Itoa(tb.Y[i]))
		if tb.Client != nil {
			b.WriteString("," + tb.Client[i])
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// CSVTwin builds the csv dataset of the table with the options raw.
func (tb Table) CSVTwin(t *testing.T, raw map[string]any) *core.Federated {
	t.Helper()
	path := filepath.Join(t.TempDir(), "twin.csv")
	tb.WriteCSV(t, path)
	args := map[string]any{"path": path}
	if tb.Client != nil {
		args["client"] = "client"
	}
	for k, v := range raw {
		args[k] = v
	}
	return Build(t, "csv", args)
}

// SameFederated fails unless got and want hold the same clients with the
// same values bit for bit (names aside).
func SameFederated(t *testing.T, got, want *core.Federated) {
	t.Helper()
	if got.Features != want.Features || got.Classes != want.Classes || len(got.Train) != len(want.Train) || len(got.Test) != len(want.Test) {
		t.Fatalf("features %d/%d, classes %d/%d, clients %d/%d, test parts %d/%d", got.Features, want.Features,
			got.Classes, want.Classes, len(got.Train), len(want.Train), len(got.Test), len(want.Test))
	}
	for _, s := range []struct {
		what      string
		got, want []*core.Data
	}{{"train", got.Train, want.Train}, {"test", got.Test, want.Test}} {
		for m := range s.got {
			g, w := s.got[m], s.want[m]
			if g.N != w.N {
				t.Fatalf("%s client %d: %d samples, want %d", s.what, m, g.N, w.N)
			}
			for i := range g.N {
				gr, wr := g.Row(i), w.Row(i)
				for j := range gr {
					if math.Float64bits(gr[j]) != math.Float64bits(wr[j]) {
						t.Fatalf("%s client %d row %d feature %d: %v, want %v", s.what, m, i, j, gr[j], wr[j])
					}
				}
				if g.Y[i] != w.Y[i] {
					t.Fatalf("%s client %d row %d: label %v, want %v", s.what, m, i, g.Y[i], w.Y[i])
				}
			}
		}
	}
}

// PartitionCases are the options the reader is compared with its CSV
// twin under (rows without writers).
var PartitionCases = []map[string]any{
	{"classes": 4, "clients": 3, "seed": 7},
	{"classes": 4, "clients": 3, "seed": 2, "test_fraction": 0.25},
	{"classes": 4, "clients": 2, "partition": "dirichlet", "alpha": 0.7},
	{"classes": 4, "clients": 3, "partition": "shards", "shards_per_client": 2},
}

// NaturalKeepsWriters fails unless each client of f holds exactly the rows
// of one writer of tb, in file order, writers in order of first
// appearance.
func NaturalKeepsWriters(t *testing.T, f *core.Federated, tb Table) {
	t.Helper()
	var order []string
	rows := map[string][]int{}
	for i, c := range tb.Client {
		if _, ok := rows[c]; !ok {
			order = append(order, c)
		}
		rows[c] = append(rows[c], i)
	}
	if len(f.Train) != len(order) {
		t.Fatalf("%d clients, want %d writers", len(f.Train), len(order))
	}
	for m, c := range order {
		d := f.Train[m]
		if d.N != len(rows[c]) {
			t.Fatalf("client %d (writer %s): %d rows, want %d", m, c, d.N, len(rows[c]))
		}
		for i, r := range rows[c] {
			if d.Row(i)[0] != tb.X[r][0] || d.Y[i] != float64(tb.Y[r]) {
				t.Fatalf("client %d row %d is not row %d of writer %s", m, i, r, c)
			}
		}
	}
}

// RowOf is the index of the row of tb whose features are x.
func RowOf(t *testing.T, tb Table, x []float64) int {
	t.Helper()
	for i, row := range tb.X {
		if slices.Equal(row, x) {
			return i
		}
	}
	t.Fatalf("no row %v", x)
	return -1
}

// FilterLabels is the table's rows whose label is listed, relabelled by
// their place in labels: what the labels key should read.
func (tb Table) FilterLabels(labels []int) Table {
	var out Table
	for i, y := range tb.Y {
		k := slices.Index(labels, y)
		if k < 0 {
			continue
		}
		out.X, out.Y = append(out.X, tb.X[i]), append(out.Y, k)
		if tb.Client != nil {
			out.Client = append(out.Client, tb.Client[i])
		}
	}
	return out
}

// Merged is the union of maps, later keys winning.
func Merged(ms ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// Build builds the dataset name from raw and checks it, failing the test
// on an error.
func Build(t *testing.T, name string, raw map[string]any) *core.Federated {
	t.Helper()
	f, err := registry.Build[*core.Federated](registry.Dataset, name, raw)
	if err != nil {
		t.Fatalf("build %s %v: %v", name, raw, err)
	}
	if err := f.Check(); err != nil {
		t.Fatalf("build %s %v: Check: %v", name, raw, err)
	}
	return f
}

// BuildErr is the error of building the dataset name from raw; it fails
// the test when there is none.
func BuildErr(t *testing.T, name string, raw map[string]any) error {
	t.Helper()
	_, err := registry.Build[*core.Federated](registry.Dataset, name, raw)
	if err == nil {
		t.Fatalf("build %s %v: want an error", name, raw)
	}
	return err
}

// BuildIn builds the dataset name from raw with ctx as its build context's
// Context (as plan.Builder does with the script's context).
func BuildIn(t *testing.T, ctx context.Context, name string, raw map[string]any) (*core.Federated, error) {
	t.Helper()
	a, err := registry.Validate(registry.Dataset, name, raw)
	if err != nil {
		t.Fatal(err)
	}
	return registry.BuildArgs[*core.Federated](a.WithContext(registry.BuildContext{Context: ctx}))
}

// BuildNoting builds the dataset name from raw with a BuildContext whose
// notices it returns.
func BuildNoting(t *testing.T, name string, raw map[string]any) (*core.Federated, string) {
	t.Helper()
	a, err := registry.Validate(registry.Dataset, name, raw)
	if err != nil {
		t.Fatal(err)
	}
	var notices bytes.Buffer
	f, err := registry.BuildArgs[*core.Federated](a.WithContext(registry.BuildContext{Notices: &notices}))
	if err != nil {
		t.Fatalf("build %s %v: %v", name, raw, err)
	}
	return f, notices.String()
}

// MustValidate validates raw for the dataset name, failing the test on an
// error.
func MustValidate(t *testing.T, name string, raw map[string]any) registry.Args {
	t.Helper()
	a, err := registry.Validate(registry.Dataset, name, raw)
	if err != nil {
		t.Fatalf("%s %v: %v", name, raw, err)
	}
	return a
}

// CleanMessage fails the test when an error message could disturb a
// terminal: raw control bytes or invalid UTF-8 echoed from the input.
func CleanMessage(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if !utf8.ValidString(msg) || strings.ContainsAny(msg, "\x00\x07\x08\x1b\r\n") {
		t.Fatalf("error echoes raw input: %q", msg)
	}
	if len(msg) > 2000 {
		t.Fatalf("error of %d bytes", len(msg))
	}
}

// Within runs f, failing the test if it takes more than 10 s (a reader
// blocked in open(2) would otherwise hang the test binary).
func Within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still running after 10 s", what)
	}
}
