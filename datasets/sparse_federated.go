package datasets

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// Tasks of the sparse federated generator.
const (
	TaskRegression     = "regression"
	TaskClassification = "classification"
)

// SparseFederatedParams are the sparse generator's parameters.
type SparseFederatedParams struct {
	Dim         int     `param:"dim" min:"2" max:"16777216" doc:"feature dimension d (up to 2^24)"`
	Support     int     `param:"support" min:"1" doc:"size s of the true weights' support (±1 weights on s of the 4s most frequent features)"`
	Clients     int     `param:"clients" min:"1" doc:"number of clients M"`
	Samples     int     `param:"samples" min:"1" doc:"training samples per client"`
	TestSamples int     `param:"test_samples" min:"0" doc:"test samples per client, from the client's distribution (0 = no test set)"`
	Nnz         int     `param:"nnz" min:"1" doc:"nonzero features per sample"`
	Exponent    float64 `param:"exponent" min:"1" doc:"Zipf exponent (> 1) of the feature frequencies: feature of rank k appears with probability ∝ (1+k)^-exponent"`
	Vocab       int     `param:"vocab" min:"0" doc:"client vocabulary size: each client draws its features from its own vocab features (drawn by frequency); 0 = the whole dimension (no vocabulary heterogeneity); at most dim/2"`
	Task        string  `param:"task" choices:"regression|classification" doc:"labels: regression y = xᵀw* + noise·ε, or classification y = 1[xᵀw* + noise·ε > 0] (2 classes)"`
	Noise       float64 `param:"noise" min:"0" doc:"label noise level"`
	Format      string  `param:"format" choices:"sparse|dense" doc:"storage of the samples (dense is refused beyond 2^28 stored floats)"`
	Seed        int     `param:"seed" min:"0" doc:"random seed (same parameters and seed give bit-identical data)"`
}

func init() {
	registry.Define(registry.Dataset, "sparse_federated",
		"sparse high-dimensional federated data like bag-of-words text: power-law feature frequencies, client vocabularies, an s-sparse ground truth; regression or classification",
		SparseFederatedParams{Dim: 1 << 16, Support: 10, Clients: 100, Samples: 20, Nnz: 50, Exponent: 1.1,
			Task: TaskRegression, Noise: 0.1, Format: FormatSparse, Seed: 1},
		func(p SparseFederatedParams) (*core.Federated, error) {
			return GenerateSparseFederated(SparseSpec{
				Dim: p.Dim, Support: p.Support, Clients: p.Clients, Samples: p.Samples,
				TestSamples: p.TestSamples, Nonzeros: p.Nnz, Exponent: p.Exponent, Vocab: p.Vocab,
				Classification: p.Task == TaskClassification, Noise: p.Noise,
				Dense: p.Format == FormatDense, Seed: p.Seed,
			})
		})
}

// SparseSpec describes a sparse high-dimensional federated dataset.
type SparseSpec struct {
	Dim, Support     int
	Clients, Samples int
	TestSamples      int
	Nonzeros         int     // nonzero features per sample
	Exponent         float64 // Zipf exponent of the feature frequencies (> 1)
	Vocab            int     // client vocabulary size; 0 = every feature
	Classification   bool
	Noise            float64
	Dense            bool // store densely instead of in compressed rows
	Seed             int
}

