package datasets

import (
	"fmt"
	"strings"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/hugepages"
	"github.com/fedlab/fedlab/registry"
)

// preset is one of the paper's dataset configurations (I)–(IV).
type preset struct{ support, clients, samples int }

// LassoPresets are the FCO paper's federated LASSO datasets (Sec. 5.1,
// App. B.2): support d1, clients M and samples per client n_m, with d = 1024.
var LassoPresets = map[string]struct{ Support, Clients, Samples int }{
	"I":   {512, 64, 128},
	"II":  {64, 64, 128},
	"III": {8, 64, 128},
	"IV":  {512, 256, 32},
}

// LowRankPresets are the FCO paper's low-rank matrix datasets (Sec. 5.2,
// App. B.3): rank r, clients M and samples per client n_m, with 32×32 matrices.
var LowRankPresets = map[string]struct{ Rank, Clients, Samples int }{
	"I":   {16, 64, 128},
	"II":  {4, 64, 128},
	"III": {1, 64, 128},
	"IV":  {16, 256, 32},
}

// syntheticCommon are the parameters the FCO generators share.
type syntheticCommon struct {
	Clients     int     `param:"clients" min:"0" doc:"number of clients M; 0 = from variant"`
	Samples     int     `param:"samples" min:"0" doc:"training samples n_m per client; 0 = from variant"`
	TestSamples int     `param:"test_samples" min:"0" doc:"test samples per client, drawn from the client's distribution (0 = no test set)"`
	Scale       float64 `param:"scale" doc:"feature scale (> 0): features are multiplied by it after y is computed, truth weights divided by it"`
	Seed        int     `param:"seed" min:"0" doc:"random seed (same parameters and seed give bit-identical data)"`
}

// LassoParams are the lasso generator's parameters.
type LassoParams struct {
	Variant string `param:"variant" choices:"I|II|III|IV|custom" doc:"paper configuration (I)–(IV), or custom (then support, clients and samples are required)"`
	Support int    `param:"support" min:"0" doc:"support size d1 (the first d1 true weights are 1, the rest 0); 0 = from variant"`
	Dim     int    `param:"dim" min:"1" max:"1048576" doc:"feature dimension d = d1 + d0 (up to 2^20; beyond about 2^14 use density < 1 and format = \"sparse\")"`
	syntheticCommon
	lassoStorage
}

// LowRankParams are the low-rank generator's parameters.
type LowRankParams struct {
	Variant string `param:"variant" choices:"I|II|III|IV|custom" doc:"paper configuration (I)–(IV), or custom (then rank, clients and samples are required)"`
	Rank    int    `param:"rank" min:"0" doc:"rank r of the true matrix diag(1,…,1,0,…,0); 0 = from variant"`
	Size    int    `param:"size" min:"1" doc:"matrix side n_row: X and W are size×size, flattened row-major"`
	syntheticCommon
}

func init() {
	common := syntheticCommon{TestSamples: 32, Scale: 1, Seed: 1}
	registry.Define(registry.Dataset, "lasso",
		"FCO paper's synthetic federated LASSO: y = 1_{d1}ᵀx + b + ε with client-shifted Gaussian x",
		LassoParams{Variant: "I", Dim: 1024, syntheticCommon: common, lassoStorage: lassoStorage{Density: 1, Format: FormatDense}},
		buildLasso)
	registry.Define(registry.Dataset, "lowrank",
		"FCO paper's synthetic low-rank matrix estimation: y = ⟨diag(1_r,0), X⟩ + b + ε with client-shifted Gaussian X",
		LowRankParams{Variant: "I", Size: 32, syntheticCommon: common}, buildLowRank)
}

// resolve fills the zero (from-variant) sizes of a synthetic dataset from its
// preset and reports whether the result is exactly the preset.
func resolve(variant, sizeName string, p preset, size, clients, samples int) (preset, bool, error) {
	if variant == "custom" {
		var missing []string
		if size <= 0 {
			missing = append(missing, sizeName)
		}
		if clients <= 0 {
			missing = append(missing, "clients")
		}
		if samples <= 0 {
			missing = append(missing, "samples")
		}
		if len(missing) > 0 {
			return preset{}, false, fmt.Errorf("variant \"custom\" needs %s, clients and samples > 0 (missing: %s)",
				sizeName, strings.Join(missing, ", "))
		}
		return preset{size, clients, samples}, false, nil
	}
	out := p
	if size > 0 {
		out.support = size
	}
	if clients > 0 {
		out.clients = clients
	}
	if samples > 0 {
		out.samples = samples
	}
	return out, out == p, nil
}

func buildLasso(a LassoParams) (*core.Federated, error) {
	variant, dim := a.Variant, a.Dim
	var p preset
	if lp, ok := LassoPresets[variant]; ok {
		p = preset{lp.Support, lp.Clients, lp.Samples}
	}
	p, exact, err := resolve(variant, "support", p, a.Support, a.Clients, a.Samples)
	if err != nil {
		return nil, err
	}
	if p.support > dim {
		return nil, fmt.Errorf("support %d exceeds dim %d", p.support, dim)
	}
	scale := a.Scale
	if !(scale > 0) {
		return nil, fmt.Errorf("scale must be > 0, got %g", scale)
	}
	name := fmt.Sprintf("lasso (%s)", variant)
	if !exact || dim != 1024 {
		name = fmt.Sprintf("lasso (d1=%d, d=%d, M=%d, n=%d)", p.support, dim, p.clients, p.samples)
	}
	if scale != 1 {
		name += fmt.Sprintf(" ×%g", scale)
	}
	w := make([]float64, dim)
	for i := range p.support {
		w[i] = 1
	}
	spec := ShiftedSpec{Name: name, Weights: w, Clients: p.clients, Samples: p.samples,
		TestSamples: a.TestSamples, Scale: scale, Seed: a.Seed}
	if density, format := a.Density, a.Format; density < 1 || format != FormatDense {
		return lassoSparse(spec, density, format)
	}
	if err := denseFits(spec); err != nil {
		return nil, err
	}
	f, _ := GenerateShifted(spec)
	return f, f.Check()
}

