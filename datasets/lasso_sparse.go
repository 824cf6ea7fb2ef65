package datasets

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/core"
)

// lassoStorage are the lasso generator's sparse-feature options.
type lassoStorage struct {
	Density float64 `param:"density" min:"0" max:"1" doc:"fraction in (0, 1] of features present in a sample; below 1 each feature is kept independently with this probability (others are 0), and the client means are hashed per coordinate so memory stays O(nonzeros)"`
	Format  string  `param:"format" choices:"dense|sparse" doc:"storage of the samples; sparse with density = 1 holds exactly the dense data in compressed rows"`
}

// denseFits refuses a dense shifted dataset beyond maxDenseFloats.
func denseFits(s ShiftedSpec) error {
	n := float64(s.Clients) * float64(s.Samples+s.TestSamples+1) * float64(len(s.Weights))
	if n > maxDenseFloats {
		return fmt.Errorf("dense storage of %d clients × %d samples × %d features needs %.1f GiB; use density < 1 and format = %q",
			s.Clients, s.Samples+s.TestSamples, len(s.Weights), n*8/(1<<30), FormatSparse)
	}
	return nil
}

// lassoSparse builds the lasso data with features kept with probability
// density (see GenerateShiftedSparse), stored as format says. With density
// 1 it is GenerateShifted's data.
func lassoSparse(s ShiftedSpec, density float64, format string) (*core.Federated, error) {
	if !(density > 0) {
		return nil, fmt.Errorf("density must lie in (0, 1], got %g", density)
	}
	var f *core.Federated
	if density == 1 {
		if err := denseFits(s); err != nil {
			return nil, err
		}
		f, _ = GenerateShifted(s)
	} else {
		f = GenerateShiftedSparse(s, density)
	}
	for _, parts := range [][]*core.Data{f.Train, f.Test} {
		for m, d := range parts {
			if format == FormatSparse {
				parts[m] = d.ToSparse()
			} else {
				if float64(d.N)*float64(d.Features)*float64(len(parts)) > maxDenseFloats {
					return nil, fmt.Errorf("dense storage of %d features per sample is too large; use format = %q", d.Features, FormatSparse)
				}
				parts[m] = d.ToDense()
			}
		}
	}
	return f, f.Check()
}

// GenerateShiftedSparse draws GenerateShifted's model with sparse samples:
// each feature j of a sample is present independently with probability
// density, and then x_j = mu_{m,j} + δ_j, δ_j ~ N(0,1); y = w_realᵀx + b_real
// + ε. The client mean mu_{m,j} ~ N(0,1) is a hash of (seed, m, j), so no
// client stores a d-vector; present features are found by geometric skips,
// so a sample costs O(its nonzeros). Features are then multiplied by Scale.
func GenerateShiftedSparse(s ShiftedSpec, density float64) *core.Federated {
	d := len(s.Weights)
	truth, b, scale := s.truth()
	f := &core.Federated{Name: s.Name, Train: make([]*core.Data, s.Clients), Features: d, Truth: &core.Truth{Weights: truth, Bias: b}}
	if s.TestSamples > 0 {
		f.Test = make([]*core.Data, s.Clients)
	}
	draw := func(m int, stream uint64, n int) *core.Data {
		rng := newRNG(s.Seed, stream)
		sp := &core.CSR{Ptr: make([]int, 1, n+1)}
		y := make([]float64, n)
		logq := math.Log1p(-density)
		for i := range n {
			yi := b
			for j := -1; ; {
				if density == 1 {
					j++
				} else {
					j += 1 + int(math.Floor(math.Log(uniformOpen(rng))/logq))
				}
				if j >= d || j < 0 {
					break
				}
				x := hashedNormal(uint64(s.Seed), uint64(m), uint64(j)) + rng.NormFloat64()
				yi += s.Weights[j] * x
				sp.Ind = append(sp.Ind, int32(j))
				sp.Val = append(sp.Val, x*scale)
			}
			sp.Ptr = append(sp.Ptr, len(sp.Ind))
			y[i] = yi + rng.NormFloat64()
		}
		return &core.Data{Sparse: sp, Y: y, N: n, Features: d}
	}
	eachClient(s.Clients, func(m int) {
		f.Train[m] = draw(m, uint64(2*m+1), s.Samples)
		if s.TestSamples > 0 {
			f.Test[m] = draw(m, uint64(2*m+2), s.TestSamples)
		}
	})
	return f
}

// hashedNormal is a N(0,1) value determined by (seed, m, j): two uniforms
// from SplitMix64 hashes through the Box–Muller transform.
func hashedNormal(seed, m, j uint64) float64 {
	h := splitmix64(splitmix64(splitmix64(seed^0x5bd1e995)^m) ^ j)
	u1 := (float64(h>>11) + 0.5) / (1 << 53)
	u2 := float64(splitmix64(h)>>11) / (1 << 53)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}
