package datasets

import (
	"archive/zip"
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"codeberg.org/sbinet/npyio/npy"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/registry"
)

// NPZParams are the npz reader's parameters.
type NPZParams struct {
	Path       string `param:"path,required,path" doc:"a NumPy .npz archive, or a directory holding the arrays as .npy files"`
	X          string `param:"x" doc:"features: n×d, or n×h×w grey images (flattened row-major), or n×c×h×w / n×h×w×c colour images (see layout); uint8 arrays are pixels scaled to [0, 1]; an archive member or a .npy file in path"`
	Layout     string `param:"layout" doc:"where a four-dimensional x (and x_test) holds its channels: \"channels_first\" (n×c×h×w, PyTorch: read as stored, c planes) or \"channels_last\" (n×h×w×c, Keras and TFDS: each image's channels made planes R, G, B, as cifar and parquet give and cnn{ in_channels = c } expects); \"\" refuses four dimensions"`
	Y          string `param:"y" doc:"labels: n integers (classes > 0) or numbers (classes = 0)"`
	Client     string `param:"client" doc:"each row's writer: n integers, for partition = \"natural\"; \"\" = none"`
	XTest      string `param:"x_test" doc:"test features (optional, with y_test)"`
	YTest      string `param:"y_test" doc:"test labels (optional, with x_test)"`
	ClientTest string `param:"client_test" doc:"each test row's writer (optional): the natural partition pairs test rows with the clients by writer"`
	Classes    int    `param:"classes,required" min:"0" doc:"number of classes (labels 0..classes-1); 0 = regression"`
	BenchSplit
}

func init() {
	registry.DefineWith(registry.Dataset, "npz",
		"NumPy arrays (.npz archive or .npy files): features or uint8 images, labels, and optionally each row's writer (partition = \"natural\")",
		NPZParams{X: "x", Y: "y", BenchSplit: defaultBenchSplit}, loadNPZ)
}

// Check refuses a client array without the natural partition, and test
// arrays given singly.
func (p NPZParams) Check() error {
	if (p.Client != "" || p.ClientTest != "") && p.Partition != MethodNatural {
		return fmt.Errorf("client = %q names each row's writer, which only partition = %q uses: set it, or drop client", p.Client+p.ClientTest, MethodNatural)
	}
	if (p.XTest == "") != (p.YTest == "") {
		return fmt.Errorf("x_test and y_test go together: give both or neither")
	}
	if p.ClientTest != "" && (p.XTest == "" || p.Client == "") {
		return fmt.Errorf("client_test needs x_test, y_test and client")
	}
	switch p.Layout {
	case "", layoutFirst, layoutLast:
		return nil
	}
	return fmt.Errorf("layout = %s%s: give %q (n×c×h×w) or %q (n×h×w×c)", echo(p.Layout).quoted(), registry.DidYouMean(p.Layout, []string{layoutFirst, layoutLast}), layoutFirst, layoutLast)
}

// The layouts of four-dimensional image arrays.
const (
	layoutFirst = "channels_first"
	layoutLast  = "channels_last"
)

// npyArray is a NumPy array read as bytes (uint8) or float64s.
type npyArray struct {
	name  string // "file.npz:x" or the .npy file
	dtype string
	shape []int
	u8    []uint8
	f     []float64
}

// elems is the number of values of the array's shape.
func (a *npyArray) elems() int {
	n, w := a.rows()
	return n * w
}

// rows is the array's first dimension and the product of the others.
func (a *npyArray) rows() (int, int) {
	if len(a.shape) == 0 {
		return 0, 0
	}
	w := 1
	for _, d := range a.shape[1:] {
		w *= d
	}
	return a.shape[0], w
}

// npySource opens the arrays of an archive or a directory.
type npySource struct {
	path   string
	zip    *zip.Reader // nil: a directory of .npy files
	file   *os.File    // the archive
	limits readLimits  // where reading an array stops
}

// openNPY opens path: a directory of .npy files, or an .npz archive,
// whose arrays are read up to the limits b (ceiling, context).
func openNPY(path string, b readLimits) (*npySource, error) {
	st, err := statData(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return &npySource{path: path, limits: b}, nil
	}
	fh, err := openData(path)
	if err != nil {
		return nil, err
	}
	if st, err = fh.Stat(); err != nil {
		fh.Close()
		return nil, err
	}
	z, err := zip.NewReader(fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, fmt.Errorf("%s: not a .npz archive (a zip file of .npy arrays): %s", path, libError(err))
	}
	return &npySource{path: path, zip: z, file: fh, limits: b}, nil
}

// Close closes the archive (a directory holds nothing open).
func (s *npySource) Close() {
	if s.file != nil {
		s.file.Close()
	}
}

