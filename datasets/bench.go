package datasets

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/registry"
)

// The benchmark formats (idx, cifar, npz, leaf here, parquet in
// datasets/parquetdata) read the samples of a split into a pooled table —
// 8-bit images or float64 features, labels, and each row's writer where
// the data name one — and federate it with the keys they share
// (BenchSplit). docs/data.md describes them.

// MethodNatural is the partition that keeps the data's own clients: each
// writer (LEAF user, client column, client-id array) is a client, holding
// its rows in file order.
const MethodNatural = "natural"

// defaultBenchClients is the number of clients of the iid, dirichlet,
// shards and dominant partitions when clients = 0.
const defaultBenchClients = 10

// BenchSplit are the partition keys of the benchmark formats, embedded in
// each one's params.
type BenchSplit struct {
	Partition       string  `param:"partition" choices:"iid|dirichlet|shards|dominant|natural" doc:"iid; dirichlet (label proportions ~ Dir(alpha)); shards (label-sorted shards); dominant (client m holds \x60dominant\x60 of class m mod classes); natural (each writer the data name is a client, its rows in file order)"`
	Clients         int     `param:"clients" min:"0" doc:"clients of the iid, dirichlet, shards and dominant partitions (0 = 10); with natural: 0 = every writer, K = a seeded random K of the writers, kept in file order"`
	Alpha           float64 `param:"alpha" min:"0" doc:"Dirichlet concentration (> 0) of the dirichlet partition; small = skewed labels"`
	Dominant        float64 `param:"dominant" min:"0" max:"1" doc:"fraction of a class held by its dominant client(s) in the dominant partition (the FedDA paper's 0.8)"`
	ShardsPerClient int     `param:"shards_per_client" min:"1" doc:"label-sorted shards per client of the shards partition"`
	TrainSamples    int     `param:"train_samples" min:"0" doc:"use a seeded random subset of this many training samples (0 = all), kept in file order"`
	TestSamples     int     `param:"test_samples" min:"0" doc:"use a seeded random subset of this many test samples (0 = all); needs a test split"`
	TestFraction    float64 `param:"test_fraction" min:"0" max:"1" doc:"without a test split: fraction in [0, 1) of each client's samples held out (seeded shuffle) as its test set"`
	Seed            int     `param:"seed" min:"0" doc:"random seed of the subsets, the partition and the test split"`
}

// defaultBenchSplit are the benchmark formats' defaults.
var defaultBenchSplit = BenchSplit{Partition: MethodIID, Alpha: 0.5, Dominant: 0.8, ShardsPerClient: 2, Seed: 1}

// streams are the random streams (see newRNG) of federate's draws.
type streams struct{ subTrain, subTest, partition, deal, split uint64 }

// benchStreams are the streams of the new formats: the partition and the
// test_fraction split draw from the streams the csv and svmlight loaders
// use, so the same rows give the same clients in every format.
var benchStreams = streams{subTrain: 3, subTest: 4, partition: 1, deal: 5, split: 2}

// pooled is the samples of one split, read from a file set.
type pooled struct {
	name        string // the file or directory, for messages
	n, features int
	pix         []byte       // n×features bytes read through levels; nil when x holds the features
	levels      *core.Levels // the values of pix's bytes; nil: pixelLevels (b/255)
	x           []float64    // n×features values; nil when pix holds them
	y           []float64
	client      []int              // each row's index into ids; nil when the data name no writers
	ids         []string           // the writers in order of first appearance
	where       func(i int) string // the place of row i in the files ("user \"f0001\" sample 3")
}

// pixelLevels are the values of pixel bytes, b/255 (float64(b)/255), shared
// by every client of every pixel dataset.
var pixelLevels = core.PixelLevels()

// data builds a client's data from the positions pos into rows: pixels kept
// as bytes in 8-bit storage, read through p.levels (by default as
// float64(b)/255, core.PixelLevels),
// values and labels copied. A client whose rows are a run of consecutive
// rows of the table (a writer of a natural partition, in file order) shares
// them instead when share is set (the clients use every row of the table,
// so none of it is kept alive for nothing): its slices are capped views of
// the table's arrays, which no other client shares, so a FEMNIST-sized
// table is not held twice.
func (p *pooled) data(rows, pos []int, share bool) *core.Data {
	F := p.features
	lv := cmp.Or(p.levels, pixelLevels)
	if n := len(pos); share && n > 0 && consecutive(rows, pos) {
		a, b := rows[pos[0]], rows[pos[0]]+n
		y := p.y[a:b:b]
		if p.pix != nil {
			return core.NewBytesData(p.pix[a*F:b*F:b*F], lv, y, n, F)
		}
		return &core.Data{N: n, Features: F, X: p.x[a*F : b*F : b*F], Y: y}
	}
	y := make([]float64, len(pos))
	if p.pix != nil {
		x := make([]uint8, len(pos)*F)
		for i, q := range pos {
			r := rows[q]
			copy(x[i*F:(i+1)*F], p.pix[r*F:(r+1)*F])
			y[i] = p.y[r]
		}
		return core.NewBytesData(x, lv, y, len(pos), F)
	}
	d := &core.Data{N: len(pos), Features: F, X: make([]float64, len(pos)*F), Y: y}
	for i, q := range pos {
		r := rows[q]
		copy(d.X[i*F:(i+1)*F], p.x[r*F:(r+1)*F])
		d.Y[i] = p.y[r]
	}
	return d
}

