// Package parquetdata registers the dataset "parquet" (fedlab.data.parquet):
// Parquet files, Hugging Face's and Flower Datasets' form (flwrlabs/femnist,
// cifar10), read with github.com/parquet-go/parquet-go. It is a package of
// its own so that only the binaries that import it (registry/all) link the
// Parquet library; it reads into the benchmark formats' table and
// partitions with their keys (datasets.Samples, datasets.BenchSplit).
package parquetdata

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // decodes JPEG image columns
	_ "image/png"  // decodes PNG image columns
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/datasets"
	"github.com/fedlab/fedlab/registry"
)

// parquetParams are the Parquet reader's parameters.
type parquetParams struct {
	Path     string    `param:"path,required,path" doc:"a Parquet file, a directory (every *.parquet, in name order) or a glob"`
	Label    string    `param:"label,required" doc:"the label column (integers for classes > 0, numbers for classes = 0)"`
	Client   string    `param:"client" doc:"each row's writer (string or integer column), for partition = \"natural\"; \"\" = none"`
	Image    string    `param:"image" doc:"a column of PNG or JPEG bytes, or Hugging Face's {bytes, path} struct (a nested column by its dotted path): grey images (8-bit grey, grey with alpha, a palette of greys) give one byte per pixel, colour images three planes R, G, B (alpha dropped); 16-bit images are refused"`
	Features string    `param:"features" doc:"numeric feature columns, comma-separated (\"f0,f1,f2\"), or one list-valued column"`
	Test     string    `param:"test,path" doc:"the test split, a file, directory or glob like path (optional)"`
	Mixed    bool      `param:"mixed_splits" doc:"read files of several Hugging Face splits (train-*, test-*, validation-*) as one split; without it, a path or glob whose files name two splits is refused"`
	Classes  int       `param:"classes,required" min:"0" doc:"number of classes, labels 0..classes-1; 0 = regression"`
	Labels   []float64 `param:"labels" min:"0" doc:"keep only the samples whose label is listed ({0, ..., 9}: FEMNIST's digits), relabelled 0..k-1 in the listed order (classes = k), before the partition; {} = every sample"`
	datasets.BenchSplit
}

// Params are the parameters of the dataset "parquet".
type Params struct{ parquetParams }

func init() {
	registry.DefineWith(registry.Dataset, "parquet",
		"Parquet files (Hugging Face / Flower Datasets: flwrlabs/femnist, cifar10): an image column (PNG/JPEG) or feature columns, a label column and optionally a writer column (partition = \"natural\")",
		Params{parquetParams{BenchSplit: datasets.DefaultBenchSplit()}},
		func(c registry.BuildContext, p Params) (*core.Federated, error) {
			return loadParquet(c, p.parquetParams)
		})
}

// Check refuses a labels list that does not match classes, an image
// column with feature columns, and a client column without the natural
// partition.
func (p parquetParams) Check() error {
	if err := datasets.CheckLabelList(p.Labels, p.Classes); err != nil {
		return err
	}
	if (p.Image == "") == (p.Features == "") {
		return fmt.Errorf("give image (a column of encoded images) or features (numeric columns), one of them")
	}
	if p.Client != "" && p.Partition != datasets.MethodNatural {
		return fmt.Errorf("client = %q names each row's writer, which only partition = %q uses: set it, or drop client", p.Client, datasets.MethodNatural)
	}
	return nil
}

