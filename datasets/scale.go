package datasets

import (
	"fmt"
	"math"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// Feature scaling methods (the scaling parameter of file loaders).
const (
	ScaleNone        = "none"
	ScaleMaxAbs      = "maxabs"
	ScaleUnitNorm    = "unit_norm"
	ScaleStandardize = "standardize"
)

// scaling is the file loaders' feature-scaling parameter.
type scaling struct {
	Scaling string `param:"scaling" choices:"none|maxabs|unit_norm|standardize" doc:"feature scaling fitted on the training samples and applied to train and test: maxabs (each feature divided by its largest |value|; keeps sparsity), unit_norm (each row divided by its Euclidean norm; keeps sparsity), standardize (zero mean, unit variance per feature; dense format only)"`
}

// Scale applies a feature scaling method to every client's training and
// test data in place. maxabs and standardize are fitted on the pooled
// training samples only, then applied to both; unit_norm acts row by row.
// Features that are constant zero (maxabs) or constant (standardize) are
// left unscaled. standardize refuses sparse data, since centering fills
// every zero. 8-bit data (core.Data.Levels) are first stored as float64s:
// scaled values are no longer bytes.
func Scale(f *core.Federated, method string) error {
	all := append(append([]*core.Data(nil), f.Train...), f.Test...)
	if method != ScaleNone && method != "" {
		for _, d := range all {
			*d = *d.Float64()
		}
	}
	switch method {
	case ScaleNone, "":
		return nil
	case ScaleUnitNorm:
		for _, d := range all {
			for i := range d.N {
				vals := rowValues(d, i)
				norm := 0.0
				for _, v := range vals {
					norm = math.Hypot(norm, v)
				}
				if norm > 0 {
					for k := range vals {
						vals[k] /= norm
					}
				}
			}
		}
		return nil
	case ScaleMaxAbs:
		m := make([]float64, f.Features)
		for _, d := range f.Train {
			forEachValue(d, func(j int, v *float64) { m[j] = math.Max(m[j], math.Abs(*v)) })
		}
		for _, d := range all {
			forEachValue(d, func(j int, v *float64) {
				if m[j] > 0 {
					*v /= m[j]
				}
			})
		}
		return nil
	case ScaleStandardize:
		if f.IsSparse() {
			return fmt.Errorf("scaling %q centers the features, which fills every zero of sparse data; use %q or %q, or format = %q",
				ScaleStandardize, ScaleMaxAbs, ScaleUnitNorm, FormatDense)
		}
		n := float64(f.Samples())
		mean, sd := make([]float64, f.Features), make([]float64, f.Features)
		for _, d := range f.Train {
			forEachValue(d, func(j int, v *float64) { mean[j] += *v / n })
		}
		for _, d := range f.Train {
			forEachValue(d, func(j int, v *float64) { sd[j] += (*v - mean[j]) * (*v - mean[j]) / n })
		}
		for j := range sd {
			sd[j] = math.Sqrt(sd[j])
		}
		for _, d := range all {
			forEachValue(d, func(j int, v *float64) {
				*v -= mean[j]
				if sd[j] > 0 {
					*v /= sd[j]
				}
			})
		}
		return nil
	}
	known := []string{ScaleNone, ScaleMaxAbs, ScaleUnitNorm, ScaleStandardize}
	return fmt.Errorf("unknown scaling %q%s; known: %s", method, registry.DidYouMean(method, known), strings.Join(known, ", "))
}

// rowValues returns the stored values of row i of d (every feature when dense).
func rowValues(d *core.Data, i int) []float64 {
	if d.Sparse != nil {
		_, v := d.Sparse.Row(i)
		return v
	}
	return d.Row(i)
}

// forEachValue calls fn with the feature index and a pointer to every stored
// value of d (every entry when dense).
func forEachValue(d *core.Data, fn func(j int, v *float64)) {
	if d.Sparse != nil {
		for k, j := range d.Sparse.Ind {
			fn(int(j), &d.Sparse.Val[k])
		}
		return
	}
	for k := range d.X {
		fn(k%d.Features, &d.X[k])
	}
}
