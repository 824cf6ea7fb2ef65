package parquetdata

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
)

// imageRow is a row of an image dataset: Hugging Face's {bytes, path}
// image and a label.
type imageRow struct {
	Image hfImage `parquet:"image"`
	Label int64   `parquet:"label"`
}

// encodePNG encodes img as PNG.
func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pngDeclaring is a 2×2 PNG of the given mode whose header is rewritten
// to declare w×h pixels (its IHDR checksum recomputed): a decompression
// bomb's header.
func pngDeclaring(t testing.TB, img image.Image, w, h uint32) []byte {
	b := encodePNG(t, img)
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// jpegDeclaring is a small JPEG whose frame header is rewritten to declare
// w×h pixels.
func jpegDeclaring(t testing.TB, w, h uint16) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewRGBA(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	j := b.Bytes()
	at := bytes.Index(j, []byte{0xff, 0xc0})
	binary.BigEndian.PutUint16(j[at+5:], h)
	binary.BigEndian.PutUint16(j[at+7:], w)
	return j
}

func writeImages(t *testing.T, path string, images ...[]byte) {
	t.Helper()
	var rows []imageRow
	for i, b := range images {
		rows = append(rows, imageRow{Image: hfImage{Bytes: b, Path: "x.png"}, Label: int64(i % 2)})
	}
	if err := parquet.WriteFile(path, rows); err != nil {
		t.Fatal(err)
	}
}

// TestParquetImageBombs: an image whose header declares more pixels than
// fedlab decodes (a PNG of 60000×60000, a 16-bit RGBA PNG of
// 30000×30000, a JPEG of 65535×65535), first or later in the column, is
// refused on its header, before it is decoded, when the memory is
// declared (--dry-run reads the first row) and when the data are read,
// within seconds and without allocating what it declares.
func TestParquetImageBombs(t *testing.T) {
	dir := t.TempDir()
	grey := image.NewGray(image.Rect(0, 0, 2, 2))
	small := encodePNG(t, grey)
	for _, c := range []struct {
		name  string
		bomb  []byte
		first bool
		want  string
	}{
		{"png", pngDeclaring(t, grey, 60000, 60000), true, "row 0: the png image declares 60000×60000 pixels, more than fedlab decodes (67108864 pixels: 8192×8192)"},
		{"png16", pngDeclaring(t, image.NewRGBA64(image.Rect(0, 0, 2, 2)), 30000, 30000), true, "row 0: a 16-bit png image: fedlab reads 8-bit images (a byte a channel); save them 8-bit"},
		{"jpeg", jpegDeclaring(t, 65535, 65535), true, "row 0: the jpeg image declares 65535×65535 pixels, more than fedlab decodes"},
		{"later", pngDeclaring(t, grey, 60000, 60000), false, "row 1: a 60000×60000 png image, earlier images 2×2"},
	} {
		path := filepath.Join(dir, c.name+".parquet")
		if c.first {
			writeImages(t, path, c.bomb, small)
		} else {
			writeImages(t, path, small, c.bomb, small)
		}
		args := map[string]any{"path": path, "image": "image", "label": "label", "classes": 2, "clients": 1}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		if c.first {
			a := mustValidate(t, "parquet", args)
			if got, _, _ := a.Spec().Size(a); got != 0 {
				t.Errorf("%s: declared %d bytes from a bomb", c.name, got)
			}
		}
		err := buildErr(t, "parquet", args)
		runtime.ReadMemStats(&after)
		if !strings.Contains(err.Error(), path+": "+c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, path+": "+c.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Errorf("%s: %d bytes allocated: the image was decoded", c.name, grew)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: %v", c.name, d)
		}
	}
}

// TestParquetGreyModes: grey PNGs stored as a grey palette or as grey
// with alpha give one plane, the grey levels, as 8-bit grey PNGs of the
// same pixels do; a colour palette gives three planes; a 16-bit grey PNG
// is refused.
func TestParquetGreyModes(t *testing.T) {
	dir := t.TempDir()
	levels := []byte{0, 85, 170, 255}
	g := image.NewGray(image.Rect(0, 0, 2, 2))
	copy(g.Pix, levels)
	greys := make(color.Palette, 256)
	for i := range greys {
		greys[i] = color.Gray{Y: uint8(i)}
	}
	pal := image.NewPaletted(image.Rect(0, 0, 2, 2), greys)
	copy(pal.Pix, levels)
	g16 := image.NewGray16(image.Rect(0, 0, 2, 2))
	colours := image.NewPaletted(image.Rect(0, 0, 2, 2), color.Palette{color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}})
	want := build(t, "parquet", map[string]any{"path": writeModes(t, dir, "grey", encodePNG(t, g)), "image": "image", "label": "label", "classes": 2, "clients": 1})
	if got := want.Train[0].X8; len(got) != 8 || !bytes.Equal(got[:4], levels) {
		t.Fatalf("grey: %v", got)
	}
	for name, b := range map[string][]byte{"palette": encodePNG(t, pal), "grey+alpha": greyAlphaPNG(t, levels)} {
		got := build(t, "parquet", map[string]any{"path": writeModes(t, dir, name, b), "image": "image", "label": "label", "classes": 2, "clients": 1})
		sameFederated(t, got, want)
	}
	got := build(t, "parquet", map[string]any{"path": writeModes(t, dir, "colours", encodePNG(t, colours)), "image": "image", "label": "label", "classes": 2, "clients": 1})
	if F := got.Train[0].Features; F != 12 {
		t.Errorf("a colour palette: %d features, want 12 (three planes)", F)
	}
	path := writeModes(t, dir, "g16", encodePNG(t, g16))
	if err := buildErr(t, "parquet", map[string]any{"path": path, "image": "image", "label": "label", "classes": 2}); !strings.Contains(err.Error(), path+": row 0: a 16-bit png image: fedlab reads 8-bit images") {
		t.Errorf("16-bit: %v", err)
	}
	mixed := filepath.Join(dir, "mixed.parquet")
	writeImages(t, mixed, encodePNG(t, g), encodePNG(t, colours))
	if err := buildErr(t, "parquet", map[string]any{"path": mixed, "image": "image", "label": "label", "classes": 2, "clients": 1}); !strings.Contains(err.Error(), mixed+": row 1: a colour png image, earlier images grey") {
		t.Errorf("mixed: %v", err)
	}
}