// featureNames are the feature columns (none for images).
func (p parquetParams) featureNames() []string {
	if p.Features == "" {
		return nil
	}
	names := strings.Split(p.Features, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}

// files expands path (parquetFiles), refusing files of two Hugging Face
// splits unless the user said they mix them.
func (p parquetParams) files(path string) ([]string, error) {
	files, err := parquetFiles(path)
	if err != nil || p.Mixed {
		return files, err
	}
	first := map[string]string{} // split → its first file
	var splits []string
	for _, f := range files {
		split, _, ok := strings.Cut(filepath.Base(f), "-")
		if !ok || !slices.Contains([]string{"train", "test", "validation"}, split) {
			continue
		}
		if _, seen := first[split]; !seen {
			first[split] = f
			splits = append(splits, split)
		}
	}
	if len(splits) > 1 {
		return nil, fmt.Errorf("%s matches files of the %s and %s splits (%s, %s): give each split its own path (path = the train-* files, test = the test-* files), or set mixed_splits = true to read them as one",
			path, splits[0], splits[1], first[splits[0]], first[splits[1]])
	}
	return files, nil
}

// parquetFiles expands path: a file, a directory's *.parquet files or a
// glob, in name order.
func parquetFiles(path string) ([]string, error) {
	if strings.ContainsAny(path, "*?[") {
		files, err := filepath.Glob(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no file matches", path)
		}
		sort.Strings(files)
		return files, nil
	}
	st, err := datasets.StatData(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	files, _ := filepath.Glob(filepath.Join(path, "*.parquet"))
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *.parquet files", path)
	}
	sort.Strings(files)
	return files, nil
}

// parquetColumns are the leaf columns a reader takes from a file.
type parquetColumns struct {
	label, client, image int   // leaf indexes; -1 = none
	features             []int // leaf indexes of the feature columns
	list                 bool  // the features are one list-valued column
	nullElement          int   // the definition level of a null in the list (-1: its elements cannot be null)
	names                []string
	featureAt            map[int]int // leaf index → feature
}

// columnName is how messages name a leaf column: its dotted path, or for
// a list (Arrow's LIST: name.list.element) its name and "(list)".
func columnName(l []string, repeated bool) string {
	if len(l) == 3 && l[1] == "list" && (l[2] == "element" || l[2] == "item") {
		return l[0] + " (list)"
	}
	if repeated {
		return strings.Join(l, ".") + " (list)"
	}
	return strings.Join(l, ".")
}

// columns finds the reader's columns in a file's schema: a name is a
// top-level column or a dotted path to a nested one; only the features
// may be a list (repeated) column, and only one.
func (p parquetParams) columns(path string, schema *parquet.Schema) (parquetColumns, error) {
	leaves := schema.Columns()
	repeated := make([]bool, len(leaves))
	var names []string
	for i, l := range leaves {
		leaf, _ := schema.Lookup(l...)
		repeated[i] = leaf.MaxRepetitionLevel > 0
		if name := columnName(l, repeated[i]); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	find := func(name, role string, list bool) (int, bool, error) {
		at := -1
		for i, l := range leaves {
			if strings.Join(l, ".") == name {
				at = i
			}
		}
		if at < 0 {
			var under []int
			for i, l := range leaves {
				if len(l) > 1 && l[0] == name {
					under = append(under, i)
				}
			}
			if len(under) > 1 || (len(under) == 1 && !repeated[under[0]]) {
				var sub []string
				for _, i := range under {
					sub = append(sub, strings.Join(leaves[i], "."))
				}
				return -1, false, fmt.Errorf("%s: column %s is a group of columns (%s): name one of them as the %s", path, datasets.Quote(name), strings.Join(sub, ", "), role)
			}
			if len(under) == 0 {
				return -1, false, fmt.Errorf("%s: no column %s for the %s (columns: %s)", path, datasets.Quote(name), role, strings.Join(names, ", "))
			}
			at = under[0]
		}
		if repeated[at] && !list {
			return -1, false, fmt.Errorf("%s: column %s is a list (%s values a row), not one value a row: the %s must be a scalar column%s", path, datasets.Quote(name), schemaType(schema, leaves[at]), role, map[bool]string{true: "; a list column holds all the features, features = its name alone", false: ""}[role == "feature"])
		}
		return at, repeated[at], nil
	}
	c := parquetColumns{label: -1, client: -1, image: -1, nullElement: -1}
	var err error
	if c.label, _, err = find(p.Label, "label", false); err != nil {
		return c, err
	}
	if p.Client != "" {
		if c.client, _, err = find(p.Client, "writer column", false); err != nil {
			return c, err
		}
	}
	if p.Image != "" {
		for i, l := range leaves { // Hugging Face's Image feature: {bytes, path}
			if len(l) == 2 && l[0] == p.Image && l[1] == "bytes" && !repeated[i] {
				c.image = i
			}
		}
		if c.image < 0 {
			if c.image, _, err = find(p.Image, "image column (PNG or JPEG bytes, or Hugging Face's {bytes, path} struct)", false); err != nil {
				return c, err
			}
		}
		if leaf, _ := schema.Lookup(leaves[c.image]...); leaf.Node.Type().Kind() != parquet.ByteArray {
			return c, fmt.Errorf("%s: column %s holds %s values, not encoded images: image names a column of PNG or JPEG bytes, or Hugging Face's {bytes, path} struct", path, datasets.Quote(p.Image), schemaType(schema, leaves[c.image]))
		}
	}
	c.names, c.featureAt = p.featureNames(), map[int]int{}
	for k, name := range c.names {
		i, list, err := find(name, "feature", len(c.names) == 1)
		if err != nil {
			return c, err
		}
		c.features, c.list = append(c.features, i), list
		c.featureAt[i] = k
		if leaf, _ := schema.Lookup(leaves[i]...); list && leaf.Node.Optional() {
			c.nullElement = leaf.MaxDefinitionLevel - 1
		}
	}
	return c, nil
}

// schemaType names a leaf column's physical type (and its logical type,
// when it has one).
func schemaType(schema *parquet.Schema, path []string) string {
	leaf, _ := schema.Lookup(path...)
	t := leaf.Node.Type()
	if lt := t.LogicalType(); lt != nil {
		return fmt.Sprintf("%s (%s)", t.Kind(), lt)
	}
	return t.Kind().String()
}

// parquetSet accumulates the rows of a split.
type parquetSet struct {
	p                        *datasets.Samples
	index                    map[string]int // writer → index into p.Writers
	spans                    []parquetSpan
	imageH, imageW, channels int      // fixed by the first image
	pending                  [][]byte // encoded images of the batch, decoded by flush
	pendingRows              []int    // their rows in the file
	rows                     int      // the rows the footers declare (capacity of the pixel array)
	bytes                    int64    // the files' size
	featuresPerSample        int      // fixed by the first row of features; -1 before it
	limits                   datasets.Limits
}

// parquetSpan is the rows of one file.
type parquetSpan struct {
	path       string
	start, end int
}

// readParquet reads every file of a split, stopping at the limits b (ceiling, context).
func (p parquetParams) readParquet(path string, b datasets.Limits) (*datasets.Samples, error) {
	files, err := p.files(path)
	if err != nil {
		return nil, err
	}
	s := &parquetSet{p: &datasets.Samples{Name: path}, index: map[string]int{}, featuresPerSample: -1, limits: b}
	for _, f := range files { // the footers' row counts, to size the pixel array once
		n, err := parquetRows(f)
		if err != nil {
			break // readFile names the damage
		}
		s.rows += int(min(n, math.MaxInt32))
		if st, err := os.Stat(f); err == nil {
			s.bytes += st.Size()
		}
	}
	if p.Client != "" {
		s.p.Writer = []int{}
	}
	for _, f := range files {
		start := len(s.p.Y)
		if err := p.readFile(f, s); err != nil {
			return nil, err
		}
		s.spans = append(s.spans, parquetSpan{f, start, len(s.p.Y)})
	}
	s.p.Where = func(i int) string {
		for _, sp := range s.spans {
			if i < sp.end {
				return fmt.Sprintf("%s row %d", filepath.Base(sp.path), i-sp.start)
			}
		}
		return fmt.Sprintf("row %d", i)
	}
	return s.p, nil
}

// readFile reads one Parquet file's rows into s, turning the library's
// panics on damaged files into errors.
func (p parquetParams) readFile(path string, s *parquetSet) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: damaged Parquet file (the reader failed: %s)", path, datasets.LibMessage(r))
		}
	}()
	fh, err := datasets.OpenData(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	pf, err := openParquet(stopReaderAt{fh, s.limits}, st.Size())
	if err != nil {
		return fmt.Errorf("%s: not a Parquet file, or truncated: %s", path, datasets.LibMessage(err))
	}
	cols, err := p.columns(path, pf.Schema())
	if err != nil {
		return err
	}
	if err := checkPages(fh, pf, s.limits); err != nil {
		return fmt.Errorf("%s: damaged Parquet file: %w", path, err)
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	rows := make([]parquet.Row, 512)
	row := 0
	var read int64
	for {
		n, err := r.ReadRows(rows)
		for _, values := range rows[:n] {
			if err := p.addRow(s, cols, values, row); err != nil {
				return fmt.Errorf("%s: row %d: %w", path, row, err)
			}
			row++
			read += int64(s.p.Features)
		}
		if err := s.flush(path); err != nil {
			return err
		}
		if read >= datasets.ReadCheckEvery {
			if cerr := s.limits.CheckCeiling(read); cerr != nil {
				return fmt.Errorf("%s: row %d: %w", path, row, cerr)
			}
			read = 0
		}
		if serr := s.limits.Stopped(); serr != nil {
			return fmt.Errorf("%s: row %d: %w", path, row, serr)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: row %d: damaged Parquet data: %s", path, row, datasets.LibMessage(err))
		}
	}
}

// openParquet opens a Parquet file of size bytes after checking its
// footer's length against the file: parquet-go allocates the length the
// last 8 bytes declare before reading it, so a damaged length of 2 GB
// took seconds and gigabytes before failing (the hang of FuzzReadParquet;
// TestParquetFooterLengthIsChecked).
func openParquet(r io.ReaderAt, size int64) (*parquet.File, error) {
	var tail [8]byte
	if size < 12 {
		return nil, fmt.Errorf("%d bytes: too short for a Parquet file (a 4-byte magic, a footer and its 8-byte trailer)", size)
	}
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return nil, err
	}
	if footer := int64(binary.LittleEndian.Uint32(tail[:4])); string(tail[4:]) == "PAR1" && footer > size-12 {
		return nil, fmt.Errorf("the footer's length is %d bytes, but the file holds %d", footer, size)
	}
	return parquet.OpenFile(r, size)
}