// open returns the stream of the array name, its size in bytes and its
// display name.
func (s *npySource) open(name string) (io.ReadCloser, int64, string, error) {
	if s.zip == nil {
		file := filepath.Join(s.path, name)
		if !strings.HasSuffix(name, ".npy") {
			file += ".npy"
		}
		fh, err := openData(file)
		if err != nil {
			return nil, 0, "", err
		}
		st, err := fh.Stat()
		if err != nil {
			fh.Close()
			return nil, 0, "", err
		}
		return fh, st.Size(), file, nil
	}
	var names []string
	for _, f := range s.zip.File {
		if f.Name == name || f.Name == name+".npy" {
			rc, err := f.Open()
			if err != nil {
				return nil, 0, "", fmt.Errorf("%s: array %s: %w", s.path, name, err)
			}
			return rc, int64(min(f.UncompressedSize64, math.MaxInt64)), s.path + ":" + name, nil
		}
		names = append(names, strings.TrimSuffix(f.Name, ".npy"))
	}
	return nil, 0, "", fmt.Errorf("%s: no array %s (arrays: %s)", s.path, echo(name).quoted(), strings.Join(names, ", "))
}

// header reads an array's header and checks that the data it declares
// fit in the bytes there are, so that a header cannot make the reader
// allocate more than the file holds.
func (s *npySource) header(name string) (*npy.Reader, io.Closer, string, reflect.Type, error) {
	rc, size, display, err := s.open(name)
	if err != nil {
		return nil, nil, "", nil, err
	}
	buffered := bufio.NewReaderSize(&ceilingReader{r: rc, limits: s.limits}, 1<<16)
	if err := npyHeaderLength(buffered, size); err != nil {
		rc.Close()
		return nil, nil, "", nil, fmt.Errorf("%s: not a NumPy array: %w", display, err)
	}
	br := &countingReader{r: buffered}
	r, typ, err := npyHeader(br)
	if err != nil {
		rc.Close()
		return nil, nil, "", nil, fmt.Errorf("%s: not a NumPy array: %s", display, libError(err))
	}
	h := r.Header.Descr
	h.Type = strings.Trim(h.Type, "'")
	if h.Fortran {
		rc.Close()
		return nil, nil, "", nil, fmt.Errorf("%s: the array is stored in Fortran order: save it in C order (np.ascontiguousarray)", display)
	}
	if !numericKind(typ.Kind()) {
		rc.Close()
		return nil, nil, "", nil, fmt.Errorf("%s: dtype %s is not numeric: fedlab reads integer and floating-point arrays", display, echo(h.Type).quoted())
	}
	elems := 1
	for _, d := range h.Shape {
		if d < 0 || (d > 0 && elems > math.MaxInt32/d) {
			rc.Close()
			return nil, nil, "", nil, fmt.Errorf("%s: shape %v is too large", display, h.Shape)
		}
		elems *= d
	}
	if need, data := budget.Product(elems, int(typ.Size())), uint64(max(size-br.n, 0)); need > data {
		rc.Close()
		return nil, nil, "", nil, fmt.Errorf("%s: the header declares shape %v of %s (%d bytes), but %d bytes follow it: truncated", display, h.Shape, h.Type, need, data)
	}
	return r, rc, display, typ, nil
}

// shape reads the shape and type that array name's header declares (the
// header checked: the data fit in the bytes there are).
func (s *npySource) shape(name string) ([]int, reflect.Type, string, error) {
	r, rc, display, typ, err := s.header(name)
	if err != nil {
		return nil, nil, "", err
	}
	rc.Close()
	return r.Header.Descr.Shape, typ, display, nil
}

