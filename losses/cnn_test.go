package losses_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/losses"
	"github.com/fedlab/fedlab/registry"
)

// lenet5 is LeNet-5 for 28×28 images (the registry's defaults).
var lenet5 = losses.CNN{InChannels: 1, Channels: []int{6, 16}, Kernel: 5, Padding: []int{2, 0}, Pool: 2, Dense: []int{120, 84}}

// fedda4 is the FedDA paper's 4-layer CNN with 32 filters per layer, read as
// the Conv-4 backbone without batch normalization.
var fedda4 = losses.CNN{InChannels: 1, Channels: []int{32, 32, 32, 32}, Kernel: 3, Padding: []int{1}, Pool: 2}

// cnnCases are small networks with more rows than one evaluation chunk
// (32): square and non-square images, one and two input channels, padding,
// a pool that drops a partial window, with and without hidden dense layers.
func cnnCases() []struct {
	name string
	net  losses.CNN
	f    *core.Federated
} {
	rng := rand.New(rand.NewPCG(31, 32))
	mk := func(n, F, K int) *core.Federated {
		return fed(randData(rng, n, F, func(int) float64 { return float64(rng.IntN(K)) }), K)
	}
	return []struct {
		name string
		net  losses.CNN
		f    *core.Federated
	}{
		{"6x6 two conv + dense", losses.CNN{InChannels: 1, Channels: []int{2, 3}, Kernel: 3, Padding: []int{1}, Pool: 2, Dense: []int{4}}, mk(40, 36, 3)},
		{"2x7x5 odd pool", losses.CNN{InChannels: 2, Height: 7, Width: 5, Channels: []int{3}, Kernel: 2, Padding: []int{0}, Pool: 2}, mk(35, 70, 4)},
		{"5x5 pool 1 padding 2", losses.CNN{InChannels: 1, Channels: []int{2, 2}, Kernel: 3, Padding: []int{2, 0}, Pool: 1, Dense: []int{3, 3}}, mk(33, 25, 2)},
		{"3x8x8 colour planes (CIFAR's layout)", losses.CNN{InChannels: 3, Channels: []int{2, 2}, Kernel: 3, Padding: []int{1}, Pool: 2}, mk(34, 192, 3)},
	}
}

func TestCNNLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := randData(rng, 4, 784, func(int) float64 { return float64(rng.IntN(10)) })
	lay := layout(t, lenet5, fed(d, 10))
	want := "kernel1 6x25 (reg) + bias1 1x6 + kernel2 16x150 (reg) + bias2 1x16 + kernel3 400x120 (reg) + bias3 1x120 + " +
		"kernel4 120x84 (reg) + bias4 1x84 + kernel5 84x10 (reg) + bias5 1x10"
	if got := lay.String(); got != want {
		t.Fatalf("LeNet-5 layout %q, want %q", got, want)
	}
	if got := lay.Dim(); got != 61706 { // LeNet-5's classic parameter count on 28×28 with padding 2
		t.Fatalf("LeNet-5 has %d parameters, want 61706", got)
	}
	lay = layout(t, fedda4, fed(d, 10))
	// 28 → 14 → 7 → 3 → 1: 32·9+32 + 3·(32·288+32) + 32·10+10
	if got, want := lay.Dim(), 320+3*9248+330; got != want {
		t.Fatalf("4-layer CNN has %d parameters, want %d", got, want)
	}
	// the FedDA paper's CIFAR-10 model (scripts/fedda_cifar10_cnn.lua): 64
	// filters on 3 input channels of 32×32, 32 → 16 → 8 → 4 → 2, then 2·2·64 → 10
	cifar := losses.CNN{InChannels: 3, Channels: []int{64, 64, 64, 64}, Kernel: 3, Padding: []int{1}, Pool: 2}
	lay = layout(t, cifar, fed(randData(rng, 4, 3072, func(int) float64 { return float64(rng.IntN(10)) }), 10))
	want = "kernel1 64x27 (reg) + bias1 1x64 + kernel2 64x576 (reg) + bias2 1x64 + kernel3 64x576 (reg) + bias3 1x64 + " +
		"kernel4 64x576 (reg) + bias4 1x64 + kernel5 256x10 (reg) + bias5 1x10"
	if got := lay.String(); got != want {
		t.Fatalf("CIFAR-10 CNN layout %q, want %q", got, want)
	}
	if got, want := lay.Dim(), 64*27+64+3*(64*576+64)+256*10+10; got != want {
		t.Fatalf("CIFAR-10 CNN has %d parameters, want %d", got, want)
	}
}

func TestCNNLayoutErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	d := randData(rng, 4, 30, func(int) float64 { return float64(rng.IntN(3)) })
	for _, tc := range []struct {
		net  losses.CNN
		f    *core.Federated
		want string
	}{
		{losses.CNN{InChannels: 1, Channels: []int{2}, Kernel: 3, Padding: []int{0}, Pool: 2}, fed(d, 3), "not 1 square image"},
		{losses.CNN{InChannels: 1, Height: 5, Width: 5, Channels: []int{2}, Kernel: 3, Padding: []int{0}, Pool: 2}, fed(d, 3), "the dataset has 30 features"},
		{losses.CNN{InChannels: 1, Height: 5, Width: 6, Channels: []int{2, 2}, Kernel: 3, Padding: []int{0}, Pool: 2}, fed(d, 3), "too small"},
		{losses.CNN{InChannels: 1, Height: 5, Width: 6, Channels: []int{2}, Kernel: 3, Padding: []int{0}, Pool: 2}, fed(d, 0), "at least 2"},
	} {
		_, err := tc.net.Layout(tc.f)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.net, err, tc.want)
		}
	}
	for _, bad := range []map[string]any{
		{"channels": []float64{}},
		{"channels": []float64{2.5}},
		{"padding": []float64{1, 1, 1}},
	} {
		if _, err := registry.Build[core.Loss](registry.Loss, "cnn", bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// The gradient agrees with central finite differences on batches and on the
// full data (two chunks).
func TestCNNGradientFiniteDifferences(t *testing.T) {
	trials := 2 // random models per case
	if testing.Short() {
		trials = 1
	}
	for _, tc := range cnnCases() {
		lay := layout(t, tc.net, tc.f)
		ev := tc.net.NewEvaluator(lay)
		d := tc.f.Train[0]
		rng := rand.New(rand.NewPCG(5, uint64(lay.Dim())))
		for trial := range trials {
			w := randVec(rng, lay.Dim(), 0.6)
			for _, idx := range [][]int{nil, {3, 0, 3, 7, 22}, {d.N - 1}} {
				v, g := evalGrad(ev, w, d, idx)
				if v2 := ev.Eval(w, d, idx, nil); v2 != v {
					t.Errorf("%s trial %d: loss with gradient %g, without %g", tc.name, trial, v, v2)
				}
				fd := fdGrad(ev, w, d, idx)
				diff := make([]float64, len(g))
				floats.SubTo(diff, g, fd)
				if e := floats.Norm(diff, 2); e > 1e-6*math.Max(1, floats.Norm(g, 2)) {
					t.Errorf("%s trial %d idx %v: ‖grad − fd‖ = %g (‖grad‖ = %g)", tc.name, trial, idx, e, floats.Norm(g, 2))
				}
			}
		}
	}
}

// The im2col + GEMM evaluator equals the direct loops of naiveCNN (loss and
// gradient), on the small cases and on LeNet-5.
func TestCNNMatchesNaive(t *testing.T) {
	type c struct {
		name string
		net  losses.CNN
		f    *core.Federated
	}
	var all []c
	for _, tc := range cnnCases() {
		all = append(all, c{tc.name, tc.net, tc.f})
	}
	rng := rand.New(rand.NewPCG(7, 8))
	all = append(all, c{"lenet5", lenet5, fed(randData(rng, 5, 784, func(int) float64 { return float64(rng.IntN(10)) }), 10)})
	for _, tc := range all {
		lay := layout(t, tc.net, tc.f)
		ev := tc.net.NewEvaluator(lay)
		w := randVec(rng, lay.Dim(), 0.3)
		d := tc.f.Train[0]
		v, g := evalGrad(ev, w, d, nil)
		nv, ng := naiveCNN(tc.net, lay, w, d)
		if !near(v, nv, 1e-12) {
			t.Errorf("%s: loss %.15g, naive %.15g", tc.name, v, nv)
		}
		checkVec(t, tc.name+" gradient", g, ng, 1e-10)
	}
}

// Two gradient steps of size η = 1 on one 3×3 image with label 0 through a
// 2×2 convolution (no padding), ReLU, a 2×2 max-pool (one output m) and a
// dense layer 1 → 2, worked out by hand.
//
// Start: kernel K = [[½, 0], [0, ½]], conv bias 0, dense v = (1, −1), bias 0.
// The image [[1,2,0],[0,1,3],[2,0,1]] has the 2×2 patches (row-major)
// (1,2,0,1), (2,0,1,3), (0,1,2,0), (1,3,0,1), so the convolution gives
// 1, 2.5, 0, 1 and m = 2.5 (patch (2,0,1,3)). Logits z = (2.5, −2.5); with
// two classes the loss is log(1 + e^{z₂−z₁}) and, s = σ(z₂ − z₁) = σ(−5),
// ∂/∂z = (−s, s), ∂/∂v = m·(−s, s), ∂/∂b = (−s, s),
// ∂/∂m = v₁(−s) + v₂s = −2s, ∂/∂K = −2s·(2,0,1,3), ∂/∂c = −2s.
// So after step 1: K = (½ + 4s, 0, 2s, ½ + 6s), c = 2s, v = (1 + 2.5s, −1 − 2.5s),
// b = (s, −s). Step 2 repeats the computation at these values (the maximum
// stays at the patch (2,0,1,3), asserted below).
func TestCNNHand(t *testing.T) {
	net := losses.CNN{InChannels: 1, Channels: []int{1}, Kernel: 2, Padding: []int{0}, Pool: 2}
	d := newData([][]float64{{1, 2, 0, 0, 1, 3, 2, 0, 1}}, []float64{0})
	lay := layout(t, net, fed(d, 2))
	if got := lay.String(); got != "kernel1 1x4 (reg) + bias1 1x1 + kernel2 1x2 (reg) + bias2 1x2" {
		t.Fatalf("layout %q", got)
	}
	ev := net.NewEvaluator(lay)
	// w = (K₁₁, K₁₂, K₂₁, K₂₂, c, v₁, v₂, b₁, b₂)
	w := []float64{0.5, 0, 0, 0.5, 0, 1, -1, 0, 0}
	patches := [][]float64{{1, 2, 0, 1}, {2, 0, 1, 3}, {0, 1, 2, 0}, {1, 3, 0, 1}}
	sigma := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

	// hand step: the formulas above, at a general point (K, c, v, b)
	want := append([]float64(nil), w...)
	hand := func(p []float64) []float64 {
		conv := make([]float64, 4)
		best := 0
		for i, pt := range patches {
			conv[i] = p[0]*pt[0] + p[1]*pt[1] + p[2]*pt[2] + p[3]*pt[3] + p[4]
			if conv[i] > conv[best] {
				best = i
			}
		}
		if best != 1 || conv[1] <= 0 {
			t.Fatalf("hand derivation assumes the maximum at patch (2,0,1,3) and positive, got %v", conv)
		}
		m := conv[1]
		z1, z2 := m*p[5]+p[7], m*p[6]+p[8]
		s := sigma(z2 - z1)
		dm := p[5]*(-s) + p[6]*s
		next := append([]float64(nil), p...)
		for j := range 4 {
			next[j] -= dm * patches[1][j]
		}
		next[4] -= dm
		next[5] -= m * (-s)
		next[6] -= m * s
		next[7] -= -s
		next[8] -= s
		return next
	}
	s := sigma(-5)
	step1 := []float64{0.5 + 4*s, 0, 2 * s, 0.5 + 6*s, 2 * s, 1 + 2.5*s, -1 - 2.5*s, s, -s}
	checkVec(t, "hand formula, step 1", hand(want), step1, 1e-15)

	g := make([]float64, lay.Dim())
	for step := 1; step <= 2; step++ {
		loss := ev.Eval(w, d, nil, g)
		if step == 1 {
			if wantLoss := math.Log1p(math.Exp(-5)); !near(loss, wantLoss, 1e-15) {
				t.Fatalf("loss %.17g, want log(1 + e⁻⁵) = %.17g", loss, wantLoss)
			}
		}
		floats.Sub(w, g)
		want = hand(want)
		checkVec(t, "step", w, want, 1e-14)
	}
}

// LeNet-5 and the 4-layer CNN do not allocate per batch after the first call
// (on 40 samples under -short: still a full chunk of 32 and a partial one;
// and the 4-layer CNN with 4 filters per layer, its layers' shapes).
func TestCNNNoAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	n := 70
	nets := map[string]losses.CNN{"lenet5": lenet5, "fedda4": fedda4}
	if testing.Short() {
		n = 40
		nets["fedda4"] = cnn4(4, 1)
	}
	d := randData(rng, n, 784, func(int) float64 { return float64(rng.IntN(10)) })
	for name, net := range nets {
		lay := layout(t, net, fed(d, 10))
		ev := net.NewEvaluator(lay)
		w := randVec(rng, lay.Dim(), 0.05)
		g := make([]float64, lay.Dim())
		idx := batch(rng, 16, d.N)
		for what, f := range map[string]func(){
			"batch+grad": func() { ev.Eval(w, d, idx, g) },
			"full+grad":  func() { ev.Eval(w, d, nil, g) },
			"accuracy":   func() { ev.(core.Predictor).Accuracy(w, d) },
		} { // AllocsPerRun calls f once before it counts: the first call may allocate
			if a := testing.AllocsPerRun(allocRuns(5), f); a != 0 {
				t.Errorf("%s %s: %g allocations per call", name, what, a)
			}
		}
	}
}

func TestCNNAccuracy(t *testing.T) {
	for _, tc := range cnnCases() {
		lay := layout(t, tc.net, tc.f)
		ev := tc.net.NewEvaluator(lay)
		w := randVec(rand.New(rand.NewPCG(2, 2)), lay.Dim(), 0.5)
		d := tc.f.Train[0]
		correct := 0
		for i := range d.N {
			one := &core.Data{N: 1, Features: d.Features, X: d.Row(i), Y: d.Y[i : i+1]}
			// the predicted class has the smallest loss −log softmax
			best, bestLoss := -1, math.Inf(1)
			for k := range tc.f.Classes {
				one.Y = []float64{float64(k)}
				if l := ev.Eval(w, one, nil, nil); l < bestLoss {
					best, bestLoss = k, l
				}
			}
			if float64(best) == d.Y[i] {
				correct++
			}
		}
		if got, want := ev.(core.Predictor).Accuracy(w, d), float64(correct)/float64(d.N); got != want {
			t.Errorf("%s: accuracy %g, want %g", tc.name, got, want)
		}
	}
}

func TestCNNRegistry(t *testing.T) {
	got, err := registry.Build[core.Loss](registry.Loss, "cnn", nil)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(losses.CNN)
	if m.Kernel != 5 || m.Pool != 2 || len(m.Channels) != 2 || m.Channels[1] != 16 || len(m.Dense) != 2 || m.Padding[0] != 2 {
		t.Fatalf("defaults are not LeNet-5: %+v", m)
	}
}

// naiveCNN evaluates the mean loss and its gradient over all rows of d with
// direct loops (no im2col, no BLAS), one sample at a time: the reference for
// TestCNNMatchesNaive and the "naive loop" of the benchmark.
func naiveCNN(net losses.CNN, lay core.Layout, w []float64, d *core.Data) (float64, []float64) {
	type layer struct{ cin, h, wd, cout, p, ho, wo, hp, wp int }
	var ls []layer
	cin, h, wd := net.InChannels, net.Height, net.Width
	if h == 0 {
		h = int(math.Round(math.Sqrt(float64(d.Features / cin))))
	}
	if wd == 0 {
		wd = h
	}
	k, q := net.Kernel, net.Pool
	for i, cout := range net.Channels {
		p := net.Padding[0]
		if len(net.Padding) > 1 {
			p = net.Padding[i]
		}
		l := layer{cin: cin, h: h, wd: wd, cout: cout, p: p, ho: h + 2*p - k + 1, wo: wd + 2*p - k + 1}
		l.hp, l.wp = l.ho/q, l.wo/q
		ls = append(ls, l)
		cin, h, wd = cout, l.hp, l.wp
	}
	block := func(v []float64, name string) []float64 {
		b, _ := lay.Block(name)
		return b.Of(v)
	}
	grad := make([]float64, len(w))
	total := 0.0
	for i := range d.N {
		// forward
		ins := [][]float64{d.Row(i)}
		var outs [][]float64
		for li, l := range ls {
			K, B := block(w, "kernel"+strconv.Itoa(li+1)), block(w, "bias"+strconv.Itoa(li+1))
			out := make([]float64, l.cout*l.ho*l.wo)
			for c := range l.cout {
				for y := range l.ho {
					for x := range l.wo {
						s := B[c]
						for ci := range l.cin {
							for a := range k {
								for b := range k {
									iy, ix := y+a-l.p, x+b-l.p
									if iy >= 0 && iy < l.h && ix >= 0 && ix < l.wd {
										s += K[c*l.cin*k*k+(ci*k+a)*k+b] * ins[li][(ci*l.h+iy)*l.wd+ix]
									}
								}
							}
						}
						out[(c*l.ho+y)*l.wo+x] = math.Max(0, s)
					}
				}
			}
			pooled := make([]float64, l.cout*l.hp*l.wp)
			for c := range l.cout {
				for y := range l.hp {
					for x := range l.wp {
						m := math.Inf(-1)
						for a := range q {
							for b := range q {
								m = math.Max(m, out[(c*l.ho+y*q+a)*l.wo+x*q+b])
							}
						}
						pooled[(c*l.hp+y)*l.wp+x] = m
					}
				}
			}
			outs = append(outs, out)
			ins = append(ins, pooled)
		}
		acts := [][]float64{ins[len(ins)-1]}
		nd := len(net.Dense) + 1
		for j := range nd {
			name := strconv.Itoa(len(ls) + j + 1)
			K, B := block(w, "kernel"+name), block(w, "bias"+name)
			in := acts[j]
			out := append([]float64(nil), B...)
			for r, a := range in {
				for c := range out {
					out[c] += a * K[r*len(out)+c]
				}
			}
			if j < nd-1 {
				for c := range out {
					out[c] = math.Max(0, out[c])
				}
			}
			acts = append(acts, out)
		}
		z := acts[nd]
		y := int(d.Y[i])
		zmax := floats.Max(z)
		se := 0.0
		for _, v := range z {
			se += math.Exp(v - zmax)
		}
		lse := zmax + math.Log(se)
		total += lse - z[y]
		// backward
		delta := make([]float64, len(z))
		for c, v := range z {
			delta[c] = math.Exp(v-lse) / float64(d.N)
		}
		delta[y] -= 1 / float64(d.N)
		for j := nd - 1; j >= 0; j-- {
			name := strconv.Itoa(len(ls) + j + 1)
			K, GK, GB := block(w, "kernel"+name), block(grad, "kernel"+name), block(grad, "bias"+name)
			in := acts[j]
			prev := make([]float64, len(in))
			for r, a := range in {
				for c, dv := range delta {
					GK[r*len(delta)+c] += a * dv
					prev[r] += K[r*len(delta)+c] * dv
				}
			}
			for c, dv := range delta {
				GB[c] += dv
			}
			if j > 0 {
				for r, a := range in {
					if a <= 0 {
						prev[r] = 0
					}
				}
			}
			delta = prev
		}
		for li := len(ls) - 1; li >= 0; li-- {
			l := ls[li]
			K, GK, GB := block(w, "kernel"+strconv.Itoa(li+1)), block(grad, "kernel"+strconv.Itoa(li+1)), block(grad, "bias"+strconv.Itoa(li+1))
			out := outs[li]
			dout := make([]float64, len(out))
			for c := range l.cout {
				for y := range l.hp {
					for x := range l.wp {
						best := -1
						for a := range q {
							for b := range q {
								at := (c*l.ho+y*q+a)*l.wo + x*q + b
								if best < 0 || out[at] > out[best] {
									best = at
								}
							}
						}
						if out[best] > 0 {
							dout[best] += delta[(c*l.hp+y)*l.wp+x]
						}
					}
				}
			}
			din := make([]float64, l.cin*l.h*l.wd)
			for c := range l.cout {
				for y := range l.ho {
					for x := range l.wo {
						dv := dout[(c*l.ho+y)*l.wo+x]
						if dv == 0 {
							continue
						}
						GB[c] += dv
						for ci := range l.cin {
							for a := range k {
								for b := range k {
									iy, ix := y+a-l.p, x+b-l.p
									if iy >= 0 && iy < l.h && ix >= 0 && ix < l.wd {
										GK[c*l.cin*k*k+(ci*k+a)*k+b] += dv * ins[li][(ci*l.h+iy)*l.wd+ix]
										din[(ci*l.h+iy)*l.wd+ix] += dv * K[c*l.cin*k*k+(ci*k+a)*k+b]
									}
								}
							}
						}
					}
				}
			}
			delta = din
		}
	}
	return total / float64(d.N), grad
}

// BenchmarkCNNSamples reports gradient samples per second (batch 16, one
// goroutine, 28×28 images, 10 classes) for LeNet-5 and the FedDA paper's
// 4-layer CNN, and for LeNet-5 with the direct loops of naiveCNN.
func BenchmarkCNNSamples(b *testing.B) {
	b.Run("lenet5", func(b *testing.B) { benchSamples(b, lenet5) })
	b.Run("fedda-cnn4-32", func(b *testing.B) { benchSamples(b, fedda4) })
	b.Run("lenet5-naive", func(b *testing.B) {
		rng := rand.New(rand.NewPCG(4, 4))
		d := randData(rng, 16, 784, func(int) float64 { return float64(rng.IntN(10)) })
		for i, v := range d.X {
			d.X[i] = math.Max(0, v) / 3
		}
		lay, err := lenet5.Layout(fed(d, 10))
		if err != nil {
			b.Fatal(err)
		}
		w := randVec(rng, lay.Dim(), 0.05)
		for b.Loop() {
			naiveCNN(lenet5, lay, w, d)
		}
		b.ReportMetric(float64(16*b.N)/b.Elapsed().Seconds(), "samples/s")
	})
}