// checkPages checks the page headers of every column chunk before
// parquet-go reads them: it allocates the sizes a header declares before
// reading the page, so a header declaring 2 GiB in a small file took 2 GiB
// (and the whole address space under a limit). Each header is decoded
// with parquet-go's Thrift decoder from the bytes of its chunk: a page
// must fit in what is left of its chunk, and its uncompressed size under
// b's ceiling (the check stops too when b's context ends).
func checkPages(r io.ReaderAt, pf *parquet.File, b datasets.Limits) error {
	size := pf.Size()
	for g, rg := range pf.Metadata().RowGroups {
		for c, chunk := range rg.Columns {
			md := chunk.MetaData
			start := md.DataPageOffset
			if md.DictionaryPageOffset != 0 {
				start = md.DictionaryPageOffset
			}
			end := start + md.TotalCompressedSize
			if start < 0 || md.TotalCompressedSize < 0 || end > size || end < start {
				return fmt.Errorf("row group %d column %d: the chunk declares bytes %d to %d, the file holds %d", g, c, start, end, size)
			}
			for pos := start; pos < end; {
				h, n, err := pageHeader(r, pos, end)
				if err != nil {
					return fmt.Errorf("row group %d column %d: the page header at byte %d: %s", g, c, pos, datasets.LibMessage(err))
				}
				if left := end - pos - n; int64(h.CompressedPageSize) > left {
					return fmt.Errorf("row group %d column %d: the page at byte %d declares %d bytes, its column chunk holds %d more", g, c, pos, h.CompressedPageSize, left)
				}
				if err := b.CheckGrowth(pos, uint64(max(h.UncompressedPageSize, 0))); err != nil {
					return fmt.Errorf("row group %d column %d: the page at byte %d declares %d bytes uncompressed: %w", g, c, pos, h.UncompressedPageSize, err)
				}
				pos += n + int64(h.CompressedPageSize)
			}
		}
	}
	return nil
}