// usesAll reports whether the parts hold n rows in all.
func usesAll(parts [][]int, n int) bool {
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	return total == n
}

// consecutive reports whether rows[pos[i]] = rows[pos[0]] + i for every i.
func consecutive(rows, pos []int) bool {
	for i, q := range pos {
		if rows[q] != rows[pos[0]]+i {
			return false
		}
	}
	return true
}

// checkLabels refuses labels that are not finite, or, for classes > 0,
// not a class in 0..classes-1, naming the row.
func (p *pooled) checkLabels(classes int) error {
	for i, v := range p.y {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("%s: %s: label %g is not finite", p.name, p.where(i), v)
		case classes > 0 && (v != math.Trunc(v) || v < 0 || v >= float64(classes)):
			return fmt.Errorf("%s: %s: label %g is not a class in 0..%d (classes = %d)", p.name, p.where(i), v, classes-1, classes)
		}
	}
	return nil
}

// federate subsets, partitions and (with a test split, or test_fraction)
// splits off test sets. hint tells how to name the writers when the data
// name none and partition = "natural".
func federate(name string, train, test *pooled, s BenchSplit, classes int, st streams, hint string) (*core.Federated, error) {
	if classes == 1 || classes < 0 {
		return nil, fmt.Errorf("%s: classes must be 0 (regression) or at least 2, got %d", name, classes)
	}
	if !(s.TestFraction >= 0 && s.TestFraction < 1) {
		return nil, fmt.Errorf("%s: test_fraction must lie in [0, 1), got %g", name, s.TestFraction)
	}
	if test != nil && s.TestFraction > 0 {
		return nil, fmt.Errorf("%s: test_fraction = %g, but the data have a test split (%s): drop test_fraction, or the test split", name, s.TestFraction, test.name)
	}
	if test == nil && s.TestSamples > 0 {
		return nil, fmt.Errorf("%s: test_samples = %d, but the data have no test split", name, s.TestSamples)
	}
	if train.n == 0 {
		return nil, fmt.Errorf("%s: no training samples", train.name)
	}
	for _, p := range []*pooled{train, test} {
		if p == nil {
			continue
		}
		if err := p.checkLabels(classes); err != nil {
			return nil, err
		}
	}
	if test != nil && test.features != train.features {
		return nil, fmt.Errorf("%s: training samples have %d features, test samples (%s) %d", name, train.features, test.name, test.features)
	}
	rows, err := subsetRows(train.n, s.TrainSamples, newRNG(s.Seed, st.subTrain), "train_samples")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	parts, chosen, err := partitionRows(train, rows, s, classes, st, hint)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f := &core.Federated{Name: name, Features: train.features, Classes: classes}
	share := usesAll(parts, train.n)
	for _, part := range parts {
		f.Train = append(f.Train, train.data(rows, part, share))
	}
	switch {
	case test != nil:
		testRows, err := subsetRows(test.n, s.TestSamples, newRNG(s.Seed, st.subTest), "test_samples")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var testParts [][]int
		if s.Partition == MethodNatural && test.client != nil {
			testParts, err = pairByWriter(train, test, testRows, chosen)
		} else {
			testParts, err = PartitionIID(len(testRows), len(parts), newRNG(s.Seed, st.deal))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: test split: %w", name, err)
		}
		share := usesAll(testParts, test.n)
		for _, part := range testParts {
			f.Test = append(f.Test, test.data(testRows, part, share))
		}
	case s.TestFraction > 0:
		rng := newRNG(s.Seed, st.split)
		f.Test = make([]*core.Data, len(f.Train))
		for m, d := range f.Train {
			f.Train[m], f.Test[m] = Split(d, s.TestFraction, rng)
		}
	}
	return f, f.Check()
}

