package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// CIFARPixels is the number of bytes of a CIFAR image: 32×32 pixels in
// three planes, red, green, blue, each row-major.
const CIFARPixels = 3 * 32 * 32

// cifarParams are the cifar reader's parameters.
type cifarParams struct {
	Dir     string `param:"dir,required,path" doc:"directory of the binary version: data_batch_N.bin and test_batch.bin (CIFAR-10), train.bin and test.bin (CIFAR-100)"`
	Classes int    `param:"classes" doc:"10 (CIFAR-10: a label byte per record) or 100 (CIFAR-100: coarse and fine label bytes per record)"`
	Coarse  bool   `param:"coarse" doc:"CIFAR-100: use the 20 coarse labels instead of the 100 fine ones"`
	BenchSplit
}

// CIFARParams are the parameters of the dataset "cifar".
type CIFARParams struct{ cifarParams }

func init() {
	registry.DefineWith(registry.Dataset, "cifar",
		"CIFAR-10/100 binary batches: 32×32 RGB images (3 planes of 1,024 bytes, scaled to [0, 1]); test_batch.bin or test.bin is dealt iid to the clients",
		CIFARParams{cifarParams{Classes: 10, BenchSplit: defaultBenchSplit}},
		func(c registry.BuildContext, p CIFARParams) (*core.Federated, error) {
			return loadCIFAR(c, p.cifarParams)
		})
}

// Check refuses classes other than 10 and 100, and coarse labels of
// CIFAR-10.
func (p cifarParams) Check() error {
	if p.Classes != 10 && p.Classes != 100 {
		return fmt.Errorf("classes = %d: CIFAR has 10 or 100", p.Classes)
	}
	if p.Coarse && p.Classes != 100 {
		return fmt.Errorf("coarse labels exist in CIFAR-100 only (classes = 100)")
	}
	return nil
}

// labelBytes is the number of label bytes before each image.
func (p cifarParams) labelBytes() int {
	if p.Classes == 100 {
		return 2
	}
	return 1
}

// files returns the training files (sorted by batch number) and the test
// file ("" when absent).
func (p cifarParams) files() ([]string, string, error) {
	if _, err := statData(p.Dir); err != nil {
		return nil, "", fmt.Errorf("cifar: %w", err)
	}
	var train []string
	test := filepath.Join(p.Dir, "test_batch.bin")
	if p.Classes == 100 {
		train = []string{filepath.Join(p.Dir, "train.bin")}
		test = filepath.Join(p.Dir, "test.bin")
		if _, err := os.Stat(train[0]); err != nil {
			return nil, "", fmt.Errorf("cifar: %w (the CIFAR-100 binary version holds train.bin and test.bin)", err)
		}
	} else {
		var err error
		if train, err = filepath.Glob(filepath.Join(p.Dir, "data_batch_*.bin")); err != nil {
			return nil, "", fmt.Errorf("cifar: %w", err)
		}
		if len(train) == 0 {
			return nil, "", fmt.Errorf("cifar: no data_batch_N.bin in %s (the CIFAR-10 binary version holds data_batch_1.bin … data_batch_5.bin and test_batch.bin)", p.Dir)
		}
		number := func(path string) int {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "data_batch_"), ".bin"))
			return n
		}
		slices.SortFunc(train, func(a, b string) int { return number(a) - number(b) })
	}
	if _, err := os.Stat(test); err != nil {
		test = ""
	}
	return train, test, nil
}

// Memory declares the data's memory from the file sizes (0 when the
// files cannot be found: loading then says why).
func (p cifarParams) Memory() (uint64, string) {
	train, test, err := p.files()
	if err != nil {
		return 0, ""
	}
	var s size
	for i, paths := range [][]string{train, {test}} {
		n := 0
		for _, path := range paths {
			if st, err := os.Stat(path); err == nil {
				n += int(st.Size()) / (p.labelBytes() + CIFARPixels)
			}
		}
		if n == 0 {
			continue
		}
		s.name([]string{"training images", "test images"}[i], n)
		kept := n
		if k := []int{p.TrainSamples, p.TestSamples}[i]; k > 0 && k < n {
			kept = k
		}
		s.bytes += pixelBytes(kept, CIFARPixels, uint64(n)*CIFARPixels)
	}
	return s.result()
}

// loadCIFAR reads the cifar dataset, stopping at c's memory ceiling or when c's context ends.
func loadCIFAR(c registry.BuildContext, p cifarParams) (*core.Federated, error) {
	limits := limitsOf(c)
	trainFiles, testFile, err := p.files()
	if err != nil {
		return nil, err
	}
	train, err := p.read(trainFiles, limits)
	if err != nil {
		return nil, err
	}
	var test *pooled
	if testFile != "" {
		if test, err = p.read([]string{testFile}, limits); err != nil {
			return nil, err
		}
	}
	classes := p.Classes
	if p.Coarse {
		classes = 20
	}
	return federate(p.Dir, train, test, p.BenchSplit, classes, benchStreams, // errors name the directory read
		"CIFAR names no writers")
}

// read reads the records of the files in order, stopping at the limits b
// (ceiling, context).
func (p cifarParams) read(paths []string, b readLimits) (*pooled, error) {
	record := p.labelBytes() + CIFARPixels
	type span struct {
		path       string
		start, end int
	}
	var spans []span
	n := 0
	for _, path := range paths {
		st, err := statData(path)
		if err != nil {
			return nil, fmt.Errorf("cifar: %w", err)
		}
		if err := regularData(path, st.Mode()); err != nil {
			return nil, fmt.Errorf("cifar: %w", err)
		}
		if st.Size()%int64(record) != 0 {
			return nil, fmt.Errorf("cifar: %s: %d bytes is not a whole number of %d-byte records (%s): the file is truncated or not a CIFAR-%d binary batch",
				path, st.Size(), record, []string{"", "a label byte and 3,072 pixel bytes", "a coarse and a fine label byte and 3,072 pixel bytes"}[p.labelBytes()], p.Classes)
		}
		k := int(st.Size() / int64(record))
		spans = append(spans, span{path, n, n + k})
		n += k
	}
	out := &pooled{name: p.Dir, n: n, features: CIFARPixels, pix: make([]byte, n*CIFARPixels), y: make([]float64, n)}
	out.where = func(i int) string {
		for _, s := range spans {
			if i < s.end {
				return fmt.Sprintf("%s record %d", filepath.Base(s.path), i-s.start)
			}
		}
		return fmt.Sprintf("record %d", i)
	}
	for _, s := range spans {
		if err := p.readFile(s.path, out, s.start, s.end, b); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readFile reads the records start..end-1 of out from one file.
func (p cifarParams) readFile(path string, out *pooled, start, end int, b readLimits) error {
	fh, err := openData(path)
	if err != nil {
		return fmt.Errorf("cifar: %w", err)
	}
	defer fh.Close()
	r := &ceilingReader{r: bufio.NewReaderSize(fh, 1<<16), limits: b}
	labels := make([]byte, p.labelBytes())
	for i := start; i < end; i++ {
		_, err := io.ReadFull(r, labels)
		if err == nil {
			_, err = io.ReadFull(r, out.pix[i*CIFARPixels:(i+1)*CIFARPixels])
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("cifar: %s: record %d: the file ends early (it shrank while read?)", path, i-start)
		}
		if err != nil {
			return fmt.Errorf("cifar: %s: record %d: %w", path, i-start, err)
		}
		label := labels[len(labels)-1] // CIFAR-100: coarse, then fine
		if p.Coarse {
			label = labels[0]
		}
		out.y[i] = float64(label)
	}
	return nil
}