// pageHeader decodes the page header at pos (before end) and returns it
// and its length, reading a window of the chunk that doubles until the
// header fits in it.
func pageHeader(r io.ReaderAt, pos, end int64) (*format.PageHeader, int64, error) {
	for window := int64(4 << 10); ; window *= 2 {
		window = min(window, end-pos)
		buf := make([]byte, window)
		if _, err := r.ReadAt(buf, pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		rd := new(thrift.CompactProtocol).NewReaderFromBytes(buf)
		h := new(format.PageHeader)
		err := thrift.NewDecoder(rd).Decode(h)
		if err == nil {
			return h, window - int64(rd.Reader().(*bytes.Reader).Len()), nil
		}
		if window == end-pos || window >= 1<<20 { // no page header is a megabyte long
			return nil, 0, err
		}
	}
}

// stopReaderAt stops the Parquet reader's reads once the build's context
// ends (datasets.Limits).
type stopReaderAt struct {
	r      io.ReaderAt
	limits datasets.Limits
}

func (s stopReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if err := s.limits.Stopped(); err != nil {
		return 0, err
	}
	return s.r.ReadAt(p, off)
}

// addRow appends one row's label, writer and features.
func (p parquetParams) addRow(s *parquetSet, c parquetColumns, values parquet.Row, row int) error {
	var label, client, img *parquet.Value
	var feats []float64
	scalar := make([]float64, len(c.features))
	for i := range values {
		v := &values[i]
		col := v.Column()
		switch {
		case col == c.label:
			label = v
		case col == c.client:
			client = v
		case col == c.image:
			img = v
		default:
			k, ok := c.featureAt[col]
			if !ok {
				continue
			}
			if v.IsNull() {
				if c.list && v.DefinitionLevel() != c.nullElement {
					continue // an empty list
				}
				if c.list {
					return fmt.Errorf("feature column %s: value %d of the list is null", datasets.Quote(c.names[k]), len(feats))
				}
				return fmt.Errorf("feature column %s is null", datasets.Quote(c.names[k]))
			}
			x, err := parquetNumber(*v)
			if err != nil {
				return fmt.Errorf("feature column %s: %w", datasets.Quote(c.names[k]), err)
			}
			if c.list {
				feats = append(feats, x)
			} else {
				scalar[k] = x
			}
		}
	}
	if !c.list {
		feats = scalar
	}
	if label == nil || label.IsNull() {
		return fmt.Errorf("the label is null")
	}
	y, err := parquetNumber(*label)
	if err != nil {
		return fmt.Errorf("label column %s: %w", datasets.Quote(p.Label), err)
	}
	d := s.p
	if c.client >= 0 {
		if client == nil || client.IsNull() {
			return fmt.Errorf("the writer (column %s) is null", datasets.Quote(p.Client))
		}
		id := client.String()
		if client.Kind() == parquet.ByteArray {
			id = string(client.ByteArray())
		}
		w, ok := s.index[id]
		if !ok {
			w = len(d.Writers)
			s.index[id] = w
			d.Writers = append(d.Writers, id)
		}
		d.Writer = append(d.Writer, w)
	}
	if c.image >= 0 {
		if img == nil || img.IsNull() {
			return fmt.Errorf("the image is null")
		}
		if err := s.addImage(img.ByteArray(), row); err != nil {
			return err
		}
	} else {
		if s.featuresPerSample < 0 {
			s.featuresPerSample, d.Features = len(feats), len(feats)
		}
		if len(feats) != s.featuresPerSample || len(feats) == 0 {
			return fmt.Errorf("%d features, earlier rows %d", len(feats), s.featuresPerSample)
		}
		d.X = append(d.X, feats...)
	}
	d.Y = append(d.Y, y)
	return nil
}

// parquetNumber reads a numeric Parquet value as a float64.
func parquetNumber(v parquet.Value) (float64, error) {
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			return 1, nil
		}
		return 0, nil
	case parquet.Int32:
		return float64(v.Int32()), nil
	case parquet.Int64:
		return float64(v.Int64()), nil
	case parquet.Float:
		return float64(v.Float()), nil
	case parquet.Double:
		return v.Double(), nil
	}
	return math.NaN(), fmt.Errorf("a %s value is not a number", v.Kind())
}