// partitionRows splits the positions 0..len(rows)-1 over the clients; for
// the natural partition it also returns each client's writer (an index
// into train.ids).
func partitionRows(train *pooled, rows []int, s BenchSplit, classes int, st streams, hint string) ([][]int, []int, error) {
	rng := newRNG(s.Seed, st.partition)
	if s.Partition == MethodNatural {
		if train.client == nil {
			return nil, nil, fmt.Errorf("partition = %q needs the writer of each row: %s", MethodNatural, hint)
		}
		byWriter := make([][]int, len(train.ids))
		for q, r := range rows {
			byWriter[train.client[r]] = append(byWriter[train.client[r]], q)
		}
		var writers []int
		for c, g := range byWriter {
			if len(g) > 0 {
				writers = append(writers, c)
			}
		}
		if len(writers) == 1 {
			return nil, nil, fmt.Errorf("the data name one writer (%s): a natural partition needs at least two; choose partition = %q, %q, %q or %q",
				echo(train.ids[writers[0]]).quoted(), MethodIID, MethodDirichlet, MethodShards, MethodDominant)
		}
		if k := s.Clients; k > 0 {
			if k > len(writers) {
				return nil, nil, fmt.Errorf("clients = %d, but the data name %d writers", k, len(writers))
			}
			keep := rng.Perm(len(writers))[:k]
			slices.Sort(keep)
			for i, j := range keep {
				writers[i] = writers[j]
			}
			writers = writers[:k]
		}
		parts := make([][]int, len(writers))
		for m, c := range writers {
			parts[m] = byWriter[c]
		}
		return parts, writers, nil
	}
	k := s.Clients
	if k == 0 {
		k = defaultBenchClients
	}
	labels := make([]int, len(rows))
	keys := make([]float64, len(rows))
	for q, r := range rows {
		labels[q], keys[q] = int(train.y[r]), train.y[r]
	}
	var parts [][]int
	var err error
	switch s.Partition {
	case MethodIID:
		parts, err = PartitionIID(len(rows), k, rng)
	case MethodShards:
		parts, err = PartitionShards(keys, k, s.ShardsPerClient, rng)
	case MethodDirichlet, MethodDominant:
		if classes == 0 {
			return nil, nil, fmt.Errorf("the %s partition needs class labels (set classes > 0)", s.Partition)
		}
		if s.Partition == MethodDirichlet {
			parts, err = PartitionDirichlet(labels, classes, k, s.Alpha, rng)
		} else {
			parts, err = PartitionDominant(labels, classes, k, s.Dominant, rng)
		}
	default:
		known := []string{MethodIID, MethodDirichlet, MethodShards, MethodDominant, MethodNatural}
		err = fmt.Errorf("unknown partition %q%s; known: %s", s.Partition, registry.DidYouMean(s.Partition, known), strings.Join(known, ", "))
	}
	return parts, nil, err
}

// pairByWriter gives each client of a natural partition the test rows of
// its writer (in file order). A test writer absent from the training data
// is an error (a split by user, not by sample); the test rows of writers
// left out by clients = K are left out too.
func pairByWriter(train, test *pooled, testRows, chosen []int) ([][]int, error) {
	trainWriter := make(map[string]int, len(train.ids))
	for c, id := range train.ids {
		trainWriter[id] = c
	}
	client := make(map[int]int, len(chosen)) // training writer → client
	for m, c := range chosen {
		client[c] = m
	}
	parts := make([][]int, len(chosen))
	for q, r := range testRows {
		id := test.ids[test.client[r]]
		c, ok := trainWriter[id]
		if !ok {
			return nil, fmt.Errorf("%s: %s: writer %s has no training samples: the test split must hold the same writers as the training split (LEAF: split by sample, not --by_user)",
				test.name, test.where(r), echo(id).quoted())
		}
		if m, ok := client[c]; ok {
			parts[m] = append(parts[m], q)
		}
	}
	return parts, nil
}

// quoted is the text quoted for a message (see echo).
func (e echo) quoted() string { return fmt.Sprintf("%q", e) }

// ceilingReader checks the memory ceiling (see checkCeiling) every
// readCheckEvery bytes it passes, so that a binary reader stops with a
// *CeilingError while it fills memory.
type ceilingReader struct {
	r             io.Reader
	limits        readLimits
	read, checked int64
}

func (c *ceilingReader) Read(p []byte) (int, error) {
	if err := c.limits.stopped(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	if c.read-c.checked >= readCheckEvery {
		c.checked = c.read
		if cerr := checkCeiling(c.read, c.limits); cerr != nil {
			return n, cerr
		}
	}
	return n, err
}

// sampleBytes is the memory of n samples of width features held as
// float64s with their labels, plus raw bytes of the file read before
// conversion (0 for readers that convert as they read).
func sampleBytes(n, width int, raw uint64) uint64 {
	return budget.Sum(budget.Product(n, width+1, 8), raw)
}

// pixelBytes is the memory of n images of width pixel bytes held in 8-bit
// storage (a byte per pixel, a float64 label), plus raw bytes of the files
// read before the clients' copies are made.
func pixelBytes(n, width int, raw uint64) uint64 {
	return budget.Sum(budget.Product(n, width), budget.Product(n, 8), raw)
}