// numericKind reports whether the reader converts arrays of kind k.
func numericKind(k reflect.Kind) bool {
	switch k {
	case reflect.Uint8, reflect.Int8, reflect.Int16, reflect.Uint16, reflect.Int32, reflect.Uint32,
		reflect.Int64, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// maxNPYHeader bounds the header length of an .npy file: the library
// allocates the length it reads before reading the header, so a 12-byte
// file could otherwise make it allocate 4 GiB.
const maxNPYHeader = 1 << 20

// npyHeaderLength peeks at the header length an .npy file declares
// (after the magic string and the version: two bytes little-endian in
// version 1, four in versions 2 and 3) and refuses one longer than
// maxNPYHeader or than the file.
func npyHeaderLength(r *bufio.Reader, size int64) error {
	head, _ := r.Peek(12)
	if len(head) < 10 || string(head[:6]) != "\x93NUMPY" {
		return fmt.Errorf("no .npy magic string at the start")
	}
	n := int64(binary.LittleEndian.Uint16(head[8:10]))
	if head[6] >= 2 {
		if len(head) < 12 {
			return fmt.Errorf("the file ends in the header")
		}
		n = int64(binary.LittleEndian.Uint32(head[8:12]))
	}
	if n > maxNPYHeader || n > size {
		return fmt.Errorf("the header declares %d bytes, the file holds %d", n, size)
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// npyHeader reads an .npy header with the library, turning its panics on
// malformed headers into errors.
func npyHeader(r io.Reader) (rd *npy.Reader, typ reflect.Type, err error) {
	defer func() {
		if p := recover(); p != nil {
			rd, typ, err = nil, nil, fmt.Errorf("malformed header")
		}
	}()
	if rd, err = npy.NewReader(r); err != nil {
		return nil, nil, err
	}
	if typ = npy.TypeFrom(rd.Header.Descr.Type); typ == nil {
		return nil, nil, fmt.Errorf("dtype %s is not supported", echo(rd.Header.Descr.Type).quoted())
	}
	return rd, typ, nil
}

// read reads the array name: uint8 arrays as bytes when keepBytes is
// set, every numeric array otherwise as float64s.
func (s *npySource) read(name string, keepBytes bool) (*npyArray, error) {
	r, rc, display, typ, err := s.header(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	h := r.Header.Descr
	h.Type = strings.Trim(h.Type, "'")
	a := &npyArray{name: display, dtype: h.Type, shape: h.Shape}
	n := 1
	for _, d := range h.Shape {
		n *= d
	}
	if n == 0 {
		return a, nil
	}
	switch typ.Kind() {
	case reflect.Uint8:
		err = readNumbers[uint8](r, n, a, keepBytes)
	case reflect.Int8:
		err = readNumbers[int8](r, n, a, false)
	case reflect.Int16:
		err = readNumbers[int16](r, n, a, false)
	case reflect.Uint16:
		err = readNumbers[uint16](r, n, a, false)
	case reflect.Int32:
		err = readNumbers[int32](r, n, a, false)
	case reflect.Uint32:
		err = readNumbers[uint32](r, n, a, false)
	case reflect.Int64:
		err = readNumbers[int64](r, n, a, false)
	case reflect.Uint64:
		err = readNumbers[uint64](r, n, a, false)
	case reflect.Float32:
		err = readNumbers[float32](r, n, a, false)
	case reflect.Float64:
		err = readNumbers[float64](r, n, a, false)
	default:
		return nil, fmt.Errorf("%s: dtype %s is not numeric: fedlab reads integer and floating-point arrays", display, echo(h.Type).quoted())
	}
	var ce *CeilingError
	switch {
	case errors.As(err, &ce):
		return nil, fmt.Errorf("%s: %w", display, err)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("%s: the data end before the %d values of shape %v: truncated", display, n, h.Shape)
	case err != nil:
		return nil, fmt.Errorf("%s: %s", display, libError(err))
	}
	return a, nil
}

// number is the element types readNumbers reads.
type number interface {
	~uint8 | ~int8 | ~int16 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

// readNumbers reads n values of type T into a.u8 (uint8 with keepBytes)
// or a.f.
func readNumbers[T number](r *npy.Reader, n int, a *npyArray, keepBytes bool) error {
	v := make([]T, n)
	if err := r.Read(&v); err != nil {
		return err
	}
	if keepBytes {
		a.u8 = any(v).([]uint8)
		return nil
	}
	a.f = make([]float64, n)
	for i, x := range v {
		a.f[i] = float64(x)
	}
	return nil
}

// Memory declares the data's memory from the array headers (0 when they
// cannot be read: loading then says why).
func (p NPZParams) Memory() (uint64, string) {
	src, err := openNPY(p.Path, defaultLimits())
	if err != nil {
		return 0, ""
	}
	defer src.Close()
	var s size
	for i, names := range [][3]string{{p.X, p.Y, p.Client}, {p.XTest, p.YTest, p.ClientTest}} {
		name := names[0]
		if name == "" {
			continue
		}
		shape, typ, _, err := src.shape(name)
		if err != nil {
			return 0, ""
		}
		a := npyArray{shape: shape}
		n, w := a.rows()
		s.name(name, fmt.Sprint(a.shape))
		kept := n
		if k := []int{p.TrainSamples, p.TestSamples}[i]; k > 0 && k < n {
			kept = k
		}
		raw := budget.Product(n, w, int(typ.Size())) // the array read
		for _, other := range names[1:] {            // the labels and writers read, as declared, and as float64s
			if other == "" {
				continue
			}
			shape, typ, _, err := src.shape(other)
			if err != nil {
				return 0, ""
			}
			raw = budget.Sum(raw, budget.Product((&npyArray{shape: shape}).elems(), int(typ.Size())+8))
		}
		if typ.Kind() == reflect.Uint8 {
			s.bytes += pixelBytes(kept, w, raw)
		} else {
			s.bytes += sampleBytes(kept, w, raw)
		}
	}
	return s.result()
}

// loadNPZ reads the npz dataset, stopping at c's memory ceiling or when c's context ends.
func loadNPZ(c registry.BuildContext, p NPZParams) (*core.Federated, error) {
	src, err := openNPY(p.Path, limitsOf(c))
	if err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	defer src.Close()
	train, err := src.pooled(p.X, p.Y, p.Client, p.Layout)
	if err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	var test *pooled
	if p.XTest != "" {
		if test, err = src.pooled(p.XTest, p.YTest, p.ClientTest, p.Layout); err != nil {
			return nil, fmt.Errorf("npz: %w", err)
		}
	}
	return federate(filepath.Base(p.Path), train, test, p.BenchSplit, p.Classes, benchStreams,
		"name the array of each row's writer with client = NAME")
}

// pooled reads the features x (four-dimensional images in layout),
// labels y and writers client ("" = none). The shapes are checked on the
// headers before the data are read, so that a member declaring more
// values than x has rows is refused before it is expanded.
func (s *npySource) pooled(x, y, client, layout string) (*pooled, error) {
	shape, _, xname, err := s.shape(x)
	if err != nil {
		return nil, err
	}
	if err := checkLayout(xname, shape, layout); err != nil {
		return nil, err
	}
	n, w := (&npyArray{shape: shape}).rows()
	if n == 0 {
		return nil, fmt.Errorf("%s: shape %v: no samples", xname, shape)
	}
	for _, c := range []struct{ name, what string }{{y, "labels"}, {client, "writers"}} {
		if c.name == "" {
			continue
		}
		cs, _, display, err := s.shape(c.name)
		if err != nil {
			return nil, err
		}
		if !columnShape(cs, n) {
			return nil, fmt.Errorf("%s: %s of shape %v, want (%d,) like the %d rows of %s", display, c.what, cs, n, n, xname)
		}
	}
	xs, err := s.read(x, true)
	if err != nil {
		return nil, err
	}
	if layout == layoutLast && len(xs.shape) == 4 {
		xs.planes()
	}
	ys, err := s.read(y, false)
	if err != nil {
		return nil, err
	}
	p := &pooled{name: ys.name, n: n, features: w, pix: xs.u8, x: xs.f, y: ys.f,
		where: func(i int) string { return fmt.Sprintf("row %d", i) }}
	if client != "" {
		cs, err := s.read(client, false)
		if err != nil {
			return nil, err
		}
		index := map[float64]int{}
		p.client = make([]int, n)
		for i, v := range cs.f {
			if v != math.Trunc(v) {
				return nil, fmt.Errorf("%s: row %d: writer %g is not an integer id", cs.name, i, v)
			}
			c, ok := index[v]
			if !ok {
				c = len(p.ids)
				index[v] = c
				p.ids = append(p.ids, strconv.FormatFloat(v, 'f', -1, 64))
			}
			p.client[i] = c
		}
	}
	return p, nil
}

// columnShape reports whether shape is (n,) or (n, 1).
func columnShape(shape []int, n int) bool {
	return (len(shape) == 1 && shape[0] == n) || (len(shape) == 2 && shape[0] == n && shape[1] == 1)
}

// checkLayout refuses an array of four dimensions or more unless layout
// says where its channels are (four dimensions only).
func checkLayout(name string, shape []int, layout string) error {
	switch {
	case len(shape) < 4:
		return nil
	case len(shape) > 4:
		return fmt.Errorf("%s: shape %v: fedlab reads samples of at most three dimensions (images c×h×w or h×w×c)", name, shape)
	case layout == "":
		return fmt.Errorf("%s: shape %v has four dimensions: say where the images' channels are, layout = %q (n×h×w×c: Keras, TFDS; each image's channels made planes, as cifar gives and cnn{ in_channels = c } expects) or layout = %q (n×c×h×w: PyTorch; read as stored)",
			name, shape, layoutLast, layoutFirst)
	}
	return nil
}

// planes reorders an n×h×w×c array's images into c planes of h×w each
// (channels first), in place.
func (a *npyArray) planes() {
	n, F := a.rows()
	hw, c := a.shape[1]*a.shape[2], a.shape[3]
	if a.u8 != nil {
		toPlanes(a.u8, n, F, hw, c)
	} else {
		toPlanes(a.f, n, F, hw, c)
	}
	a.shape = []int{a.shape[0], a.shape[3], a.shape[1], a.shape[2]}
}

// toPlanes reorders each of the n images of F = hw·c values in v from
// pixel-interleaved channels to c planes of hw pixels.
func toPlanes[T any](v []T, n, F, hw, c int) {
	buf := make([]T, F)
	for k := range n {
		img := v[k*F : (k+1)*F]
		for p := range hw {
			for ch := range c {
				buf[ch*hw+p] = img[p*c+ch]
			}
		}
		copy(img, buf)
	}
}
