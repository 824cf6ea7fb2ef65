package parquetdata

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// filterLabelsList is the labels list the tests filter with: 4 of 6 labels,
// out of order (relabelled 5→0, 0→1, 2→2, 3→3), so partitionCases'
// classes = 4 apply.
var filterLabelsList = []int{5, 0, 2, 3}

// TestParquetLabelsEqualTheRowsKept: Parquet rows read with labels give,
// value for value, the dataset of the kept rows written as CSV, and the
// test split read with labels the test split of the kept rows.
func TestParquetLabelsEqualTheRowsKept(t *testing.T) {
	tb, pix := byteTable(36, 6, 6, 5)
	testTab, testPix := byteTable(18, 6, 6, 5)
	kept := tb.FilterLabels(filterLabelsList)
	var keptPix, keptTestPix [][]byte
	for i, y := range tb.Y {
		if slices.Contains(filterLabelsList, y) {
			keptPix = append(keptPix, pix[i])
		}
	}
	keptTest := testTab.FilterLabels(filterLabelsList)
	for i, y := range testTab.Y {
		if slices.Contains(filterLabelsList, y) {
			keptTestPix = append(keptTestPix, testPix[i])
		}
	}
	dir := t.TempDir()
	file := func(name string, tb table, pix [][]byte) string {
		path := filepath.Join(dir, name)
		if err := parquet.WriteFile(path, femnistRows(t, tb, pix)); err != nil {
			t.Fatal(err)
		}
		return path
	}
	train, test := file("train.parquet", tb, pix), file("test.parquet", testTab, testPix)
	keptTrain, keptTestFile := file("kept.parquet", kept, keptPix), file("kept-test.parquet", keptTest, keptTestPix)
	labels := []any{5, 0, 2, 3}
	src := map[string]any{"image": "image", "label": "character", "labels": labels}
	f := build(t, "parquet", merged(src, map[string]any{"path": train, "client": "writer_id", "partition": "natural", "classes": 4}))
	sameFederated(t, f, kept.CSVTwin(t, map[string]any{"classes": 4}))
	naturalKeepsWriters(t, f, kept)
	plain := table{X: kept.X, Y: kept.Y}
	for _, raw := range partitionCases {
		sameFederated(t, build(t, "parquet", merged(src, raw, map[string]any{"path": train})), plain.CSVTwin(t, raw))
	}
	natural := map[string]any{"client": "writer_id", "partition": "natural", "classes": 4}
	sameFederated(t,
		build(t, "parquet", merged(src, natural, map[string]any{"path": train, "test": test})),
		build(t, "parquet", merged(natural, map[string]any{"image": "image", "label": "character", "path": keptTrain, "test": keptTestFile})))
}

// TestParquetLabelsErrors: a labels list that is not a set of labels,
// that does not match classes, that keeps no sample or lists a label no
// training sample has is refused naming the file; a message about a kept
// row names its place in the file, not among the rows kept (the Parquet
// half of datasets' TestLabelsErrors).
func TestParquetLabelsErrors(t *testing.T) {
	tb, pix := byteTable(12, 3, 3, 3) // labels i·7 mod 3 = i mod 3
	dir := t.TempDir()
	pq := filepath.Join(dir, "d.parquet")
	if err := parquet.WriteFile(pq, femnistRows(t, tb, pix)); err != nil {
		t.Fatal(err)
	}
	stranger := table{X: [][]float64{tb.X[0], tb.X[1]}, Y: []int{0, 1}, Client: []string{"zz", "zz"}}
	strangerPQ := filepath.Join(dir, "s.parquet")
	if err := parquet.WriteFile(strangerPQ, femnistRows(t, stranger, pix[:2])); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"labels": []any{1, 1}}, "labels lists 1 twice (labels[1] and labels[2])"},
		{map[string]any{"labels": []any{0, 1.5}}, "labels[2] = 1.5 is not a class label (an integer ≥ 0)"},
		{map[string]any{"labels": []any{0, 2}, "classes": 3}, "labels lists 2 labels, which become classes 0..1 in the listed order: set classes = 2, not 3"},
		{map[string]any{"labels": []any{7, 8}}, pq + ": no sample has a label in labels = {7, 8}"},
		{map[string]any{"labels": []any{2, 7}}, pq + ": labels = {2, 7} lists 7, which no training sample has (class 1 would be empty)"},
	} {
		args := merged(map[string]any{"classes": 2, "path": pq, "image": "image", "label": "character"}, c.raw)
		if err := buildErr(t, "parquet", args); !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", args, err, c.want)
		}
	}
	// the stranger's row 1 (label 1) is its only kept row
	if err := buildErr(t, "parquet", map[string]any{"path": pq, "test": strangerPQ, "image": "image", "label": "character", "client": "writer_id",
		"partition": "natural", "classes": 2, "labels": []any{2, 1}}); !strings.Contains(err.Error(),
		strangerPQ+": s.parquet row 1: writer \"zz\" has no training samples") {
		t.Errorf("parquet: %v", err)
	}
}

// droppingTable has four writers: w0 with labels 0 0 0 1 1 1, w1 with
// 2 2 2, w2 with 0 1 0 1 2 2 and w3 with 0 1.
func droppingTable() table {
	var tb table
	for _, w := range []struct {
		name   string
		labels []int
	}{{"w0", []int{0, 0, 0, 1, 1, 1}}, {"w1", []int{2, 2, 2}}, {"w2", []int{0, 1, 0, 1, 2, 2}}, {"w3", []int{0, 1}}} {
		for _, y := range w.labels {
			tb.X = append(tb.X, []float64{float64(len(tb.X)), float64(y)})
			tb.Y = append(tb.Y, y)
			tb.Client = append(tb.Client, w.name)
		}
	}
	return tb
}

// The writers of a Parquet file that labels leave without a sample are
// named on the notice channel.
func TestParquetNamesTheWritersItDrops(t *testing.T) {
	type writerRow struct {
		Features []float64 `parquet:"features,list"`
		Label    int32     `parquet:"label"`
		Writer   string    `parquet:"writer"`
	}
	tb := droppingTable()
	var rows []writerRow
	for i := range tb.X {
		rows = append(rows, writerRow{Features: tb.X[i], Label: int32(tb.Y[i]), Writer: tb.Client[i]})
	}
	path := filepath.Join(t.TempDir(), "train.parquet")
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
	raw := map[string]any{"path": path, "features": "features", "label": "label", "client": "writer", "partition": "natural", "classes": 2, "labels": []any{0, 1}}
	f, notices := buildNoting(t, "parquet", raw)
	want := "fedlab: parquet: " + path + `: 1 of 4 writers dropped (no sample with a label in labels = {0, 1}): "w1"` + "\n"
	if len(f.Train) != 3 || notices != want {
		t.Errorf("%d clients and notices\n%q\nexpected 3 and\n%q", len(f.Train), notices, want)
	}
	raw["labels"], raw["classes"] = []any{}, 3
	if _, notices := buildNoting(t, "parquet", raw); notices != "" {
		t.Errorf("without labels: notices %q", notices)
	}
}
