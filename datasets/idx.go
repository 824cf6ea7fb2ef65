package datasets

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// Fashion-MNIST as installed by Debian's dataset-fashion-mnist package.
const (
	// FashionMNISTDir is where `apt-get install dataset-fashion-mnist` puts the files.
	FashionMNISTDir = "/usr/share/datasets/fashion-mnist"
	// FashionMNISTClasses is the number of classes (labels 0..9).
	FashionMNISTClasses = 10
)

// fashionMNISTFiles are the four IDX files: train images and labels, test
// images and labels.
var fashionMNISTFiles = [4]string{
	"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
	"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
}

// MethodDominant is the partition of the FedDA paper's heterogeneous
// experiments: client m holds a fraction ρ of the samples of class
// m mod classes and shares the rest of that class evenly with the others.
const MethodDominant = "dominant"

func init() {
	registry.Define(registry.Dataset, "fashion_mnist",
		"Fashion-MNIST (28×28 grey images scaled to [0, 1], 10 classes) from IDX gzip files; official test set dealt iid to the clients",
		FashionMNISTOptions{Dir: FashionMNISTDir, Clients: 10, Partition: MethodIID, Alpha: 0.5, Dominant: 0.8, Seed: 1},
		LoadFashionMNIST)
}

// FashionMNISTOptions configures LoadFashionMNIST.
type FashionMNISTOptions struct {
	Dir          string  `param:"dir" doc:"directory with the four IDX files (apt-get install dataset-fashion-mnist)"`
	Clients      int     `param:"clients" min:"1" doc:"number of clients"`
	Partition    string  `param:"partition" choices:"iid|dirichlet|dominant" doc:"iid; dirichlet (label proportions ~ Dir(alpha)); dominant (client m holds \x60dominant\x60 of class m mod 10)"`
	Alpha        float64 `param:"alpha" min:"0" doc:"Dirichlet concentration (> 0) of the dirichlet partition; small = skewed labels"`
	Dominant     float64 `param:"dominant" min:"0" max:"1" doc:"fraction ρ of a class held by its dominant client(s) in the dominant partition (the FedDA paper's 0.8)"`
	TrainSamples int     `param:"train_samples" min:"0" doc:"use a seeded random subset of this many training images (0 = all 60000), for quick runs"`
	TestSamples  int     `param:"test_samples" min:"0" doc:"use a seeded random subset of this many test images (0 = all 10000)"`
	Seed         int     `param:"seed" min:"0" doc:"random seed of the subsets and the partition"`
}

// LoadFashionMNIST reads the four Fashion-MNIST IDX gzip files from o.Dir,
// scales pixels to [0, 1], takes the requested random subsets, partitions
// the training images over the clients and deals the test images to them
// iid (so test metrics pool the whole test set). A missing file is an error
// naming it and the Debian package that provides it.
func LoadFashionMNIST(o FashionMNISTOptions) (*core.Federated, error) {
	var idx [4]*IDX
	for i, name := range fashionMNISTFiles {
		path := filepath.Join(o.Dir, name)
		var err error
		if idx[i], err = LoadIDX(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("fashion_mnist: %s is missing: install the data with `apt-get install dataset-fashion-mnist` (or set dir to a directory holding %s)",
					path, strings.Join(fashionMNISTFiles[:], ", "))
			}
			return nil, fmt.Errorf("fashion_mnist: %w", err)
		}
	}
	train, err := idxImages(idx[0], idx[1], FashionMNISTClasses)
	if err != nil {
		return nil, fmt.Errorf("fashion_mnist: training set: %w", err)
	}
	test, err := idxImages(idx[2], idx[3], FashionMNISTClasses)
	if err != nil {
		return nil, fmt.Errorf("fashion_mnist: test set: %w", err)
	}
	if train.features != test.features {
		return nil, fmt.Errorf("fashion_mnist: training images have %d pixels, test images %d", train.features, test.features)
	}
	trainRows, err := subsetRows(train.n, o.TrainSamples, newRNG(o.Seed, 1), "train_samples")
	if err != nil {
		return nil, fmt.Errorf("fashion_mnist: %w", err)
	}
	testRows, err := subsetRows(test.n, o.TestSamples, newRNG(o.Seed, 2), "test_samples")
	if err != nil {
		return nil, fmt.Errorf("fashion_mnist: %w", err)
	}
	labels := make([]int, len(trainRows))
	for i, r := range trainRows {
		labels[i] = int(train.labels[r])
	}
	rng := newRNG(o.Seed, 3)
	var parts [][]int
	switch o.Partition {
	case MethodIID:
		parts, err = PartitionIID(len(labels), o.Clients, rng)
	case MethodDirichlet:
		parts, err = PartitionDirichlet(labels, FashionMNISTClasses, o.Clients, o.Alpha, rng)
	case MethodDominant:
		parts, err = PartitionDominant(labels, FashionMNISTClasses, o.Clients, o.Dominant, rng)
	default:
		err = fmt.Errorf("unknown partition %q (known: %s, %s, %s)", o.Partition, MethodIID, MethodDirichlet, MethodDominant)
	}
	if err != nil {
		return nil, fmt.Errorf("fashion_mnist: %w", err)
	}
	testParts, err := PartitionIID(len(testRows), o.Clients, newRNG(o.Seed, 4))
	if err != nil {
		return nil, fmt.Errorf("fashion_mnist: test set: %w", err)
	}
	f := &core.Federated{Name: "fashion_mnist", Features: train.features, Classes: FashionMNISTClasses}
	for m := range o.Clients {
		f.Train = append(f.Train, train.data(trainRows, parts[m]))
		f.Test = append(f.Test, test.data(testRows, testParts[m]))
	}
	return f, f.Check()
}

