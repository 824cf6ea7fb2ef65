package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// IDXParams are the idx reader's parameters.
type IDXParams struct {
	Dir        string `param:"dir,path" doc:"directory of IDX files [prefix]train-images-idx3-ubyte, [prefix]train-labels-idx1-ubyte and [prefix]t10k-… or [prefix]test-… (each optionally .gz); or give the paths"`
	Prefix     string `param:"prefix" doc:"prefix of the file names in dir, e.g. \"emnist-byclass-\""`
	Images     string `param:"images,path" doc:"training images file (instead of dir)"`
	Labels     string `param:"labels,path" doc:"training labels file (instead of dir)"`
	TestImages string `param:"test_images,path" doc:"test images file (optional, with test_labels)"`
	TestLabels string `param:"test_labels,path" doc:"test labels file (optional, with test_images)"`
	Transpose  bool   `param:"transpose" doc:"the images are stored transposed, columns first (EMNIST): transpose each back"`
	Classes    int    `param:"classes" min:"2" doc:"number of classes, labels 0..classes-1 (10 MNIST/KMNIST/EMNIST digits, 62 EMNIST byclass, 47 bymerge/balanced, 27 letters: labels 1..26)"`
	BenchSplit
}

func init() {
	registry.DefineWith(registry.Dataset, "idx",
		"IDX image files (MNIST, EMNIST, KMNIST; gzip or plain): 8-bit images scaled to [0, 1]; a test pair is dealt iid to the clients",
		IDXParams{Classes: 10, BenchSplit: defaultBenchSplit}, loadIDXDataset)
}

// idxNames are the file names looked for in dir (after the prefix), each
// plain or with .gz: training images and labels, test images and labels.
var idxNames = [4][]string{
	{"train-images-idx3-ubyte"}, {"train-labels-idx1-ubyte"},
	{"t10k-images-idx3-ubyte", "test-images-idx3-ubyte"}, {"t10k-labels-idx1-ubyte", "test-labels-idx1-ubyte"},
}

// files resolves the four paths (test ones "" when there is no test pair).
func (p IDXParams) files() ([4]string, error) {
	var out [4]string
	given := [4]string{p.Images, p.Labels, p.TestImages, p.TestLabels}
	if p.Images != "" || p.Labels != "" || p.TestImages != "" || p.TestLabels != "" {
		if p.Dir != "" || p.Prefix != "" {
			return out, fmt.Errorf("give dir (and prefix) or the file paths (images, labels, test_images, test_labels), not both")
		}
		if p.Images == "" || p.Labels == "" {
			return out, fmt.Errorf("images and labels go together: give both")
		}
		if (p.TestImages == "") != (p.TestLabels == "") {
			return out, fmt.Errorf("test_images and test_labels go together: give both or neither")
		}
		return given, nil
	}
	if p.Dir == "" {
		return out, fmt.Errorf("give dir (a directory of IDX files) or images and labels")
	}
	if _, err := statData(p.Dir); err != nil {
		return out, err
	}
	for i, names := range idxNames {
		var found, tried []string
		for _, n := range names {
			for _, ext := range []string{"", ".gz"} {
				path := filepath.Join(p.Dir, p.Prefix+n+ext)
				tried = append(tried, path)
				if _, err := os.Stat(path); err == nil {
					found = append(found, path)
				}
			}
		}
		switch {
		case len(found) > 1:
			return out, fmt.Errorf("%s and %s both exist: keep one, or give the paths", found[0], found[1])
		case len(found) == 1:
			out[i] = found[0]
		case i < 2:
			return out, fmt.Errorf("no %s in %s (looked for %s)", []string{"training images", "training labels"}[i], p.Dir, strings.Join(tried, ", "))
		}
	}
	if (out[2] == "") != (out[3] == "") {
		return out, fmt.Errorf("%s has no partner file: the test images and labels go together", out[2]+out[3])
	}
	return out, nil
}

// Memory declares the data's memory from the IDX headers (0 when the
// files cannot be found or read: loading then says why).
func (p IDXParams) Memory() (uint64, string) {
	f, err := p.files()
	if err != nil {
		return 0, ""
	}
	return idxMemory(f, p.TrainSamples, p.TestSamples)
}

