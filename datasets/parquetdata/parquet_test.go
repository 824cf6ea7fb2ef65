package parquetdata

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// hfImage is Hugging Face's Image feature as stored in Parquet.
type hfImage struct {
	Bytes []byte `parquet:"bytes"`
	Path  string `parquet:"path"`
}

// femnistRow is a row like flwrlabs/femnist's: a PNG image, its writer
// and its class.
type femnistRow struct {
	Image     hfImage `parquet:"image"`
	WriterID  string  `parquet:"writer_id"`
	Character int64   `parquet:"character"`
}

// listRow holds its features in one list-valued column.
type listRow struct {
	Features []float64 `parquet:"features,list"`
	Label    int32     `parquet:"label"`
}

// pngGrey encodes width bytes as a grey 3-wide PNG image.
func pngGrey(t *testing.T, pix []byte) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 3, len(pix)/3))
	copy(img.Pix, pix)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// femnistRows returns the table as flwrlabs/femnist-like rows.
func femnistRows(t *testing.T, tb table, pix [][]byte) []femnistRow {
	var rows []femnistRow
	for i, p := range pix {
		rows = append(rows, femnistRow{Image: hfImage{Bytes: pngGrey(t, p), Path: "x.png"}, WriterID: tb.Client[i], Character: int64(tb.Y[i])})
	}
	return rows
}

// TestParquetEqualsCSV: PNG images in Hugging Face's struct, and features
// in a list-valued column, read from Parquet files (two files of a
// directory) give value for value the dataset of the same rows written as
// CSV, for every partition; the writer column's natural partition equals
// the CSV's client column and keeps each writer's rows together and in
// order.
func TestParquetEqualsCSV(t *testing.T) {
	tb, pix := byteTable(30, 6, 4, 5)
	dir := t.TempDir()
	rows := femnistRows(t, tb, pix)
	if err := parquet.WriteFile(filepath.Join(dir, "part-0.parquet"), rows[:17]); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(filepath.Join(dir, "part-1.parquet"), rows[17:]); err != nil {
		t.Fatal(err)
	}
	var lists []listRow
	for i := range tb.X {
		lists = append(lists, listRow{Features: tb.X[i], Label: int32(tb.Y[i])})
	}
	listFile := filepath.Join(t.TempDir(), "list.parquet")
	if err := parquet.WriteFile(listFile, lists); err != nil {
		t.Fatal(err)
	}
	type scalarRow struct {
		X0, X1, X2, X3, X4, X5 float64
		Y                      int64
	}
	var scalars []scalarRow
	for i, x := range tb.X {
		scalars = append(scalars, scalarRow{x[0], x[1], x[2], x[3], x[4], x[5], int64(tb.Y[i])})
	}
	scalarFile := filepath.Join(t.TempDir(), "scalar.parquet")
	if err := parquet.WriteFile(scalarFile, scalars); err != nil {
		t.Fatal(err)
	}
	plain := table{X: tb.X, Y: tb.Y}
	for _, raw := range partitionCases {
		want := plain.CSVTwin(t, raw)
		for _, src := range []map[string]any{
			{"path": dir, "image": "image", "label": "character"},
			{"path": filepath.Join(dir, "part-*.parquet"), "image": "image", "label": "character"},
			{"path": listFile, "features": "features", "label": "label"},
			{"path": scalarFile, "features": "X0, X1,X2,X3,X4,X5", "label": "Y"},
		} {
			args := map[string]any{}
			for k, v := range raw {
				args[k] = v
			}
			for k, v := range src {
				args[k] = v
			}
			sameFederated(t, build(t, "parquet", args), want)
		}
	}
	f := build(t, "parquet", map[string]any{"path": dir, "image": "image", "label": "character", "client": "writer_id", "partition": "natural", "classes": 4})
	sameFederated(t, f, tb.CSVTwin(t, map[string]any{"classes": 4}))
	naturalKeepsWriters(t, f, tb)
}

