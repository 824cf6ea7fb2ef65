package datasets

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/fedlab/fedlab/internal/budget"
)

// The generated datasets declare their memory (registry.Sizer), so that a
// plan refuses one over the memory ceiling before generating it. A sample
// takes its features and its label as float64 (dense), or 12 bytes per
// nonzero (value and index) and 16 per row (label and row pointer, sparse).

// size accumulates a dataset's declared memory and the values it names.
type size struct {
	bytes uint64
	named []string
}

// name records the values, as "key = value", that determine the size.
func (s *size) name(kv ...any) {
	for i := 0; i+1 < len(kv); i += 2 {
		s.named = append(s.named, fmt.Sprintf("%v = %v", kv[i], kv[i+1]))
	}
}

// dense adds clients × rows samples of width features, stored densely.
func (s *size) dense(clients, rows, width int) {
	cells := budget.Product(clients, rows, width+1)
	s.bytes = budget.Sum(s.bytes, budget.Product(int(min(cells, 1<<62)), 8))
}

// sparse adds clients × rows samples of nnz stored nonzeros each, and a
// closing row pointer per client.
func (s *size) sparse(clients, rows, nnz int) {
	perRow := budget.Sum(budget.Product(nnz, 12), 16)
	s.bytes = budget.Sum(s.bytes, budget.Product(clients, rows, int(min(perRow, 1<<62))), budget.Product(clients, 8))
}

// result returns the size and its named values.
func (s *size) result() (uint64, string) { return s.bytes, strings.Join(s.named, ", ") }

// splitMemory is what a split's files declare: n rows of width
// features, the bytes they take, and the values that decide them ("key",
// value, …).
type splitMemory struct {
	n     int64
	width int
	bytes uint64
	notes []any
}

// declareSplits declares the memory of a reader's training and test
// splits (a path "" is skipped), each as split reads it from its files'
// heads (false: they cannot be read; loading then says why), named with
// nouns[0] and nouns[1] ("training rows", "test rows") and its features.
func declareSplits(paths, nouns [2]string, split func(i int, path string) (splitMemory, bool)) (uint64, string) {
	var s size
	for i, path := range paths {
		if path == "" {
			continue
		}
		m, ok := split(i, path)
		if !ok {
			return 0, ""
		}
		s.name(nouns[i], m.n, "features", m.width)
		s.name(m.notes...)
		s.bytes = budget.Sum(s.bytes, m.bytes)
	}
	return s.result()
}

// denseSize is the memory of clients × rows dense samples of width
// features, with the values kv ("key", value, …) named.
func denseSize(clients, rows, width int, kv ...any) (uint64, string) {
	var s size
	s.name(kv...)
	s.dense(clients, rows, width)
	return s.result()
}

// Memory declares the lasso generator's memory: the variant's sizes where
// clients or samples are 0; sparse storage holds the nonzeros of a density.
func (p LassoParams) Memory() (uint64, string) {
	clients, samples := p.Clients, p.Samples
	if pr, ok := LassoPresets[p.Variant]; ok {
		clients, samples = cmp.Or(clients, pr.Clients), cmp.Or(samples, pr.Samples)
	}
	var s size
	s.name("clients", clients, "samples", samples, "test_samples", p.TestSamples, "dim", p.Dim)
	if p.Density < 1 || p.Format != FormatDense {
		// each feature is kept with probability density: 1.25 times the
		// expected nonzeros bounds a row's (binomial) count in practice
		s.name("density", p.Density)
		s.sparse(clients, samples+p.TestSamples, int(math.Ceil(min(1.25*p.Density, 1)*float64(p.Dim))))
	} else {
		s.dense(clients, samples+p.TestSamples, p.Dim)
	}
	return s.result()
}

// Memory declares the low-rank generator's memory: size² features.
func (p LowRankParams) Memory() (uint64, string) {
	clients, samples := p.Clients, p.Samples
	if pr, ok := LowRankPresets[p.Variant]; ok {
		clients, samples = cmp.Or(clients, pr.Clients), cmp.Or(samples, pr.Samples)
	}
	return denseSize(clients, samples+p.TestSamples, int(min(budget.Product(p.Size, p.Size), 1<<62)),
		"clients", clients, "samples", samples, "test_samples", p.TestSamples, "size", p.Size)
}

// Memory declares the sparse federated generator's memory.
func (p SparseFederatedParams) Memory() (uint64, string) {
	var s size
	s.name("clients", p.Clients, "samples", p.Samples, "test_samples", p.TestSamples, "dim", p.Dim)
	if p.Format == FormatSparse {
		s.name("nnz", p.Nnz)
		s.sparse(p.Clients, p.Samples+p.TestSamples, p.Nnz)
	} else {
		s.dense(p.Clients, p.Samples+p.TestSamples, p.Dim)
	}
	return s.result()
}

// Memory declares the FedPD logistic generator's memory.
func (p FedPDLogisticParams) Memory() (uint64, string) {
	return denseSize(p.Clients, p.Samples, p.Features, "clients", p.Clients, "samples", p.Samples, "features", p.Features)
}

// Memory declares the counterexample's memory: two clients.
func (p FedAvgCounterexampleParams) Memory() (uint64, string) {
	return denseSize(2, p.Samples, p.Dim, "samples", p.Samples, "dim", p.Dim)
}

// Memory declares the sparse AR(1) generator's memory.
func (p SparseAR1Params) Memory() (uint64, string) {
	return denseSize(p.Clients, p.Samples+p.TestSamples, p.Dim,
		"clients", p.Clients, "samples", p.Samples, "test_samples", p.TestSamples, "dim", p.Dim)
}

// Memory declares the trace regression generator's memory: size² features.
func (p LowRankShiftParams) Memory() (uint64, string) {
	return denseSize(p.Clients, p.Samples+p.TestSamples, int(min(budget.Product(p.Size, p.Size), 1<<62)),
		"clients", p.Clients, "samples", p.Samples, "test_samples", p.TestSamples, "size", p.Size)
}

// Memory declares the heterogeneous logistic generator's memory.
func (p HeteroLogRegParams) Memory() (uint64, string) {
	return denseSize(p.Clients, p.Samples, p.Dim, "clients", p.Clients, "samples", p.Samples, "dim", p.Dim)
}

// Memory declares the heterogeneous linear generator's memory.
func (p HeteroLinRegParams) Memory() (uint64, string) {
	return denseSize(p.Clients, p.Samples, p.Dim, "clients", p.Clients, "samples", p.Samples, "dim", p.Dim)
}