// addImage queues an encoded image for decoding (flush); the first image
// of a split is decoded at once, to fix the images' size and channels.
func (s *parquetSet) addImage(b []byte, row int) error {
	if s.channels > 0 {
		s.pending = append(s.pending, b)
		s.pendingRows = append(s.pendingRows, row)
		return nil
	}
	cfg, format, channels, err := imageConfig(b)
	if err != nil {
		return err
	}
	// the decoded image takes up to 8 bytes a pixel (16-bit RGBA): its
	// declared size is checked before it is decoded
	if cfg.Width*cfg.Height > maxImagePixels {
		return fmt.Errorf("the %s image declares %d×%d pixels, more than fedlab decodes (%d pixels: 8192×8192)", format, cfg.Width, cfg.Height, maxImagePixels)
	}
	if err := s.limits.CheckGrowth(0, uint64(cfg.Width)*uint64(cfg.Height)*8); err != nil {
		return fmt.Errorf("the %s image declares %d×%d pixels: %w", format, cfg.Width, cfg.Height, err)
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("the image does not decode (%d bytes): %s", len(b), datasets.LibMessage(err))
	}
	r := img.Bounds()
	s.imageH, s.imageW, s.channels = r.Dy(), r.Dx(), channels
	s.p.Features = s.imageH * s.imageW * s.channels
	// a damaged footer may declare any count: trust it up to 64 pixel
	// bytes per byte of file (PNG compresses 28×28 digits about 1.6 times)
	if s.rows > 0 && s.rows <= math.MaxInt32/s.p.Features && int64(s.rows*s.p.Features) <= 64*s.bytes {
		s.p.Pix = slices.Grow(s.p.Pix, s.rows*s.p.Features)
	}
	s.p.Pix = append(s.p.Pix, make([]byte, s.p.Features)...)
	return s.pixels(img, format, s.p.Pix[len(s.p.Pix)-s.p.Features:])
}