// GenerateSparseFederated draws a sparse federated dataset. Features are
// ranked by frequency: rank k maps to feature (a·k + b) mod d for a fixed
// odd-ish a coprime with d, so frequent features are spread over the
// indices, and a sample's features are drawn by a Zipf law over ranks (rank k
// with probability ∝ (1+k)^−Exponent). With Vocab > 0 each client first
// draws its vocabulary of Vocab distinct ranks by the same law and its
// samples use only those (by a Zipf law over the vocabulary's ranks), so
// clients differ in which features they see, as documents of different
// authors do. Each sample has Nonzeros distinct features with N(0,1) values.
// The truth w* has ±1 weights on Support features chosen among the
// 4·Support most frequent; labels are y = xᵀw* + Noise·ε (regression) or
// 1[xᵀw* + Noise·ε > 0] (classification), ε ~ N(0,1), no intercept. Clients
// are generated in parallel from their own random streams.
func GenerateSparseFederated(s SparseSpec) (*core.Federated, error) {
	d := s.Dim
	switch {
	case d < 2 || d > core.MaxFeatures:
		return nil, fmt.Errorf("dim must lie in 2..%d, got %d", core.MaxFeatures, d)
	case s.Support < 1 || 4*s.Support > d:
		return nil, fmt.Errorf("support must lie in 1..dim/4 = %d, got %d", d/4, s.Support)
	case !(s.Exponent > 1):
		return nil, fmt.Errorf("exponent must be > 1, got %g", s.Exponent)
	case s.Vocab < 0 || s.Vocab > d/2:
		return nil, fmt.Errorf("vocab must lie in 0..dim/2 = %d, got %d", d/2, s.Vocab)
	case s.Nonzeros < 1 || 2*s.Nonzeros > max(s.Vocab, d*boolInt(s.Vocab == 0)):
		return nil, fmt.Errorf("nnz must lie in 1..%d (half the vocabulary), got %d", max(s.Vocab, d*boolInt(s.Vocab == 0))/2, s.Nonzeros)
	case s.Clients < 1 || s.Samples < 1 || s.TestSamples < 0:
		return nil, fmt.Errorf("need clients ≥ 1 and samples ≥ 1, got %d and %d", s.Clients, s.Samples)
	}
	if s.Dense {
		if n := float64(s.Clients) * float64(s.Samples+s.TestSamples) * float64(d); n > maxDenseFloats {
			return nil, fmt.Errorf("dense storage of %d clients × %d samples × %d features needs %.1f GiB; use format = %q",
				s.Clients, s.Samples+s.TestSamples, d, n*8/(1<<30), FormatSparse)
		}
	}
	rng := newRNG(s.Seed, 0)
	g := newRankMap(d, rng)
	truth := make([]float64, d)
	for _, k := range rng.Perm(4 * s.Support)[:s.Support] {
		truth[g.feature(k)] = float64(2*rng.IntN(2) - 1)
	}
	name := fmt.Sprintf("sparse_federated (d=%d, s=%d, M=%d, n=%d, nnz=%d)", d, s.Support, s.Clients, s.Samples, s.Nonzeros)
	f := &core.Federated{Name: name, Train: make([]*core.Data, s.Clients), Features: d, Truth: &core.Truth{Weights: truth}}
	if s.Classification {
		f.Classes = 2
	}
	if s.TestSamples > 0 {
		f.Test = make([]*core.Data, s.Clients)
	}
	eachClient(s.Clients, func(m int) {
		rng := newRNG(s.Seed, uint64(2*m+1))
		c := newSparseClient(s, g, truth, rng)
		f.Train[m] = c.draw(rng, s.Samples)
		if s.TestSamples > 0 {
			f.Test[m] = c.draw(newRNG(s.Seed, uint64(2*m+2)), s.TestSamples)
		}
		if s.Dense {
			f.Train[m] = f.Train[m].ToDense()
			if f.Test != nil {
				f.Test[m] = f.Test[m].ToDense()
			}
		}
	})
	return f, f.Check()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rankMap is the bijection k ↦ (a·k + b) mod d from frequency ranks to
// feature indices.
type rankMap struct{ a, b, d uint64 }

func newRankMap(d int, rng *rand.Rand) rankMap {
	a := uint64(rng.Int64N(int64(d-1))) + 1
	for gcd(a, uint64(d)) != 1 {
		a = uint64(rng.Int64N(int64(d-1))) + 1
	}
	return rankMap{a: a, b: uint64(rng.Int64N(int64(d))), d: uint64(d)}
}

func (g rankMap) feature(rank int) int { return int((g.a*uint64(rank) + g.b) % g.d) }

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// sparseClient draws one client's samples.
type sparseClient struct {
	s     SparseSpec
	g     rankMap
	truth []float64
	vocab []int // the client's ranks, increasing; nil = every rank
}

func newSparseClient(s SparseSpec, g rankMap, truth []float64, rng *rand.Rand) *sparseClient {
	c := &sparseClient{s: s, g: g, truth: truth}
	if s.Vocab > 0 {
		z := rand.NewZipf(rng, s.Exponent, 1, uint64(s.Dim-1))
		seen := make(map[int]bool, s.Vocab)
		// Heavy-tailed draws find new ranks quickly; after 50·vocab draws
		// the rest of the vocabulary is filled uniformly.
		for tries := 0; len(seen) < s.Vocab; tries++ {
			k := int(z.Uint64())
			if tries > 50*s.Vocab {
				k = rng.IntN(s.Dim)
			}
			seen[k] = true
		}
		for k := range seen {
			c.vocab = append(c.vocab, k)
		}
		slices.Sort(c.vocab)
	}
	return c
}

// draw makes n samples in compressed rows.
func (c *sparseClient) draw(rng *rand.Rand, n int) *core.Data {
	s := c.s
	top := s.Dim
	if c.vocab != nil {
		top = len(c.vocab)
	}
	z := rand.NewZipf(rng, s.Exponent, 1, uint64(top-1))
	sp := &core.CSR{Ptr: make([]int, 1, n+1), Ind: make([]int32, 0, n*s.Nonzeros), Val: make([]float64, 0, n*s.Nonzeros)}
	y := make([]float64, n)
	feats := make([]int, 0, s.Nonzeros)
	for i := range n {
		feats = feats[:0]
		for len(feats) < s.Nonzeros {
			k := int(z.Uint64())
			if c.vocab != nil {
				k = c.vocab[k]
			}
			j := c.g.feature(k)
			if !slices.Contains(feats, j) {
				feats = append(feats, j)
			}
		}
		slices.Sort(feats)
		margin := 0.0
		for _, j := range feats {
			v := rng.NormFloat64()
			sp.Ind = append(sp.Ind, int32(j))
			sp.Val = append(sp.Val, v)
			margin += v * c.truth[j]
		}
		sp.Ptr = append(sp.Ptr, len(sp.Ind))
		margin += s.Noise * rng.NormFloat64()
		switch {
		case !s.Classification:
			y[i] = margin
		case margin > 0:
			y[i] = 1
		}
	}
	return &core.Data{Sparse: sp, Y: y, N: n, Features: s.Dim}
}
