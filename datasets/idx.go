package datasets

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// MethodDominant is the partition of the FedDA paper's heterogeneous
// experiments: client m holds a fraction ρ of the samples of class
// m mod classes and shares the rest of that class evenly with the others.
const MethodDominant = "dominant"

// subsetRows returns the rows 0..n-1, or a sorted random subset of k of
// them when 0 < k < n.
func subsetRows(n, k int, rng *rand.Rand, param string) ([]int, error) {
	if k > n {
		return nil, fmt.Errorf("%s = %d, but the data have %d samples", param, k, n)
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	if k == 0 || k == n {
		return rows, nil
	}
	keep := make([]bool, n)
	for _, i := range rng.Perm(n)[:k] {
		keep[i] = true
	}
	rows = rows[:0]
	for i, ok := range keep {
		if ok {
			rows = append(rows, i)
		}
	}
	return rows, nil
}

// PartitionDominant splits samples with labels 0..classes-1 so that client
// m is dominant for class m mod classes: each class's samples are shuffled,
// a fraction rho of them (rounded) is dealt evenly to its dominant clients
// and the rest evenly to the other clients. A class without a dominant
// client (clients < classes) is dealt evenly to all. With clients = classes
// and rho = 0.8 this is the FedDA paper's heterogeneous split (client i
// holds 80% of class i and (1−0.8)/9 of every other class). Each part is
// sorted; an empty client is an error.
func PartitionDominant(labels []int, classes, clients int, rho float64, rng *rand.Rand) ([][]int, error) {
	if err := checkCounts(len(labels), clients, 1); err != nil {
		return nil, err
	}
	if !(rho >= 0 && rho <= 1) {
		return nil, fmt.Errorf("dominant partition: the fraction must lie in [0, 1], got %g", rho)
	}
	byClass := make([][]int, classes)
	for i, c := range labels {
		if c < 0 || c >= classes {
			return nil, fmt.Errorf("dominant partition: sample %d has label %d outside 0..%d", i, c, classes-1)
		}
		byClass[c] = append(byClass[c], i)
	}
	parts := make([][]int, clients)
	deal := func(idx []int, to []int) {
		for j, m := range to {
			parts[m] = append(parts[m], idx[j*len(idx)/len(to):(j+1)*len(idx)/len(to)]...)
		}
	}
	for c, idx := range byClass {
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		var owners, others []int
		for m := range clients {
			if m%classes == c {
				owners = append(owners, m)
			} else {
				others = append(others, m)
			}
		}
		switch {
		case len(owners) == 0:
			deal(idx, others)
		case len(others) == 0:
			deal(idx, owners)
		default:
			k := int(math.Round(rho * float64(len(idx))))
			deal(idx[:k], owners)
			deal(idx[k:], others)
		}
	}
	for m, p := range parts {
		if len(p) == 0 {
			return nil, fmt.Errorf("dominant partition: client %d got no samples (%d samples, %d clients)", m, len(labels), clients)
		}
		slices.Sort(p)
	}
	return parts, nil
}

// IDX is a decoded IDX file of unsigned bytes (type 0x08): the dimensions
// and the values in row-major order.
type IDX struct {
	Dims []int
	Data []byte
}

// LoadIDX reads an IDX file, gunzipping it if the name ends in ".gz",
// checking the default memory ceiling (budget.Ceiling) while it reads.
func LoadIDX(path string) (*IDX, error) { return loadIDX(path, defaultLimits()) }

// loadIDX is LoadIDX stopping at the limits b (ceiling, context).
func loadIDX(path string, b readLimits) (*IDX, error) {
	r, closeFile, err := openIDX(path)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	return readIDX(&ceilingReader{r: r, limits: b}, path, b)
}

// openIDX opens an IDX file, through gzip if its name ends in ".gz".
func openIDX(path string) (io.Reader, func(), error) {
	fh, err := openData(path)
	if err != nil {
		return nil, nil, err
	}
	var r io.Reader = bufio.NewReaderSize(fh, 1<<16)
	if !strings.HasSuffix(path, ".gz") {
		return r, func() { fh.Close() }, nil
	}
	gz, err := gzip.NewReader(r)
	if err != nil {
		fh.Close()
		return nil, nil, fmt.Errorf("%s: not a gzip file: %w", path, err)
	}
	return gz, func() { gz.Close(); fh.Close() }, nil
}

// ReadIDX decodes the IDX format (LeCun's MNIST files): two zero bytes, a
// type byte (only 0x08, unsigned byte, is supported), the number of
// dimensions, each dimension as a big-endian uint32, then the values.
func ReadIDX(r io.Reader, name string) (*IDX, error) { return readIDX(r, name, readLimits{}) }

// readIDX is ReadIDX stopping at the limits b (ceiling, context).
func readIDX(r io.Reader, name string, b readLimits) (*IDX, error) {
	dims, size, err := readIDXHeader(r, name)
	if err != nil {
		return nil, err
	}
	return readIDXData(r, name, dims, size, b)
}

// readIDXData reads the size values that follow a header of dimensions
// dims, stopping at the limits b (ceiling, context).
func readIDXData(r io.Reader, name string, dims []int, size int, b readLimits) (*IDX, error) {
	t := &IDX{Dims: dims}
	var err error
	if t.Data, err = readN(r, size, b); err != nil {
		var ce *CeilingError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%s: dimensions %v: %w", name, t.Dims, err)
		}
		return nil, fmt.Errorf("%s: expected %d values for dimensions %v: %w", name, size, t.Dims, err)
	}
	return t, nil
}

// readIDXHeader reads an IDX header: the dimensions and their product.
func readIDXHeader(r io.Reader, name string) ([]int, int, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, 0, fmt.Errorf("%s: reading the IDX header: %w", name, err)
	}
	if head[0] != 0 || head[1] != 0 {
		return nil, 0, fmt.Errorf("%s: not an IDX file (magic %02x%02x%02x%02x)", name, head[0], head[1], head[2], head[3])
	}
	if head[2] != 0x08 {
		return nil, 0, fmt.Errorf("%s: IDX value type 0x%02x is not supported (only 0x08, unsigned byte)", name, head[2])
	}
	if head[3] == 0 {
		return nil, 0, fmt.Errorf("%s: IDX file with no dimensions", name)
	}
	dims := make([]int, head[3])
	size := 1
	for i := range dims {
		var d uint32
		if err := binary.Read(r, binary.BigEndian, &d); err != nil {
			return nil, 0, fmt.Errorf("%s: reading dimension %d: %w", name, i+1, err)
		}
		dims[i] = int(d)
		if d == 0 || size > math.MaxInt32/int(d) {
			return nil, 0, fmt.Errorf("%s: bad IDX dimensions %v", name, dims[:i+1])
		}
		size *= int(d)
	}
	return dims, size, nil
}

// readN reads exactly n bytes, growing the buffer as data arrive: a header
// that declares more values than the file holds costs no more memory than
// the file (a 9-byte file cannot make it allocate 2 GiB), and each growth
// is checked against the limits b (ceiling, context) before it is made (a gzip file
// of zeros cannot double a 1 GiB buffer past the ceiling in one step).
func readN(r io.Reader, n int, b readLimits) ([]byte, error) {
	buf := make([]byte, 0, min(n, 1<<20))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			grow := min(n-len(buf), cap(buf))
			if err := checkGrowth(int64(len(buf)), uint64(len(buf)+grow), b); err != nil {
				return nil, err
			}
			buf = slices.Grow(buf, grow)
		}
		m, err := r.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) && len(buf) < n {
			return nil, fmt.Errorf("the file ends after %d", len(buf))
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
	}
	return buf, nil
}