// maxImagePixels bounds the pixels of an image column's image.
const maxImagePixels = 8192 * 8192

// imageConfig reads an encoded image's header (image.DecodeConfig): its
// size, format and channels (1 grey, 3 colour), refusing 16-bit images
// (fedlab keeps a byte a channel). A PNG's colour type decides grey or
// colour: grey and grey with alpha are grey, a palette is grey when every
// colour in it is; a JPEG is grey when it has one component.
func imageConfig(b []byte) (image.Config, string, int, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return cfg, format, 0, fmt.Errorf("the image does not decode (%d bytes): %s", len(b), datasets.LibMessage(err))
	}
	switch m := cfg.ColorModel.(type) {
	case color.Palette:
		for _, c := range m {
			if r, g, b, _ := c.RGBA(); r != g || g != b {
				return cfg, format, 3, nil
			}
		}
		return cfg, format, 1, nil
	}
	switch cfg.ColorModel {
	case color.GrayModel:
		return cfg, format, 1, nil
	case color.Gray16Model, color.RGBA64Model, color.NRGBA64Model:
		return cfg, format, 0, fmt.Errorf("a 16-bit %s image: fedlab reads 8-bit images (a byte a channel); save them 8-bit", format)
	}
	// a PNG's colour type, byte 25 (after the signature and IHDR's length,
	// name, width, height and bit depth): 4 is grey with alpha
	if format == "png" && len(b) > 25 && string(b[12:16]) == "IHDR" && b[25] == 4 {
		return cfg, format, 1, nil
	}
	return cfg, format, 3, nil
}

// flush decodes the queued images on every core, in place at the end of
// the pixel bytes; an error names the first row (in file order) whose
// image fails. The queued bytes belong to the rows of the last batch read.
func (s *parquetSet) flush(path string) error {
	n, F := len(s.pending), s.p.Features
	if n == 0 {
		return nil
	}
	base := len(s.p.Pix)
	s.p.Pix = append(s.p.Pix, make([]byte, n*F)...)
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				cfg, format, channels, err := imageConfig(s.pending[k])
				switch {
				case err != nil:
					errs[k] = err
				case cfg.Width != s.imageW || cfg.Height != s.imageH:
					errs[k] = fmt.Errorf("a %d×%d %s image, earlier images %d×%d", cfg.Width, cfg.Height, format, s.imageW, s.imageH)
				case channels != s.channels:
					errs[k] = fmt.Errorf("a %s %s image, earlier images %s", greyOrColour(channels), format, greyOrColour(s.channels))
				}
				if errs[k] != nil {
					continue
				}
				img, _, err := image.Decode(bytes.NewReader(s.pending[k]))
				if err != nil {
					errs[k] = fmt.Errorf("the image does not decode (%d bytes): %s", len(s.pending[k]), datasets.LibMessage(err))
					continue
				}
				errs[k] = s.pixels(img, format, s.p.Pix[base+k*F:base+(k+1)*F])
			}
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			return fmt.Errorf("%s: row %d: %w", path, s.pendingRows[k], err)
		}
	}
	s.pending, s.pendingRows = s.pending[:0], s.pendingRows[:0]
	return nil
}

// greyOrColour names an image's channels.
func greyOrColour(channels int) string {
	if channels == 1 {
		return "grey"
	}
	return "colour"
}

