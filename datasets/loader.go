package datasets

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/fedlab/fedlab/core"
)

// Table is a pooled dataset read from a file, before it is federated.
type Table struct {
	Name      string     // file name, used in error messages
	Data      *core.Data // every sample
	Lines     []int      // source line of each sample (1-based)
	ClientIDs []string   // client ids in order of first appearance; nil if the file names none
	Client    []int      // each sample's index into ClientIDs; nil if the file names none
}

// Options controls how a Table becomes a federated dataset.
type Options struct {
	Classes         int     // 0: regression; otherwise labels are converted to 0..Classes-1
	Partition       string  // MethodIID, MethodDirichlet or MethodShards (when the file names no clients)
	Clients         int     // number of clients to partition into
	Alpha           float64 // Dirichlet concentration
	ShardsPerClient int     // shards per client
	TestFraction    float64 // per-client test fraction in [0, 1)
	Seed            int
}

// loaderParams are the parameters shared by the file loaders.
type loaderParams struct {
	Classes         int     `param:"classes" min:"0" doc:"number of classes (labels 0..K-1, or 1..K; for 2 also -1/+1); 0 = regression"`
	Partition       string  `param:"partition" choices:"iid|dirichlet|shards" doc:"how to split samples over clients when the file names no clients"`
	Clients         int     `param:"clients" min:"1" doc:"number of clients to partition into (ignored when the file names clients)"`
	Alpha           float64 `param:"alpha" min:"0" doc:"Dirichlet concentration (> 0) of the dirichlet partition; small = skewed labels"`
	ShardsPerClient int     `param:"shards_per_client" min:"1" doc:"label-sorted shards per client of the shards partition"`
	TestFraction    float64 `param:"test_fraction" min:"0" max:"1" doc:"fraction in [0, 1) of each client's samples held out (seeded shuffle) as its test set"`
	Seed            int     `param:"seed" min:"0" doc:"random seed of the partition and the train/test split"`
}

// defaultLoaderParams are the loaders' defaults.
var defaultLoaderParams = loaderParams{Partition: MethodIID, Clients: 10, Alpha: 0.5, ShardsPerClient: 2, Seed: 1}

// options returns the shared loader parameters as Options.
func (p loaderParams) options() Options {
	return Options{Classes: p.Classes, Partition: p.Partition, Clients: p.Clients, Alpha: p.Alpha,
		ShardsPerClient: p.ShardsPerClient, TestFraction: p.TestFraction, Seed: p.Seed}
}

// Federate converts the labels in place (see Options.Classes), groups the samples by
// the file's clients or else partitions them, and splits off test sets.
func (t *Table) Federate(o Options) (*core.Federated, error) {
	if o.Classes == 1 || o.Classes < 0 {
		return nil, fmt.Errorf("classes must be 0 (regression) or at least 2, got %d", o.Classes)
	}
	if !(o.TestFraction >= 0 && o.TestFraction < 1) {
		return nil, fmt.Errorf("test_fraction must lie in [0, 1), got %g", o.TestFraction)
	}
	if t.Data.N == 0 {
		return nil, fmt.Errorf("%s: no samples", t.Name)
	}
	if err := classLabels(t.Name, t.Data.Y, t.Lines, o.Classes); err != nil {
		return nil, err
	}
	var train []*core.Data
	if t.Client != nil {
		groups := make([][]int, len(t.ClientIDs))
		for i, c := range t.Client {
			groups[c] = append(groups[c], i)
		}
		for _, g := range groups {
			train = append(train, Subset(t.Data, g))
		}
	} else {
		var err error
		train, err = Partition(t.Data, o.Classes, o.Partition, o.Clients, o.Alpha, o.ShardsPerClient, newRNG(o.Seed, 1))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Name, err)
		}
	}
	f := &core.Federated{Name: filepath.Base(t.Name), Train: train, Features: t.Data.Features, Classes: o.Classes}
	if o.TestFraction > 0 {
		rng := newRNG(o.Seed, 2)
		f.Test = make([]*core.Data, len(train))
		for m, d := range train {
			f.Train[m], f.Test[m] = Split(d, o.TestFraction, rng)
		}
	}
	return f, f.Check()
}

// classLabels checks and converts labels in place to 0..classes-1. Labels must
// be integers; for two classes they are all in {0, 1} or all in {-1, +1}
// (-1 ↦ 0); for more they are 0..K-1, or 1..K (shifted down) when K occurs.
func classLabels(name string, y []float64, lines []int, classes int) error {
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s:%d: label %g is not finite", name, lines[i], v)
		}
	}
	if classes == 0 {
		return nil
	}
	for i, v := range y {
		if v != math.Trunc(v) {
			return fmt.Errorf("%s:%d: label %g is not an integer (classes = %d)", name, lines[i], v, classes)
		}
	}
	lo, hi, shift, why := 0.0, float64(classes-1), 0.0, ""
	for i, v := range y {
		if classes == 2 && v == -1 {
			lo, hi, why = -1, 1, fmt.Sprintf(" (labels are ±1 because of line %d)", lines[i])
			break
		}
		if classes > 2 && v == float64(classes) {
			lo, hi, shift, why = 1, float64(classes), 1, fmt.Sprintf(" (labels are 1-based because of line %d)", lines[i])
			break
		}
	}
	for i, v := range y {
		switch {
		case lo == -1 && v != -1 && v != 1:
			return fmt.Errorf("%s:%d: label %g is not -1 or +1%s", name, lines[i], v, why)
		case v < lo || v > hi:
			return fmt.Errorf("%s:%d: label %g outside %g..%g for %d classes%s", name, lines[i], v, lo, hi, classes, why)
		}
	}
	for i, v := range y {
		if lo == -1 {
			y[i] = (v + 1) / 2
		} else {
			y[i] = v - shift
		}
	}
	return nil
}
