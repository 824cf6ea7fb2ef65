package datasets

import (
	"fmt"
	"math"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
)

// FedPDLogisticParams are the FedPD classification generator's parameters.
type FedPDLogisticParams struct {
	Variant  string `param:"variant" choices:"weak|strong" doc:"weak: labels ±1 independent of the features; strong: labels from a per-client linear model"`
	Clients  int    `param:"clients" min:"1" doc:"number of clients N"`
	Samples  int    `param:"samples" min:"1" doc:"samples per client"`
	Features int    `param:"features" min:"1" doc:"D, including the constant feature 1 that serves as the bias (the authors' code uses 20)"`
	Models   string `param:"models" choices:"code|paper" doc:"strong variant's client models: code = U[0,40] + integer shift in {−10..10} per entry; paper = U[−10,10]"`
	Noise    string `param:"noise" choices:"threshold|none" doc:"strong variant's label noise: threshold = flip sign(aᵀx_m) when |aᵀx_m| < z·max aᵀx, z ~ N(0,1); none"`
	Seed     int    `param:"seed" min:"0" doc:"random seed (same parameters and seed give bit-identical data)"`
}

// FedAvgCounterexampleParams are the parameters of Claim 2.2's two clients.
type FedAvgCounterexampleParams struct {
	Curvature float64 `param:"curvature" min:"0" doc:"c: client 1 has curvature +c, client 2 has −c"`
	Center    float64 `param:"center" doc:"every entry of w*; w₀ = 0 then starts at distance |center| per entry, and l2_error = ‖w − w*‖"`
	Dim       int     `param:"dim" min:"1" doc:"dimension of w"`
	Samples   int     `param:"samples" min:"1" doc:"identical samples per client (so minibatch SGD equals GD)"`
}

func init() {
	registry.Define(registry.Dataset, "fedpd_logistic",
		"FedPD paper's synthetic binary classification (App. H.1): weakly (random labels) or strongly (per-client models) non-iid",
		FedPDLogisticParams{Variant: "weak", Clients: 100, Samples: 400, Features: 20, Models: "code", Noise: "threshold", Seed: 1},
		buildFedPDLogistic)
	registry.Define(registry.Dataset, "fedavg_counterexample",
		"FedPD paper's Claim 2.2: two clients with f₁ = ½c‖w − w*‖², f₂ = −½c‖w − w*‖² (use loss \"quadratic\")",
		FedAvgCounterexampleParams{Curvature: 1, Center: 1, Dim: 1, Samples: 1}, buildCounterexample)
}

func buildFedPDLogistic(p FedPDLogisticParams) (*core.Federated, error) {
	s := LogisticSpec{Strong: p.Variant == "strong", Clients: p.Clients, Samples: p.Samples,
		Features: p.Features, PaperModels: p.Models == "paper", Noise: p.Noise == "threshold", Seed: p.Seed}
	f := GenerateLogistic(s)
	return f, f.Check()
}

// LogisticSpec describes the FedPD paper's synthetic classification data.
type LogisticSpec struct {
	Strong      bool // labels from per-client models (else independent ±1)
	Clients     int
	Samples     int  // per client
	Features    int  // D, the last one the constant 1
	PaperModels bool // client models U[−10,10] (else the code's U[0,40] + integer shift)
	Noise       bool // threshold label flips (strong variant)
	Seed        int
}

// GenerateLogistic draws the FedPD paper's data (App. H.1 and the authors'
// MATLAB main.m). Every sample has D − 1 standard normal features and a
// last feature 1 (the bias). Weakly non-iid: labels uniform in {−1, +1},
// independent of the features, the same distribution on every client.
// Strongly non-iid: client m draws a model x_m (per entry U[0,40] plus an
// integer uniform in {−10..10} as in the code, or U[−10,10] as the paper
// says), raw scores t = aᵀx_m and labels sign(t); with Noise, a sample's
// label is flipped when |t| < z·t_max, z ~ N(0,1) per sample and t_max the
// largest score over all clients (the rule the code intends; its sequential
// relabelling also flips every positive sample with 1 < z·t_max, which we do
// not copy). Client m draws from its own stream, so its features do not
// depend on the number of clients.
func GenerateLogistic(s LogisticSpec) *core.Federated {
	D := s.Features
	variant := "weak"
	if s.Strong {
		variant = "strong"
	}
	name := fmt.Sprintf("fedpd_logistic (%s, N=%d, n=%d, D=%d)", variant, s.Clients, s.Samples, D)
	f := &core.Federated{Name: name, Features: D, Classes: 2, Train: make([]*core.Data, s.Clients)}
	z := make([][]float64, s.Clients)
	tmax := math.Inf(-1)
	for m := range s.Clients {
		rng := newRNG(s.Seed, uint64(m)+1)
		d := &core.Data{X: make([]float64, s.Samples*D), Y: make([]float64, s.Samples), N: s.Samples, Features: D}
		for i := range s.Samples {
			row := d.Row(i)
			for j := range D - 1 {
				row[j] = rng.NormFloat64()
			}
			row[D-1] = 1
		}
		if !s.Strong {
			for i := range d.Y {
				d.Y[i] = float64(2*rng.IntN(2) - 1)
			}
			f.Train[m] = d
			continue
		}
		x := make([]float64, D)
		for j := range x {
			if s.PaperModels {
				x[j] = 20*rng.Float64() - 10
			} else {
				x[j] = 40*rng.Float64() + float64(rng.IntN(21)-10)
			}
		}
		z[m] = make([]float64, s.Samples)
		for i := range d.Y {
			t := 0.0
			for j, v := range d.Row(i) {
				t += v * x[j]
			}
			d.Y[i] = t // raw score; turned into a label below
			tmax = max(tmax, t)
			z[m][i] = rng.NormFloat64()
		}
		f.Train[m] = d
	}
	if s.Strong {
		for m, d := range f.Train {
			for i, t := range d.Y {
				y := 1.0
				if t < 0 {
					y = -1
				}
				if s.Noise && math.Abs(t) < z[m][i]*tmax {
					y = -y
				}
				d.Y[i] = y
			}
		}
	}
	return f
}

func buildCounterexample(p FedAvgCounterexampleParams) (*core.Federated, error) {
	c, center, dim, n := p.Curvature, p.Center, p.Dim, p.Samples
	f := &core.Federated{Name: fmt.Sprintf("fedavg_counterexample (c=%g, dim=%d)", c, dim), Features: dim}
	for _, s := range []float64{c, -c} {
		d := &core.Data{X: make([]float64, n*dim), Y: make([]float64, n), N: n, Features: dim}
		for i := range d.X {
			d.X[i] = center
		}
		for i := range d.Y {
			d.Y[i] = s
		}
		f.Train = append(f.Train, d)
	}
	w := make([]float64, dim)
	for i := range w {
		w[i] = center
	}
	f.Truth = &core.Truth{Weights: w}
	return f, f.Check()
}