// pixels writes a decoded image's bytes into dst: grey images (checked by
// imageConfig) one plane, others three planes R, G, B (alpha dropped),
// each row-major. The image must have the split's size.
func (s *parquetSet) pixels(img image.Image, format string, dst []byte) error {
	r := img.Bounds()
	h, w := r.Dy(), r.Dx()
	if h != s.imageH || w != s.imageW {
		return fmt.Errorf("a %d×%d %s image, earlier images %d×%d", w, h, format, s.imageW, s.imageH)
	}
	g, grey := img.(*image.Gray)
	switch {
	case s.channels == 1 && grey:
		for y := range h {
			copy(dst[y*w:(y+1)*w], g.Pix[y*g.Stride:y*g.Stride+w])
		}
	case s.channels == 1: // a grey palette, or grey with alpha (dropped): R = G = B
		for y := range h {
			for x := range w {
				dst[y*w+x] = color.NRGBAModel.Convert(img.At(r.Min.X+x, r.Min.Y+y)).(color.NRGBA).R
			}
		}
	default:
		plane := h * w
		for y := range h {
			for x := range w {
				c := color.NRGBAModel.Convert(img.At(r.Min.X+x, r.Min.Y+y)).(color.NRGBA)
				k := y*w + x
				dst[k], dst[k+plane], dst[k+2*plane] = c.R, c.G, c.B
			}
		}
	}
	return nil
}

// Memory declares the data's memory from the row counts in the files'
// footers and the width of the first row (0 when a file cannot be read:
// loading then says why). Every row counts: labels filters the rows read
// in place, so this stays an upper bound.
func (p parquetParams) Memory() (uint64, string) {
	return datasets.DeclareSamples([2]string{p.Path, p.Test}, p.Image != "", func(path string) (int64, int, bool) {
		files, err := p.files(path)
		if err != nil {
			return 0, 0, false
		}
		var n int64
		for _, f := range files {
			k, err := parquetRows(f)
			if err != nil {
				return 0, 0, false
			}
			n += k
		}
		width, err := p.firstWidth(files)
		if err != nil {
			return 0, 0, false
		}
		return n, width, true
	})
}

// parquetRows is the row count in a file's footer.
func parquetRows(path string) (n int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged Parquet file")
		}
	}()
	fh, err := datasets.OpenData(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := openParquet(fh, st.Size())
	if err != nil {
		return 0, err
	}
	return pf.NumRows(), nil
}

// firstWidth is the number of features of the first row.
func (p parquetParams) firstWidth(files []string) (width int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("damaged Parquet file")
		}
	}()
	fh, err := datasets.OpenData(files[0])
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := openParquet(fh, st.Size())
	if err != nil {
		return 0, err
	}
	cols, err := p.columns(files[0], pf.Schema())
	if err != nil {
		return 0, err
	}
	if err := checkPages(fh, pf, datasets.DefaultLimits()); err != nil {
		return 0, err
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	rows := make([]parquet.Row, 1)
	if n, err := r.ReadRows(rows); n == 0 {
		return 0, fmt.Errorf("no rows: %v", err)
	}
	s := &parquetSet{p: &datasets.Samples{}, index: map[string]int{}, featuresPerSample: -1, limits: datasets.DefaultLimits()}
	if err := p.addRow(s, cols, rows[0], 0); err != nil {
		return 0, err
	}
	return s.p.Features, nil
}

// loadParquet reads the parquet dataset, stopping at c's memory ceiling or when c's context ends.
func loadParquet(c registry.BuildContext, p parquetParams) (*core.Federated, error) {
	limits := datasets.LimitsOf(c)
	train, err := p.readParquet(p.Path, limits)
	if err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	if err := train.KeepLabels(p.Labels, true); err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	train.NoteDroppedWriters(c, "parquet", p.Labels)
	var test *datasets.Samples
	if p.Test != "" {
		if test, err = p.readParquet(p.Test, limits); err != nil {
			return nil, fmt.Errorf("parquet: test split: %w", err)
		}
		if err := test.KeepLabels(p.Labels, false); err != nil {
			return nil, fmt.Errorf("parquet: test split: %w", err)
		}
	}
	name := filepath.Base(strings.TrimRight(p.Path, "/"))
	if p.Client != "" && len(train.Writers) == 1 {
		return nil, fmt.Errorf("parquet: %s: the client column %s names one writer (%s): a natural partition needs at least two",
			train.Name, datasets.Quote(p.Client), datasets.Quote(train.Writers[0]))
	}
	return datasets.FederateSamples(name, train, test, p.BenchSplit, p.Classes,
		"name the column of each row's writer with client = COLUMN")
}
