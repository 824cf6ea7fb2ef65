package algorithms

import (
	"math"
	"strconv"
	"testing"

	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
)

// handCNN is the tiny net of TestFedAvgCNNTwoRoundsByHand written out with
// explicit loops: a 4×4 image, two 2×2 filters (cross-correlation, stride 1,
// no padding: 3×3 maps), bias, ReLU, a 2×2 max-pool of stride 2 (one window,
// the top-left 2×2 of each map; the third row and column are dropped), a
// dense layer 2 → 2 and softmax cross-entropy. Parameters in the engine's
// layout: K[f][a·2+b] (0..7), c[f] (8..9), V[i][o] (10..13, row i = pooled
// feature of filter i), b[o] (14..15).
func handCNNGrad(w []float64, xs [][]float64, ys []int) []float64 {
	g := make([]float64, len(w))
	for s, x := range xs {
		var h [2]float64
		var arg [2][2]int // (row, col) of each filter's pooled maximum
		for f := range 2 {
			h[f] = math.Inf(-1)
			for i := range 2 { // pool window rows
				for j := range 2 {
					v := w[8+f]
					for a := range 2 {
						for b := range 2 {
							v += w[f*4+a*2+b] * x[(i+a)*4+(j+b)]
						}
					}
					v = math.Max(v, 0)
					if v > h[f] {
						h[f], arg[f] = v, [2]int{i, j}
					}
				}
			}
		}
		var z [2]float64
		for o := range 2 {
			z[o] = w[14+o] + h[0]*w[10+o] + h[1]*w[12+o]
		}
		mx := math.Max(z[0], z[1])
		e0, e1 := math.Exp(z[0]-mx), math.Exp(z[1]-mx)
		p := [2]float64{e0 / (e0 + e1), e1 / (e0 + e1)}
		p[ys[s]]--
		n := float64(len(xs))
		for o := range 2 {
			g[14+o] += p[o] / n
			for i := range 2 {
				g[10+i*2+o] += h[i] * p[o] / n
			}
		}
		for f := range 2 {
			if h[f] <= 0 { // ReLU inactive: no gradient to the conv
				continue
			}
			dh := (w[10+f*2]*p[0] + w[10+f*2+1]*p[1]) / n
			i, j := arg[f][0], arg[f][1]
			g[8+f] += dh
			for a := range 2 {
				for b := range 2 {
					g[f*4+a*2+b] += dh * x[(i+a)*4+(j+b)]
				}
			}
		}
	}
	return g
}

// Two rounds of FedAvg (2 clients with 2 images each, K = 2 full-batch local
// steps, η_c = 0.5, η_s = 1) with the registered "cnn" loss through the
// engine match local SGD + averaging on handCNNGrad to 1e-12, parameter by
// parameter, after round 1 and after round 2. The images are asymmetric and
// put each filter's maximum off the top-left position, so a transposed or
// flipped kernel, or a pool gradient routed to another position, changes
// the trajectory.
func TestFedAvgCNNTwoRoundsByHand(t *testing.T) {
	clients := [][][]float64{
		{
			{0.1, 0.9, 0.2, 0.0, 0.3, 0.0, 1.0, 0.4, 0.0, 0.7, 0.1, 0.2, 0.5, 0.0, 0.3, 0.8},
			{0.6, 0.0, 0.1, 0.2, 0.0, 0.2, 0.9, 0.0, 0.3, 0.1, 0.0, 0.7, 0.2, 0.4, 0.6, 0.1},
		},
		{
			{0.0, 0.2, 0.0, 0.5, 0.8, 0.1, 0.0, 0.3, 0.2, 1.0, 0.4, 0.0, 0.1, 0.3, 0.0, 0.6},
			{0.9, 0.4, 0.0, 0.1, 0.1, 0.0, 0.6, 0.2, 0.0, 0.5, 0.2, 0.8, 0.3, 0.0, 0.7, 0.0},
		},
	}
	labels := [][]int{{0, 1}, {1, 0}}
	f := &core.Federated{Name: "tiny-images", Features: 16, Classes: 2}
	for m, rows := range clients {
		d := &core.Data{Features: 16}
		for s, r := range rows {
			d.X = append(d.X, r...)
			d.Y = append(d.Y, float64(labels[m][s]))
			d.N++
		}
		f.Train = append(f.Train, d)
	}
	loss, err := registry.Build[core.Loss](registry.Loss, "cnn", map[string]any{
		"channels": []float64{2}, "kernel": 2.0, "padding": []float64{0}, "pool": 2.0, "dense": []float64{},
	})
	if err != nil {
		t.Fatal(err)
	}
	pen, err := registry.Build[core.Penalty](registry.Regularizer, "none", nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := core.NewProblem(f, loss, pen, core.Euclidean{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Layout.String(); got != "kernel1 2x4 (reg) + bias1 1x2 + kernel2 2x2 (reg) + bias2 1x2" {
		t.Fatalf("layout %q", got)
	}
	w0 := []float64{
		0.3, -0.2, 0.5, 0.1, // filter 1: K[a][b] row-major
		-0.1, 0.4, 0.2, -0.3, // filter 2
		0.05, 0.1, // conv biases
		0.7, -0.4, -0.5, 0.6, // V (pooled feature × class)
		0.02, -0.02,
	}
	const etaC, K = 0.5, 2
	want := append([]float64(nil), w0...)
	var prev []float64
	for rounds := 1; rounds <= 2; rounds++ {
		next := make([]float64, len(want))
		for m := range clients {
			wm := append([]float64(nil), want...)
			for range K {
				g := handCNNGrad(wm, clients[m], labels[m])
				for i := range wm {
					wm[i] -= etaC * g[i]
				}
			}
			for i := range next {
				next[i] += wm[i] / float64(len(clients))
			}
		}
		prev, want = want, next
		res := run(t, p, algo(t, "fedavg", map[string]any{"eta_c": etaC, "eta_s": 1.0}),
			core.Settings{Rounds: rounds, LocalSteps: K, W0: w0})
		assertVec(t, "fedavg cnn model after round "+strconv.Itoa(rounds), res.Model, want, 1e-12)
	}
	moved := 0.0
	for i := range want {
		moved = math.Max(moved, math.Abs(want[i]-prev[i]))
	}
	if moved <= 1e-3 {
		t.Fatalf("round 2 moved the parameters by at most %g: the trajectory is trivial", moved)
	}
}