// subsetRows returns the rows 0..n-1, or a sorted random subset of k of
// them when 0 < k < n.
func subsetRows(n, k int, rng *rand.Rand, param string) ([]int, error) {
	if k > n {
		return nil, fmt.Errorf("%s = %d, but the file has %d images", param, k, n)
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

// LoadIDX reads an IDX file, gunzipping it if the name ends in ".gz".
func LoadIDX(path string) (*IDX, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	var r io.Reader = bufio.NewReaderSize(fh, 1<<16)
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%s: not a gzip file: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	return ReadIDX(r, path)
}

// ReadIDX decodes the IDX format (LeCun's MNIST files): two zero bytes, a
// type byte (only 0x08, unsigned byte, is supported), the number of
// dimensions, each dimension as a big-endian uint32, then the values.
func ReadIDX(r io.Reader, name string) (*IDX, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, fmt.Errorf("%s: reading the IDX header: %w", name, err)
	}
	if head[0] != 0 || head[1] != 0 {
		return nil, fmt.Errorf("%s: not an IDX file (magic %02x%02x%02x%02x)", name, head[0], head[1], head[2], head[3])
	}
	if head[2] != 0x08 {
		return nil, fmt.Errorf("%s: IDX value type 0x%02x is not supported (only 0x08, unsigned byte)", name, head[2])
	}
	if head[3] == 0 {
		return nil, fmt.Errorf("%s: IDX file with no dimensions", name)
	}
	t := &IDX{Dims: make([]int, head[3])}
	size := 1
	for i := range t.Dims {
		var d uint32
		if err := binary.Read(r, binary.BigEndian, &d); err != nil {
			return nil, fmt.Errorf("%s: reading dimension %d: %w", name, i+1, err)
		}
		t.Dims[i] = int(d)
		if d == 0 || size > math.MaxInt32/int(d) {
			return nil, fmt.Errorf("%s: bad IDX dimensions %v", name, t.Dims[:i+1])
		}
		size *= int(d)
	}
	var err error
	if t.Data, err = readN(r, size); err != nil {
		return nil, fmt.Errorf("%s: expected %d values for dimensions %v: %w", name, size, t.Dims, err)
	}
	return t, nil
}

// readN reads exactly n bytes, growing the buffer as data arrive: a header
// that declares more values than the file holds costs no more memory than
// the file (a 9-byte file cannot make it allocate 2 GiB).
func readN(r io.Reader, n int) ([]byte, error) {
	buf := make([]byte, 0, min(n, 1<<20))
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(n-len(buf), cap(buf)))
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

// idxSet is a set of labelled images read from an image and a label file.
type idxSet struct {
	n, features int
	pixels      []byte
	labels      []byte
}

// idxImages pairs an images file (n × rows × cols …) with a labels file (n).
func idxImages(images, labels *IDX, classes int) (*idxSet, error) {
	if len(labels.Dims) != 1 {
		return nil, fmt.Errorf("the labels file has dimensions %v, want one", labels.Dims)
	}
	if len(images.Dims) < 2 {
		return nil, fmt.Errorf("the images file has dimensions %v, want at least two", images.Dims)
	}
	n := images.Dims[0]
	if labels.Dims[0] != n {
		return nil, fmt.Errorf("%d images but %d labels", n, labels.Dims[0])
	}
	for i, y := range labels.Data {
		if int(y) >= classes {
			return nil, fmt.Errorf("label %d of image %d is not a class in 0..%d", y, i, classes-1)
		}
	}
	return &idxSet{n: n, features: len(images.Data) / n, pixels: images.Data, labels: labels.Data}, nil
}

// data builds a client's data from the positions pos into rows: pixels
// scaled to [0, 1], labels as floats.
func (s *idxSet) data(rows, pos []int) *core.Data {
	F := s.features
	d := &core.Data{N: len(pos), Features: F, X: make([]float64, len(pos)*F), Y: make([]float64, len(pos))}
	for i, p := range pos {
		r := rows[p]
		for j, v := range s.pixels[r*F : (r+1)*F] {
			d.X[i*F+j] = float64(v) / 255
		}
		d.Y[i] = float64(s.labels[r])
	}
	return d
}
