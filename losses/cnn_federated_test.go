package losses_test

import (
	"math"
	"slices"
	"testing"

	_ "github.com/fedlab/fedlab/algorithms"
	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
	_ "github.com/fedlab/fedlab/regularizers"
)

// tinyCNNGrad is an independent forward/backward pass of the tiny CNN of
// TestCNNFedAvgTwoRounds, written as explicit loops: a 4×4 image, one 2×2
// kernel K (row-major) with bias c, ReLU, a 2×2 max-pool of the 3×3 map (its
// window is rows 0–1, columns 0–1; the last row and column are dropped; ties
// go to the first maximum), then z_k = m·V_k + b_k and softmax
// cross-entropy. w = (K₁₁, K₁₂, K₂₁, K₂₂, c, V₁, V₂, b₁, b₂). It returns the
// gradient of the mean loss over the rows.
func tinyCNNGrad(w []float64, xs [][]float64, ys []int) []float64 {
	g := make([]float64, 9)
	for s, x := range xs {
		m, bi, bj := math.Inf(-1), 0, 0
		for i := range 2 {
			for j := range 2 {
				v := w[4]
				for a := range 2 {
					for b := range 2 {
						v += w[2*a+b] * x[(i+a)*4+j+b]
					}
				}
				v = math.Max(v, 0)
				if v > m {
					m, bi, bj = v, i, j
				}
			}
		}
		z := []float64{m*w[5] + w[7], m*w[6] + w[8]}
		mx := math.Max(z[0], z[1])
		den := math.Exp(z[0]-mx) + math.Exp(z[1]-mx)
		dm := 0.0
		for k := range 2 {
			dz := math.Exp(z[k]-mx) / den
			if k == ys[s] {
				dz--
			}
			g[5+k] += m * dz
			g[7+k] += dz
			dm += w[5+k] * dz
		}
		if m > 0 {
			for a := range 2 {
				for b := range 2 {
					g[2*a+b] += dm * x[(bi+a)*4+bj+b]
				}
			}
			g[4] += dm
		}
	}
	for i := range g {
		g[i] /= float64(len(xs))
	}
	return g
}

// Two federated rounds of FedAvg (η_c = 0.3, η_s = 0.7, K = 2 full-batch
// local steps) with a tiny CNN on two clients of two 4×4 images each, run by
// the engine, against the same rounds replayed with tinyCNNGrad: every
// parameter after round 1 and after round 2 agrees to 1e-12.
func TestCNNFedAvgTwoRounds(t *testing.T) {
	const etaC, etaS, K = 0.3, 0.7, 2
	clients := [][][]float64{
		{
			{0.9, 0.1, 0.4, 0.2, 0.3, 0.8, 0.5, 0.1, 0.6, 0.2, 0.7, 0.3, 0.1, 0.5, 0.2, 0.9},
			{0.2, 0.7, 0.1, 0.6, 0.8, 0.3, 0.9, 0.4, 0.1, 0.5, 0.2, 0.8, 0.7, 0.1, 0.6, 0.3},
		},
		{
			{0.5, 0.5, 0.9, 0.1, 0.2, 0.6, 0.3, 0.7, 0.8, 0.1, 0.4, 0.2, 0.3, 0.9, 0.1, 0.6},
			{0.1, 0.3, 0.2, 0.8, 0.9, 0.2, 0.6, 0.1, 0.4, 0.7, 0.3, 0.5, 0.6, 0.2, 0.8, 0.4},
		},
	}
	labels := [][]int{{0, 1}, {1, 0}}
	f := &core.Federated{Name: "tiny", Features: 16, Classes: 2}
	for m, rows := range clients {
		y := []float64{float64(labels[m][0]), float64(labels[m][1])}
		f.Train = append(f.Train, newData(rows, y))
	}
	net := losses.CNN{InChannels: 1, Channels: []int{1}, Kernel: 2, Padding: []int{0}, Pool: 2}
	pen, err := registry.Build[core.Penalty](registry.Regularizer, "none", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := core.NewProblem(f, net, pen, core.Euclidean{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Layout.String(); got != "kernel1 1x4 (reg) + bias1 1x1 + kernel2 1x2 (reg) + bias2 1x2" {
		t.Fatalf("layout %q", got)
	}
	w0 := []float64{0.4, -0.2, 0.3, 0.5, 0.1, 0.6, -0.4, 0.05, -0.05}

	want := append([]float64(nil), w0...)
	for rounds := 1; rounds <= 2; rounds++ {
		// hand replay of round `rounds`: each client K GD steps from the server model, then w += η_s·mean(w_K − w)
		delta := make([]float64, 9)
		for m := range clients {
			wm := append([]float64(nil), want...)
			for range K {
				g := tinyCNNGrad(wm, clients[m], labels[m])
				for i := range wm {
					wm[i] -= etaC * g[i]
				}
			}
			for i := range delta {
				delta[i] += (wm[i] - want[i]) / float64(len(clients))
			}
		}
		for i := range want {
			want[i] += etaS * delta[i]
		}

		a, err := registry.Build[core.Algorithm](registry.Algorithm, "fedavg", map[string]any{"eta_c": etaC, "eta_s": etaS})
		if err != nil {
			t.Fatal(err)
		}
		res := core.Run(p, a, core.Settings{Rounds: rounds, LocalSteps: K, W0: w0}, nil)
		if res.Status != core.Done {
			t.Fatalf("run: %s %v", res.Status, res.Err)
		}
		for i := range want {
			if math.Abs(res.Model[i]-want[i]) > 1e-12 {
				t.Errorf("round %d, parameter %d: engine %.17g, hand %.17g", rounds, i, res.Model[i], want[i])
			}
		}
		if slices.Equal(want, w0) {
			t.Fatalf("round %d: the model did not move", rounds)
		}
	}
}
