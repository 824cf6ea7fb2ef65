package datasets

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
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

// fashionStreams are the random streams fashion_mnist has always drawn
// from (subsets 1 and 2, partition 3, test deal 4): its records do not
// change now that it is a preset of the idx reader.
var fashionStreams = streams{subTrain: 1, subTest: 2, partition: 3, deal: 4, split: 5}

func init() {
	registry.DefineWith(registry.Dataset, "fashion_mnist",
		"Fashion-MNIST (28×28 grey images scaled to [0, 1], 10 classes) from IDX gzip files; official test set dealt iid to the clients (a preset of idx)",
		FashionMNISTOptions{Dir: FashionMNISTDir, Clients: 10, Partition: MethodIID, Alpha: 0.5, Dominant: 0.8, Seed: 1},
		func(c registry.BuildContext, o FashionMNISTOptions) (*core.Federated, error) {
			return loadFashionMNIST(o, limitsOf(c))
		})
}

// FashionMNISTOptions configures LoadFashionMNIST.
type FashionMNISTOptions struct {
	Dir          string  `param:"dir,path" doc:"directory with the four IDX files (apt-get install dataset-fashion-mnist)"`
	Clients      int     `param:"clients" min:"1" doc:"number of clients"`
	Partition    string  `param:"partition" choices:"iid|dirichlet|dominant" doc:"iid; dirichlet (label proportions ~ Dir(alpha)); dominant (client m holds \x60dominant\x60 of class m mod 10)"`
	Alpha        float64 `param:"alpha" min:"0" doc:"Dirichlet concentration (> 0) of the dirichlet partition; small = skewed labels"`
	Dominant     float64 `param:"dominant" min:"0" max:"1" doc:"fraction ρ of a class held by its dominant client(s) in the dominant partition (the FedDA paper's 0.8)"`
	TrainSamples int     `param:"train_samples" min:"0" doc:"use a seeded random subset of this many training images (0 = all 60000), for quick runs"`
	TestSamples  int     `param:"test_samples" min:"0" doc:"use a seeded random subset of this many test images (0 = all 10000)"`
	Seed         int     `param:"seed" min:"0" doc:"random seed of the subsets and the partition"`
}

// split returns the options as the idx reader's partition keys.
func (o FashionMNISTOptions) split() BenchSplit {
	return BenchSplit{Partition: o.Partition, Clients: o.Clients, Alpha: o.Alpha, Dominant: o.Dominant,
		TrainSamples: o.TrainSamples, TestSamples: o.TestSamples, Seed: o.Seed}
}

// paths are the four files in o.Dir.
func (o FashionMNISTOptions) paths() [4]string {
	var p [4]string
	for i, name := range fashionMNISTFiles {
		p[i] = filepath.Join(o.Dir, name)
	}
	return p
}

// Memory declares the data's memory from the IDX headers (0 when the
// files cannot be read: loading then says why).
func (o FashionMNISTOptions) Memory() (uint64, string) {
	p := o.paths()
	return idxMemory(p, o.TrainSamples, o.TestSamples)
}

// LoadFashionMNIST reads the four Fashion-MNIST IDX gzip files from o.Dir,
// scales pixels to [0, 1], takes the requested random subsets, partitions
// the training images over the clients and deals the test images to them
// iid (so test metrics pool the whole test set). A missing file is an error
// naming it and the Debian package that provides it. It is the idx reader
// with Fashion-MNIST's file names and random streams.
func LoadFashionMNIST(o FashionMNISTOptions) (*core.Federated, error) {
	return loadFashionMNIST(o, defaultLimits())
}

// loadFashionMNIST is LoadFashionMNIST stopping at the limits b (ceiling, context).
func loadFashionMNIST(o FashionMNISTOptions, b readLimits) (*core.Federated, error) {
	p := o.paths()
	var sets [2]*pooled
	for i := range sets {
		var err error
		sets[i], err = readIDXPair(p[2*i], p[2*i+1], false, b)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("fashion_mnist: %s is missing: install the data with `apt-get install dataset-fashion-mnist` (or set dir to a directory holding %s)",
				missingOf(p[2*i], p[2*i+1]), strings.Join(fashionMNISTFiles[:], ", "))
		}
		if err != nil {
			return nil, fmt.Errorf("fashion_mnist: %s set: %w", [2]string{"training", "test"}[i], err)
		}
	}
	return federate("fashion_mnist", sets[0], sets[1], o.split(), FashionMNISTClasses, fashionStreams, "")
}