func buildLowRank(a LowRankParams) (*core.Federated, error) {
	variant, size := a.Variant, a.Size
	var p preset
	if rp, ok := LowRankPresets[variant]; ok {
		p = preset{rp.Rank, rp.Clients, rp.Samples}
	}
	p, exact, err := resolve(variant, "rank", p, a.Rank, a.Clients, a.Samples)
	if err != nil {
		return nil, err
	}
	if p.support > size {
		return nil, fmt.Errorf("rank %d exceeds size %d", p.support, size)
	}
	scale := a.Scale
	if !(scale > 0) {
		return nil, fmt.Errorf("scale must be > 0, got %g", scale)
	}
	name := fmt.Sprintf("lowrank (%s)", variant)
	if !exact || size != 32 {
		name = fmt.Sprintf("lowrank (r=%d, %d×%d, M=%d, n=%d)", p.support, size, size, p.clients, p.samples)
	}
	if scale != 1 {
		name += fmt.Sprintf(" ×%g", scale)
	}
	w := make([]float64, size*size)
	for i := range p.support {
		w[i*size+i] = 1
	}
	f, _ := GenerateShifted(ShiftedSpec{Name: name, Weights: w, Clients: p.clients, Samples: p.samples,
		TestSamples: a.TestSamples, Scale: scale, Seed: a.Seed, Shape: [2]int{size, size}})
	return f, f.Check()
}

// ShiftedSpec describes a covariate-shift linear regression dataset.
type ShiftedSpec struct {
	Name        string
	Weights     []float64 // true weights w_real (their length is the feature count)
	Clients     int       // M
	Samples     int       // training samples per client
	TestSamples int       // test samples per client (0: no test set)
	Scale       float64   // features are multiplied by Scale after y is computed (0 means 1)
	Seed        int
	Shape       [2]int // copied to Federated.Shape
}

// GenerateShifted draws the FCO paper's synthetic regression data: b_real ~
// N(0,1); for each client a fixed mean mu_m ~ N(0, I_d); samples x = mu_m + δ,
// δ ~ N(0, I_d), and y = w_realᵀx + b_real + ε, ε ~ N(0,1). Features are then
// multiplied by Scale and the truth is {w_real/Scale, b_real}. It also returns
// the client means mu_m (unscaled). Each client draws from its own random
// streams (one for mu_m and training, one for testing), so the clients are
// generated in parallel and a client's data does not depend on the number of
// clients or test samples.
func GenerateShifted(s ShiftedSpec) (*core.Federated, [][]float64) {
	d := len(s.Weights)
	truth, b, scale := s.truth()
	f := &core.Federated{
		Name:     s.Name,
		Train:    make([]*core.Data, s.Clients),
		Features: d,
		Shape:    s.Shape,
		Truth:    &core.Truth{Weights: truth, Bias: b},
	}
	if s.TestSamples > 0 {
		f.Test = make([]*core.Data, s.Clients)
	}
	mus := make([][]float64, s.Clients)
	train := hugepages.Floats(s.Clients * s.Samples * d) // one slab: huge pages (see internal/hugepages)
	eachClient(s.Clients, func(m int) {
		rng := newRNG(s.Seed, uint64(2*m+1))
		mu := make([]float64, d)
		for i := range mu {
			mu[i] = rng.NormFloat64()
		}
		mus[m] = mu
		f.Train[m] = drawShifted(rng, mu, s.Weights, b, s.Samples, scale, train[m*s.Samples*d:(m+1)*s.Samples*d:(m+1)*s.Samples*d])
		if s.TestSamples > 0 {
			f.Test[m] = drawShifted(newRNG(s.Seed, uint64(2*m+2)), mu, s.Weights, b, s.TestSamples, scale, nil)
		}
	})
	return f, mus
}

// truth returns the model of the scaled features, w/Scale, its bias b
// (drawn from the seed's stream 0) and the scale (1 when Scale is 0); the
// dense and sparse generators share it, so they have the same truth.
func (s ShiftedSpec) truth() (truth []float64, b, scale float64) {
	scale = s.Scale
	if scale == 0 {
		scale = 1
	}
	b = newRNG(s.Seed, 0).NormFloat64()
	truth = make([]float64, len(s.Weights))
	for i, w := range s.Weights {
		truth[i] = w / scale
	}
	return truth, b, scale
}

// drawShifted draws n samples x = mu + δ, y = wᵀx + b + ε and scales x,
// writing the features into x (n·d values; allocated when nil).
func drawShifted(rng interface{ NormFloat64() float64 }, mu, w []float64, b float64, n int, scale float64, x []float64) *core.Data {
	d := len(mu)
	if x == nil {
		x = make([]float64, n*d)
	}
	out := &core.Data{X: x, Y: make([]float64, n), N: n, Features: d}
	for i := range n {
		row := out.X[i*d : (i+1)*d]
		y := b
		for j := range row {
			row[j] = mu[j] + rng.NormFloat64()
			y += w[j] * row[j]
		}
		out.Y[i] = y + rng.NormFloat64()
		if scale != 1 {
			for j := range row {
				row[j] *= scale
			}
		}
	}
	return out
}
