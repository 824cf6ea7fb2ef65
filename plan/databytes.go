package plan

import (
	"fmt"
	"strings"

	"github.com/fedlab/fedlab/internal/budget"
	"github.com/fedlab/fedlab/registry"
)

// DataCheck returns a Builder.CheckData that refuses a dataset whose size
// parameters ask for more memory than b (see DataBytes), before it is
// generated. fedlab run uses it with its --max-memory ceiling; a Go
// program gets the same refusal with MemoryCeiling.
func DataCheck(b budget.Budget) func(registry.Args) error {
	return func(args registry.Args) error {
		need, what := DataBytes(args)
		if need == 0 {
			return nil
		}
		return b.Check(args.Spec().Title()+" ("+what+")", need,
			"lower these parameters, or raise --max-memory if the machine has the memory")
	}
}

// MemoryCeiling is DataCheck for a Go program: maxBytes is the ceiling,
// as --max-memory gives it (0: the default ceiling of fedlab run, see
// budget.Ceiling).
func MemoryCeiling(maxBytes uint64) func(registry.Args) error {
	return DataCheck(budget.Ceiling(maxBytes))
}

// sizeParams are the parameters that size generated data: clients × (samples
// + test_samples) rows of dim (or features, or size² for matrices) values.
var sizeParams = []string{"clients", "samples", "test_samples", "dim", "features", "size"}

// DataBytes estimates the memory of generated data from the size
// parameters a dataset has (0 when it has none, e.g. a file: files are
// checked against their size by their readers), and names the values.
func DataBytes(a registry.Args) (uint64, string) {
	v := map[string]int{}
	var named []string
	for _, name := range sizeParams {
		if p, ok := a.Spec().Param(name); ok && p.Type == registry.Int {
			v[name] = a.Int(name)
			named = append(named, fmt.Sprintf("%s = %d", name, v[name]))
		}
	}
	_, hasSamples := v["samples"]
	if !hasSamples {
		return 0, ""
	}
	width := 1
	for _, w := range []string{"dim", "features"} {
		if x, ok := v[w]; ok {
			width = x
		}
	}
	if s, ok := v["size"]; ok {
		width = int(min(budget.Product(s, s), 1<<62))
	}
	clients := 1
	if m, ok := v["clients"]; ok {
		clients = m
	}
	rows := budget.Sum(uint64(v["samples"]), uint64(v["test_samples"]))
	cells := budget.Product(clients, int(min(rows, 1<<62)), width+1)
	bytes := budget.Product(int(min(cells, 1<<62)), 8)
	if p, ok := a.Spec().Param("format"); ok && p.Type == registry.String && a.String("format") == "sparse" {
		bytes = sparseBytes(a, bytes, clients, rows, &named)
	}
	return bytes, strings.Join(named, ", ")
}

// sparseBytes estimates compressed rows: 8 bytes of value and 4 of index
// per nonzero, plus a label and a row pointer per row. The nonzeros come
// from an nnz parameter (nonzeros per row) when the dataset has one, else
// from a density parameter applied to the dense estimate dense.
func sparseBytes(a registry.Args, dense uint64, clients int, rows uint64, named *[]string) uint64 {
	if p, ok := a.Spec().Param("nnz"); ok && p.Type == registry.Int {
		nnz := a.Int("nnz")
		*named = append(*named, fmt.Sprintf("nnz = %d", nnz))
		perRow := budget.Sum(budget.Product(nnz, 12), 16)
		return budget.Product(clients, int(min(rows, 1<<62)), int(min(perRow, 1<<62)))
	}
	density := 1.0
	if p, ok := a.Spec().Param("density"); ok && p.Type == registry.Float {
		density = a.Float("density")
		*named = append(*named, fmt.Sprintf("density = %g", density))
	}
	return uint64(min(float64(dense)*density*1.5, 1<<63)) // saturates like budget.Product
}
