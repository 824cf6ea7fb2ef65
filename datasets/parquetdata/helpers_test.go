package parquetdata

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
	"unicode/utf8"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// The helpers of this file are those of the datasets package's tests that
// the Parquet tests use (the same tables, CSV twins and builds), so that
// the Parquet reader is compared with the csv reader as every format of
// datasets is.

// table is a small labelled dataset the tests write as Parquet and as
// CSV: row i has features x[i], label y[i] and writer client[i].
type table struct {
	x      [][]float64
	y      []int
	client []string // nil: no writers
}

// byteTable is n rows of width pixel bytes (pixel values b/255 as
// features), labels i·7 mod classes and, with writers > 0, writers
// "w0".."w{writers-1}" in contiguous runs of varying length, so that a
// natural partition is not an iid one.
func byteTable(n, width, classes, writers int) (table, [][]byte) {
	var t table
	pix := make([][]byte, n)
	for i := range n {
		pix[i] = make([]byte, width)
		row := make([]float64, width)
		for j := range width {
			pix[i][j] = byte((i*31 + j*17 + i*j) % 256)
			row[j] = float64(pix[i][j]) / 255
		}
		t.x = append(t.x, row)
		t.y = append(t.y, i*7%classes)
		if writers > 0 {
			t.client = append(t.client, fmt.Sprintf("w%d", min(i*i*writers/(n*n), writers-1)))
		}
	}
	return t, pix
}

// writeCSV writes the table as CSV (columns x0.., label, and client when
// the table names writers), values in shortest round-trip form.
func (tb table) writeCSV(t *testing.T, path string) {
	t.Helper()
	var b strings.Builder
	for j := range tb.x[0] {
		fmt.Fprintf(&b, "x%d,", j)
	}
	b.WriteString("label")
	if tb.client != nil {
		b.WriteString(",client")
	}
	b.WriteString("\n")
	for i, row := range tb.x {
		for _, v := range row {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		b.WriteString(strconv.Itoa(tb.y[i]))
		if tb.client != nil {
			b.WriteString("," + tb.client[i])
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// csvTwin builds the csv dataset of the table with the options raw.
func (tb table) csvTwin(t *testing.T, raw map[string]any) *core.Federated {
	t.Helper()
	path := filepath.Join(t.TempDir(), "twin.csv")
	tb.writeCSV(t, path)
	args := map[string]any{"path": path}
	if tb.client != nil {
		args["client"] = "client"
	}
	for k, v := range raw {
		args[k] = v
	}
	return build(t, "csv", args)
}

// sameFederated fails unless got and want hold the same clients with the
// same values bit for bit (names aside).
func sameFederated(t *testing.T, got, want *core.Federated) {
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

// partitionCases are the options the reader is compared with its CSV
// twin under (rows without writers).
var partitionCases = []map[string]any{
	{"classes": 4, "clients": 3, "seed": 7},
	{"classes": 4, "clients": 3, "seed": 2, "test_fraction": 0.25},
	{"classes": 4, "clients": 2, "partition": "dirichlet", "alpha": 0.7},
	{"classes": 4, "clients": 3, "partition": "shards", "shards_per_client": 2},
}

// naturalKeepsWriters fails unless each client of f holds exactly the rows
// of one writer of tb, in file order, writers in order of first
// appearance.
func naturalKeepsWriters(t *testing.T, f *core.Federated, tb table) {
	t.Helper()
	var order []string
	rows := map[string][]int{}
	for i, c := range tb.client {
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
			if d.Row(i)[0] != tb.x[r][0] || d.Y[i] != float64(tb.y[r]) {
				t.Fatalf("client %d row %d is not row %d of writer %s", m, i, r, c)
			}
		}
	}
}

// rowOf is the index of the row of tb whose features are x.
func rowOf(t *testing.T, tb table, x []float64) int {
	t.Helper()
	for i, row := range tb.x {
		if slices.Equal(row, x) {
			return i
		}
	}
	t.Fatalf("no row %v", x)
	return -1
}

// filterLabels is the table's rows whose label is listed, relabelled by
// their place in labels: what the labels key should read.
func (tb table) filterLabels(labels []int) table {
	var out table
	for i, y := range tb.y {
		k := slices.Index(labels, y)
		if k < 0 {
			continue
		}
		out.x, out.y = append(out.x, tb.x[i]), append(out.y, k)
		if tb.client != nil {
			out.client = append(out.client, tb.client[i])
		}
	}
	return out
}

// merged is the union of maps, later keys winning.
func merged(ms ...map[string]any) map[string]any {
	out := map[string]any{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

func build(t *testing.T, name string, raw map[string]any) *core.Federated {
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

func buildErr(t *testing.T, name string, raw map[string]any) error {
	t.Helper()
	_, err := registry.Build[*core.Federated](registry.Dataset, name, raw)
	if err == nil {
		t.Fatalf("build %s %v: want an error", name, raw)
	}
	return err
}

// buildIn builds the dataset name from raw with ctx as its build context's
// Context (as plan.Builder does with the script's context).
func buildIn(t *testing.T, ctx context.Context, name string, raw map[string]any) (*core.Federated, error) {
	t.Helper()
	a, err := registry.Validate(registry.Dataset, name, raw)
	if err != nil {
		t.Fatal(err)
	}
	return registry.BuildArgs[*core.Federated](a.WithContext(registry.BuildContext{Context: ctx}))
}

// buildNoting builds the dataset name from raw with a BuildContext whose
// notices it returns.
func buildNoting(t *testing.T, name string, raw map[string]any) (*core.Federated, string) {
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

func mustValidate(t *testing.T, name string, raw map[string]any) registry.Args {
	t.Helper()
	a, err := registry.Validate(registry.Dataset, name, raw)
	if err != nil {
		t.Fatalf("%s %v: %v", name, raw, err)
	}
	return a
}

// cleanMessage fails the test when an error message could disturb a
// terminal: raw control bytes or invalid UTF-8 echoed from the input.
func cleanMessage(t *testing.T, err error) {
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
