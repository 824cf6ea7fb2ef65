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
	Path       string `param:"path,required" doc:"a NumPy .npz archive, or a directory holding the arrays as .npy files"`
	X          string `param:"x" doc:"features: n×d, or n×h×w(×c) images (flattened row-major); uint8 arrays are pixels scaled to [0, 1]; an archive member or a .npy file in path"`
	Y          string `param:"y" doc:"labels: n integers (classes > 0) or numbers (classes = 0)"`
	Client     string `param:"client" doc:"each row's writer: n integers, for partition = \"natural\"; \"\" = none"`
	XTest      string `param:"x_test" doc:"test features (optional, with y_test)"`
	YTest      string `param:"y_test" doc:"test labels (optional, with x_test)"`
	ClientTest string `param:"client_test" doc:"each test row's writer (optional): the natural partition pairs test rows with the clients by writer"`
	Classes    int    `param:"classes,required" min:"0" doc:"number of classes (labels 0..classes-1); 0 = regression"`
	benchSplit
}

func init() {
	registry.Define(registry.Dataset, "npz",
		"NumPy arrays (.npz archive or .npy files): features or uint8 images, labels, and optionally each row's writer (partition = \"natural\")",
		NPZParams{X: "x", Y: "y", benchSplit: defaultBenchSplit}, loadNPZ)
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
	return nil
}

// npyArray is a NumPy array read as bytes (uint8) or float64s.
type npyArray struct {
	name  string // "file.npz:x" or the .npy file
	dtype string
	shape []int
	u8    []uint8
	f     []float64
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
	path    string
	zip     *zip.ReadCloser // nil: a directory of .npy files
	ceiling budget.Budget   // where reading an array stops
}

// openNPY opens path: a directory of .npy files, or an .npz archive,
// whose arrays are read up to the memory ceiling b.
func openNPY(path string, b budget.Budget) (*npySource, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return &npySource{path: path, ceiling: b}, nil
	}
	z, err := zip.OpenReader(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a .npz archive (a zip file of .npy arrays): %s", path, libError(err))
	}
	return &npySource{path: path, zip: z, ceiling: b}, nil
}

// Close closes the archive (a directory holds nothing open).
func (s *npySource) Close() {
	if s.zip != nil {
		s.zip.Close()
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
		fh, err := os.Open(file)
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
	buffered := bufio.NewReaderSize(&ceilingReader{r: rc, ceiling: s.ceiling}, 1<<16)
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
	src, err := openNPY(p.Path, p.Budget())
	if err != nil {
		return 0, ""
	}
	defer src.Close()
	var s size
	for i, name := range []string{p.X, p.XTest} {
		if name == "" {
			continue
		}
		r, rc, _, typ, err := src.header(name)
		if err != nil {
			return 0, ""
		}
		rc.Close()
		a := npyArray{shape: r.Header.Descr.Shape}
		n, w := a.rows()
		s.name(name, fmt.Sprint(a.shape))
		kept := n
		if k := []int{p.TrainSamples, p.TestSamples}[i]; k > 0 && k < n {
			kept = k
		}
		raw := budget.Sum(budget.Product(n, w, int(typ.Size())), budget.Product(n, 16)) // the array read, the labels read
		if typ.Kind() == reflect.Uint8 {
			s.bytes += pixelBytes(kept, w, raw)
		} else {
			s.bytes += sampleBytes(kept, w, raw)
		}
	}
	return s.result()
}

// loadNPZ reads the npz dataset.
func loadNPZ(p NPZParams) (*core.Federated, error) {
	src, err := openNPY(p.Path, p.Budget())
	if err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	defer src.Close()
	train, err := src.pooled(p.X, p.Y, p.Client)
	if err != nil {
		return nil, fmt.Errorf("npz: %w", err)
	}
	var test *pooled
	if p.XTest != "" {
		if test, err = src.pooled(p.XTest, p.YTest, p.ClientTest); err != nil {
			return nil, fmt.Errorf("npz: %w", err)
		}
	}
	return federate(filepath.Base(p.Path), train, test, p.benchSplit, p.Classes, benchStreams,
		"name the array of each row's writer with client = NAME")
}

// pooled reads the features x, labels y and writers client ("" = none).
func (s *npySource) pooled(x, y, client string) (*pooled, error) {
	xs, err := s.read(x, true)
	if err != nil {
		return nil, err
	}
	n, w := xs.rows()
	if n == 0 {
		return nil, fmt.Errorf("%s: shape %v: no samples", xs.name, xs.shape)
	}
	ys, err := s.read(y, false)
	if err != nil {
		return nil, err
	}
	if !columnShape(ys.shape, n) {
		return nil, fmt.Errorf("%s: labels of shape %v, want (%d,) like the %d rows of %s", ys.name, ys.shape, n, n, xs.name)
	}
	p := &pooled{name: ys.name, n: n, features: w, pix: xs.u8, x: xs.f, y: ys.f,
		where: func(i int) string { return fmt.Sprintf("row %d", i) }}
	if client != "" {
		cs, err := s.read(client, false)
		if err != nil {
			return nil, err
		}
		if !columnShape(cs.shape, n) {
			return nil, fmt.Errorf("%s: writers of shape %v, want (%d,) like the %d rows of %s", cs.name, cs.shape, n, n, xs.name)
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