// idxMemory is the memory of the images in the train and test files: the
// bytes read, and the float64s of the samples kept.
func idxMemory(files [4]string, trainSamples, testSamples int) (uint64, string) {
	var s size
	for i, path := range []string{files[0], files[2]} {
		if path == "" {
			continue
		}
		dims, total, err := idxHeader(path)
		if err != nil || len(dims) < 2 {
			return 0, ""
		}
		_, labels, err := idxHeader(files[2*i+1])
		if err != nil {
			return 0, ""
		}
		n, width := dims[0], total/dims[0]
		if k := []int{trainSamples, testSamples}[i]; k > 0 && k < n {
			n = k
		}
		s.name(filepath.Base(path), fmt.Sprintf("%d×%d bytes", dims[0], width))
		s.bytes += pixelBytes(n, width, uint64(total)+uint64(labels)) // and the bytes read, labels as declared
	}
	return s.result()
}

// idxHeader reads the dimensions an IDX file declares and their product.
func idxHeader(path string) ([]int, int, error) {
	r, closeFile, err := openIDX(path)
	if err != nil {
		return nil, 0, err
	}
	defer closeFile()
	return readIDXHeader(r, path)
}

// loadIDXDataset reads the idx dataset, stopping at c's memory ceiling or when c's context ends.
func loadIDXDataset(c registry.BuildContext, p IDXParams) (*core.Federated, error) {
	limits := limitsOf(c)
	f, err := p.files()
	if err != nil {
		return nil, fmt.Errorf("idx: %w", err)
	}
	train, err := readIDXPair(f[0], f[1], p.Transpose, limits)
	if err != nil {
		return nil, fmt.Errorf("idx: %w", err)
	}
	var test *pooled
	if f[2] != "" {
		if test, err = readIDXPair(f[2], f[3], p.Transpose, limits); err != nil {
			return nil, fmt.Errorf("idx: %w", err)
		}
	}
	return federate(filepath.Base(f[0]), train, test, p.BenchSplit, p.Classes, benchStreams,
		"IDX files name no writers (FEMNIST's writers come with LEAF's JSON or the flwrlabs/femnist Parquet files)")
}

// readIDXPair reads an images file (n × rows × cols …) and its labels
// file (n), transposing each rows × cols image if asked, stopping at the
// memory ceiling b. The labels file's header is checked against the
// images before its data are read.
func readIDXPair(imagesPath, labelsPath string, transpose bool, b readLimits) (*pooled, error) {
	images, err := loadIDX(imagesPath, b)
	if err != nil {
		return nil, err
	}
	if len(images.Dims) < 2 {
		return nil, fmt.Errorf("%s: the images file has dimensions %v, want at least two", imagesPath, images.Dims)
	}
	rl, closeLabels, err := openIDX(labelsPath)
	if err != nil {
		return nil, err
	}
	defer closeLabels()
	lr := &ceilingReader{r: rl, limits: b}
	labelDims, labelSize, err := readIDXHeader(lr, labelsPath)
	if err != nil {
		return nil, err
	}
	if len(labelDims) != 1 {
		return nil, fmt.Errorf("%s: the labels file has dimensions %v, want one", labelsPath, labelDims)
	}
	n := images.Dims[0]
	if labelDims[0] != n {
		return nil, fmt.Errorf("%s: %d images but %d labels in %s", imagesPath, n, labelDims[0], labelsPath)
	}
	labels, err := readIDXData(lr, labelsPath, labelDims, labelSize, b)
	if err != nil {
		return nil, err
	}
	features := len(images.Data) / n
	if transpose {
		if len(images.Dims) != 3 {
			return nil, fmt.Errorf("%s: transpose needs images of two dimensions, the file has %v", imagesPath, images.Dims)
		}
		transposeImages(images.Data, n, images.Dims[1], images.Dims[2])
	}
	y := make([]float64, n)
	for i, v := range labels.Data {
		y[i] = float64(v)
	}
	return &pooled{name: labelsPath, n: n, features: features, pix: images.Data, y: y,
		where: func(i int) string { return fmt.Sprintf("image %d", i) }}, nil
}

// transposeImages transposes each of the n images stored as cols × rows
// (column by column) into rows × cols, in place.
func transposeImages(pix []byte, n, rows, cols int) {
	F := rows * cols
	buf := make([]byte, F)
	for k := range n {
		img := pix[k*F : (k+1)*F]
		for i := range rows {
			for j := range cols {
				buf[j*rows+i] = img[i*cols+j]
			}
		}
		copy(img, buf)
	}
}

// missingOf returns the first of the paths that does not exist.
func missingOf(paths ...string) string {
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
	return paths[0]
}