// TestParquetColourImages: a colour PNG becomes three planes R, G, B.
func TestParquetColourImages(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	img.Set(0, 0, color.NRGBA{R: 10, G: 20, B: 30, A: 255})
	img.Set(1, 0, color.NRGBA{R: 40, G: 50, B: 60, A: 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	type row struct {
		Img   []byte `parquet:"img"`
		Label int64  `parquet:"label"`
	}
	path := filepath.Join(t.TempDir(), "c.parquet")
	if err := parquet.WriteFile(path, []row{{b.Bytes(), 0}, {b.Bytes(), 1}}); err != nil {
		t.Fatal(err)
	}
	f := build(t, "parquet", map[string]any{"path": path, "image": "img", "label": "label", "classes": 2, "clients": 2, "partition": "shards", "shards_per_client": 1})
	want := []float64{10, 40, 20, 50, 30, 60}
	for j, v := range f.Train[0].Row(0) {
		if v != want[j]/255 {
			t.Fatalf("features %v, want %v/255", f.Train[0].Row(0), want)
		}
	}
}

func TestParquetErrors(t *testing.T) {
	tb, pix := byteTable(6, 6, 3, 2)
	dir := t.TempDir()
	path := filepath.Join(dir, "f.parquet")
	rows := femnistRows(t, tb, pix)
	rows[4].Image.Bytes = []byte("not a png")
	parquet.WriteFile(path, rows)
	good, _ := os.ReadFile(path)
	rows[4].Image.Bytes = pngGrey(t, pix[4])
	for i := range rows {
		rows[i].WriterID = "solo"
	}
	solo := filepath.Join(dir, "solo.parquet")
	parquet.WriteFile(solo, rows)
	rows[2].Character = 7
	bad := filepath.Join(dir, "bad.parquet")
	parquet.WriteFile(bad, rows)
	cut := filepath.Join(dir, "cut.parquet")
	os.WriteFile(cut, good[:len(good)-20], 0o644)
	for _, c := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{}, path + ": row 4: the image does not decode (9 bytes): image: unknown format"},
		{map[string]any{"path": solo, "client": "writer_id", "partition": "natural"}, "the client column \"writer_id\" names one writer (\"solo\")"},
		{map[string]any{"path": bad}, "bad.parquet row 2: label 7 is not a class in 0..2 (classes = 3)"},
		{map[string]any{"path": cut}, cut + ": not a Parquet file, or truncated"},
		{map[string]any{"label": "nope"}, path + ": no column \"nope\" for the label (columns: image.bytes, image.path, writer_id, character)"},
		{map[string]any{"features": "character"}, "give image (a column of encoded images) or features (numeric columns), one of them"},
		{map[string]any{"client": "writer_id"}, "client = \"writer_id\" names each row's writer, which only partition = \"natural\" uses"},
	} {
		args := map[string]any{"path": path, "image": "image", "label": "character", "classes": 3, "clients": 2}
		for k, v := range c.raw {
			args[k] = v
		}
		if err := buildErr(t, "parquet", args); !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.raw, err, c.want)
		}
	}
	a := mustValidate(t, "parquet", map[string]any{"path": solo, "image": "image", "label": "character", "classes": 3})
	if got, what, _ := a.Spec().Size(a); got != 6*6+6*8+6*6 || what != "training rows = 6, features = 6" {
		t.Errorf("declared %d (%q)", got, what)
	}
}

// TestParquetFooterLengthIsChecked: a file whose footer length (the 4
// bytes before the closing magic) says 2 GB is refused before anything
// of that size is allocated (parquet-go allocated it first: the hang of
// FuzzReadParquet, whose input is kept as a seed).
func TestParquetFooterLengthIsChecked(t *testing.T) {
	tb, pix := byteTable(6, 6, 3, 2)
	path := filepath.Join(t.TempDir(), "f.parquet")
	parquet.WriteFile(path, femnistRows(t, tb, pix))
	b, _ := os.ReadFile(path)
	binary.LittleEndian.PutUint32(b[len(b)-8:], 0x7f000191)
	os.WriteFile(path, b, 0o644)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := buildErr(t, "parquet", map[string]any{"path": path, "image": "image", "label": "character", "classes": 3})
	runtime.ReadMemStats(&after)
	want := fmt.Sprintf("%s: not a Parquet file, or truncated: the footer's length is 2130706833 bytes, but the file holds %d", path, len(b))
	if !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
		t.Errorf("refusing the file allocated %d bytes", got)
	}
}

// TestParquetStopsWithTheReadContext: a build context that has ended
// stops the Parquet reader with its cause.
func TestParquetStopsWithTheReadContext(t *testing.T) {
	tb, pix := byteTable(6, 6, 3, 2)
	path := filepath.Join(t.TempDir(), "f.parquet")
	parquet.WriteFile(path, femnistRows(t, tb, pix))
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("the script's time limit"))
	_, err := buildIn(t, ctx, "parquet", map[string]any{"path": path, "image": "image", "label": "character", "classes": 3, "clients": 2})
	if !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), "reading stopped: the script's time limit") {
		t.Errorf("error %v", err)
	}
}

// TestParquetTestSplitPairsByWriter: with the natural partition, a test
// split's rows go to their writer's client, in file order.
func TestParquetTestSplitPairsByWriter(t *testing.T) {
	tb, pix := byteTable(30, 6, 4, 5)
	testTab, testPix := byteTable(12, 6, 4, 5)
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train.parquet"), filepath.Join(dir, "test.parquet")
	parquet.WriteFile(train, femnistRows(t, tb, pix))
	parquet.WriteFile(test, femnistRows(t, testTab, testPix))
	f := build(t, "parquet", map[string]any{"path": train, "test": test, "image": "image", "label": "character",
		"client": "writer_id", "partition": "natural", "classes": 4})
	total := 0
	for m, d := range f.Train {
		w := tb.Client[rowOf(t, tb, d.Row(0))]
		k := 0
		for i, c := range testTab.Client {
			if c == w {
				if got := f.Test[m].Row(k); rowOf(t, testTab, got) != i {
					t.Fatalf("client %d (writer %s) test row %d is not test row %d", m, w, k, i)
				}
				k++
			}
		}
		if f.Test[m].N != k {
			t.Fatalf("client %d (writer %s): %d test rows, want %d", m, w, f.Test[m].N, k)
		}
		total += k
	}
	if total != 12 {
		t.Fatalf("%d test rows paired, want 12", total)
	}
}
