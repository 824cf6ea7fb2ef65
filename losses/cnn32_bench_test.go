package losses_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/internal/cputime"

	"github.com/fedlab/fedlab/internal/gemm32"
	"github.com/fedlab/fedlab/losses"
)

// cnnStepShapes are the float32 training steps of issue-sized networks:
// LeNet-5 on FEMNIST-sized inputs (28×28, 62 classes) and the 4-layer CNN
// with 32 and 64 filters on one-channel 28×28 and three-channel 32×32
// (CIFAR-sized) inputs.
var cnnStepShapes = []struct {
	name         string
	net          losses.CNN
	cin, side, k int
}{
	{"lenet5-femnist", lenet5, 1, 28, 62},
	{"cnn4-32-c1", fedda4, 1, 28, 10},
	{"cnn4-64-c1", cnn4(64, 1), 1, 28, 10},
	{"cnn4-32-c3", cnn4(32, 3), 3, 32, 10},
	{"cnn4-64-c3", cnn4(64, 3), 3, 32, 10},
}

// cnn4 is the 4-layer CNN with filters per layer on cin-channel images.
func cnn4(filters, cin int) losses.CNN {
	return losses.CNN{InChannels: cin, Channels: []int{filters, filters, filters, filters}, Kernel: 3, Padding: []int{1}, Pool: 2}
}

// cnnStepFlops is the number of floating-point operations (2 per
// multiply-add) of one sample's forward and backward pass through net's
// convolutions and dense layers on cin×side×side images with k classes:
// per convolution the forward product, the kernel gradient and (past the
// first layer) the input gradient, each 2·Ho·Wo·Cout·Cin·k²; per dense layer
// the forward product, the weight gradient and the input gradient.
func cnnStepFlops(net losses.CNN, cin, side, k int) float64 {
	h, c, flops := side, cin, 0.0
	for i, cout := range net.Channels {
		p := net.Padding[0]
		if len(net.Padding) > 1 {
			p = net.Padding[i]
		}
		ho := h + 2*p - net.Kernel + 1
		f := 2 * float64(ho*ho*cout*c*net.Kernel*net.Kernel)
		flops += 2 * f
		if i > 0 {
			flops += f
		}
		h, c = ho/net.Pool, cout
	}
	in := h * h * c
	for _, out := range append(append([]int(nil), net.Dense...), k) {
		flops += 3 * 2 * float64(in*out)
		in = out
	}
	return flops
}

// BenchmarkCNNStepFloat32 times the float32 training step (loss and
// gradient of a batch of 16, one goroutine) of cnnStepShapes and reports
// samples per CPU-second and GFLOP per CPU-second (cnnStepFlops), to be
// set against BenchmarkGemm's rate in internal/gemm32.
func BenchmarkCNNStepFloat32(b *testing.B) {
	benchCNNSteps(b)
}

// BenchmarkCNNStepFloat32Kernels is BenchmarkCNNStepFloat32 with each
// assembly kernel set of gemm32 forced in turn (kernels=avx512, avx2): the
// share of the step the kernels' width decides.
func BenchmarkCNNStepFloat32Kernels(b *testing.B) {
	for _, name := range gemm32.Available() {
		if name == "go" {
			continue
		}
		b.Run("kernels="+name, func(b *testing.B) {
			prev, err := gemm32.SetKernels(name)
			if err != nil {
				b.Fatal(err)
			}
			defer gemm32.SetKernels(prev)
			benchCNNSteps(b)
		})
	}
}

// BenchmarkCNNStepFloat32Im2col is BenchmarkCNNStepFloat32 with every
// convolution through im2col and the GEMM (the direct small-channel
// convolution off): the same results, for comparing the two ways.
func BenchmarkCNNStepFloat32Im2col(b *testing.B) {
	defer losses.SetDirectConvOff(losses.SetDirectConvOff(true))
	benchCNNSteps(b)
}

// benchCNNSteps runs the steps of cnnStepShapes as sub-benchmarks.
func benchCNNSteps(b *testing.B) {
	for _, s := range cnnStepShapes {
		b.Run(s.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(4, 4))
			F := s.cin * s.side * s.side
			d := randData(rng, 1024, F, func(int) float64 { return float64(rng.IntN(s.k)) })
			for i, v := range d.X {
				d.X[i] = math.Max(0, v) / 3
			}
			lay, err := f32(s.net).Layout(fed(d, s.k))
			if err != nil {
				b.Fatal(err)
			}
			ev := f32(s.net).NewEvaluator(lay)
			w := randVec(rng, lay.Dim(), 0.05)
			g := make([]float64, lay.Dim())
			idx := batch(rng, 16, d.N)
			ev.Eval(w, d, idx, g)
			cpu0 := cputime.Now()
			for b.Loop() {
				ev.Eval(w, d, idx, g)
			}
			if cpu := (cputime.Now() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(float64(16*b.N)/cpu, "samples/cpu-s")
				b.ReportMetric(cnnStepFlops(s.net, s.cin, s.side, s.k)*float64(16*b.N)/cpu/1e9, "GFLOP/cpu-s")
			}
		})
	}
}