// greyAlphaPNG is a 2×2 PNG of colour type 4 (grey with alpha, 8-bit)
// holding the grey levels at half opacity, written by hand: Go's encoder
// never writes that type.
func greyAlphaPNG(t *testing.T, levels []byte) []byte {
	var raw bytes.Buffer
	for y := range 2 {
		raw.WriteByte(0) // no filter
		for x := range 2 {
			raw.Write([]byte{levels[2*y+x], 128})
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw.Bytes())
	zw.Close()
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		body := append([]byte(kind), data...)
		b.Write(body)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(body))
	}
	chunk("IHDR", []byte{0, 0, 0, 2, 0, 0, 0, 2, 8, 4, 0, 0, 0})
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	if _, err := png.Decode(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeModes writes two rows of the image b as name.parquet.
func writeModes(t *testing.T, dir, name string, b []byte) string {
	path := filepath.Join(dir, name+".parquet")
	writeImages(t, path, b, b)
	return path
}

// TestParquetPageHeaderBomb: a page header declaring 2 GiB (the last
// column chunk's first page, re-encoded with parquet-go's Thrift encoder
// over the start of the page)
// is refused before the page is allocated, at --dry-run and when read.
func TestParquetPageHeaderBomb(t *testing.T) {
	type row struct {
		Label int32   `parquet:"label"`
		X     float64 `parquet:"x"`
	}
	path := filepath.Join(t.TempDir(), "page.parquet")
	if err := parquet.WriteFile(path, []row{{0, 1}, {1, 2}, {0, 3}}); err != nil {
		t.Fatal(err)
	}
	start := forgePageSize(t, path)
	args := map[string]any{"path": path, "label": "label", "features": "x", "classes": 2, "clients": 1}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	a := mustValidate(t, "parquet", args)
	a.Spec().Size(a)
	err := buildErr(t, "parquet", args)
	runtime.ReadMemStats(&after)
	if want := path + ": damaged Parquet file: row group 0 column 1: the page at byte " + strconv.FormatInt(start, 10) + " declares 2147483647 bytes, its column chunk holds"; !strings.Contains(err.Error(), want) {
		t.Errorf("%v, want %q", err, want)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("%d bytes allocated", grew)
	}
}

// TestParquetListsAndNames: a repeated column is refused where one value
// a row is read (it was read as its last value), a ragged or null-holding
// feature list is refused, a list<uint8> image column is named as the
// user wrote it, a nested column is found by its dotted path, and files
// of Hugging Face's train and test splits under one glob are refused
// unless mixed_splits is set.
func TestParquetListsAndNames(t *testing.T) {
	type repeatedRow struct { // a repeated primitive (no LIST wrapper) and an Arrow list
		X     []float64 `parquet:"x"`
		L     []float64 `parquet:"l,list"`
		Label int32     `parquet:"label"`
	}
	type nullRow struct {
		L     []*float64 `parquet:"l,list"`
		Label int32      `parquet:"label"`
	}
	type byteListRow struct {
		Image []int32 `parquet:"image,list"`
		Label int32   `parquet:"label"`
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "lists.parquet")
	parquet.WriteFile(path, []repeatedRow{{[]float64{1, 2}, []float64{1, 2}, 0}, {[]float64{3, 4}, []float64{3, 4}, 1}})
	ragged := filepath.Join(dir, "ragged.parquet")
	parquet.WriteFile(ragged, []repeatedRow{{[]float64{1, 2}, []float64{1, 2}, 0}, {[]float64{3}, []float64{3}, 1}})
	one := 1.0
	nulls := filepath.Join(dir, "nulls.parquet")
	parquet.WriteFile(nulls, []nullRow{{[]*float64{&one, &one}, 0}, {[]*float64{&one, nil}, 1}})
	byteList := filepath.Join(dir, "bytelist.parquet")
	parquet.WriteFile(byteList, []byteListRow{{[]int32{1, 2}, 0}, {[]int32{3, 4}, 1}})
	hf := filepath.Join(dir, "hf")
	os.MkdirAll(hf, 0o755)
	type plain struct {
		X     float64 `parquet:"x"`
		Label int32   `parquet:"label"`
	}
	parquet.WriteFile(filepath.Join(hf, "train-00000-of-00001.parquet"), []plain{{1, 0}, {2, 1}, {3, 0}})
	parquet.WriteFile(filepath.Join(hf, "test-00000-of-00001.parquet"), []plain{{4, 1}})
	glob := filepath.Join(hf, "*.parquet")
	for _, c := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"features": "x,label"}, path + ": column \"x\" is a list (DOUBLE values a row), not one value a row: the feature must be a scalar column; a list column holds all the features, features = its name alone"},
		{map[string]any{"features": "l", "label": "x"}, path + ": column \"x\" is a list (DOUBLE values a row), not one value a row: the label must be a scalar column"},
		{map[string]any{"path": ragged, "features": "x"}, ragged + ": row 1: 1 features, earlier rows 2"},
		{map[string]any{"path": ragged, "features": "l"}, ragged + ": row 1: 1 features, earlier rows 2"},
		{map[string]any{"path": nulls, "features": "l"}, nulls + ": row 1: feature column \"l\": value 1 of the list is null"},
		{map[string]any{"path": byteList, "image": "image"}, byteList + ": column \"image\" is a list (INT32 (INT(32,true)) values a row), not one value a row: the image column (PNG or JPEG bytes, or Hugging Face's {bytes, path} struct) must be a scalar column"},
		{map[string]any{"path": path, "features": "nope"}, path + ": no column \"nope\" for the feature (columns: x (list), l (list), label)"},
		{map[string]any{"path": glob, "features": "x"}, glob + " matches files of the test and train splits (" + filepath.Join(hf, "test-00000-of-00001.parquet") + ", " + filepath.Join(hf, "train-00000-of-00001.parquet") + "): give each split its own path"},
	} {
		args := map[string]any{"path": path, "label": "label", "classes": 2, "clients": 1}
		for k, v := range c.raw {
			args[k] = v
		}
		if err := buildErr(t, "parquet", args); !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.raw, err, c.want)
		}
	}
	// the list read whole, each row's values in order
	f := build(t, "parquet", map[string]any{"path": path, "features": "x", "label": "label", "classes": 2, "clients": 1})
	if d := f.Train[0]; d.Features != 2 || d.N != 2 || d.Row(0)[1] != 2 || d.Row(1)[0] != 3 {
		t.Errorf("x read as %d features: %v %v", d.Features, d.Row(0), d.Row(1))
	}
	f = build(t, "parquet", map[string]any{"path": glob, "mixed_splits": true, "features": "x", "label": "label", "classes": 2, "clients": 1})
	if f.Train[0].N != 4 {
		t.Errorf("mixed_splits: %d rows, want 4", f.Train[0].N)
	}
	train := build(t, "parquet", map[string]any{"path": filepath.Join(hf, "train-*.parquet"), "test": filepath.Join(hf, "test-*.parquet"), "features": "x", "label": "label", "classes": 2, "clients": 1})
	if train.Train[0].N != 3 || train.Test[0].N != 1 {
		t.Errorf("train-* and test-*: %d and %d rows, want 3 and 1", train.Train[0].N, train.Test[0].N)
	}
	nested := filepath.Join(dir, "nested.parquet")
	g := image.NewGray(image.Rect(0, 0, 2, 2))
	writeImages(t, nested, encodePNG(t, g), encodePNG(t, g))
	f = build(t, "parquet", map[string]any{"path": nested, "image": "image.bytes", "label": "label", "classes": 2, "clients": 1})
	sameFederated(t, f, build(t, "parquet", map[string]any{"path": nested, "image": "image", "label": "label", "classes": 2, "clients": 1}))
}

// forgePageSize rewrites the first page header of the last column chunk
// of the Parquet file at path to declare 2 GiB (re-encoded with
// parquet-go's Thrift encoder over the start of the page: the chunk keeps
// its length, and the page index after it its offsets); it returns the
// header's offset.
func forgePageSize(t testing.TB, path string) int64 {
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, _ := fh.Stat()
	pf, err := parquet.OpenFile(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	groups := pf.Metadata().RowGroups
	cols := groups[len(groups)-1].Columns
	md := cols[len(cols)-1].MetaData
	start := md.DataPageOffset
	if md.DictionaryPageOffset != 0 {
		start = md.DictionaryPageOffset
	}
	b, _ := os.ReadFile(path)
	h, _, err := pageHeader(bytes.NewReader(b), start, start+md.TotalCompressedSize)
	if err != nil {
		t.Fatal(err)
	}
	h.CompressedPageSize, h.UncompressedPageSize = 1<<31-1, 1<<31-1
	forged, err := thrift.Marshal(new(thrift.CompactProtocol), h)
	if err != nil {
		t.Fatal(err)
	}
	b = append(append(append([]byte{}, b[:start]...), forged...), b[start+int64(len(forged)):]...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return start
}
