package gemm32

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/internal/cputime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// benchShapes are products of the CNN's float32 path at batch 16: the
// FedDA paper's 4-layer CNN's second convolution (im2col forward M =
// 16·14·14, K = 9·32, N = 32; the kernel gradient, K = 16·14·14; the input
// gradient) and LeNet-5's second convolution; then the products the
// training steps of BenchmarkCNNStepFloat32 (losses) run: the 4-layer
// CNNs' convolutions a sample (14·14 pixels) or a few at a time, the
// kernel gradients added to C (beta = 1), LeNet-5's second convolution's
// input gradient over four samples and its dense layers 400→120→84→62 on
// 16 rows (forward, weight gradient, transposed input gradient).
var benchShapes = []shape{
	{m: 3136, n: 32, k: 288, transB: true}, // cnn4 conv2 forward: col·Wᵀ
	{m: 32, n: 288, k: 3136, transA: true}, // cnn4 conv2 kernel gradient: δᵀ·col
	{m: 3136, n: 288, k: 32},               // cnn4 conv2 input gradient: δ·W
	{m: 12544, n: 32, k: 9, transB: true},  // cnn4 conv1 forward
	{m: 1600, n: 16, k: 150, transB: true}, // LeNet-5 conv2 forward
	{m: 256, n: 256, k: 256},               // square reference

	{m: 196, n: 32, k: 288},                        // cnn4-32 conv2 forward, one sample
	{m: 32, n: 288, k: 196, transA: true, beta: 1}, // cnn4-32 conv2 kernel gradient, one sample
	{m: 196, n: 288, k: 32},                        // cnn4-32 conv2 input gradient, one sample
	{m: 32, n: 288, k: 144, transA: true, beta: 1}, // cnn4-32 conv4 kernel gradient, 16 samples of 3·3
	{m: 64, n: 576, k: 196, transA: true, beta: 1}, // cnn4-64 conv2 kernel gradient, one sample
	{m: 196, n: 576, k: 64},                        // cnn4-64 conv2 input gradient, one sample
	{m: 64, n: 576, k: 64, transA: true, beta: 1},  // cnn4-64-c3 conv3 kernel gradient, 16 samples of 2·2
	{m: 400, n: 150, k: 16},                        // LeNet-5 conv2 input gradient, four samples
	{m: 16, n: 120, k: 400},                        // LeNet-5 dense 400→120 forward
	{m: 400, n: 120, k: 16, transA: true, beta: 1}, // its weight gradient
	{m: 400, n: 16, k: 120, transB: true},          // its input gradient, transposed
	{m: 16, n: 62, k: 84},                          // LeNet-5 dense 84→62 forward
	{m: 84, n: 62, k: 16, transA: true, beta: 1},   // its weight gradient
	{m: 84, n: 16, k: 62, transB: true},            // its input gradient, transposed
}

func shapeName(s shape) string {
	return fmt.Sprintf("M=%d,N=%d,K=%d,tA=%v,tB=%v", s.m, s.n, s.k, s.transA, s.transB)
}

// benchName is shapeName with beta when it is not 0.
func benchName(s shape) string {
	if s.beta != 0 {
		return fmt.Sprintf("%s,beta=%g", shapeName(s), s.beta)
	}
	return shapeName(s)
}

// BenchmarkGemm reports GFLOP/s (2·M·N·K per product) of Do, per second
// of wall time and per CPU-second, with the default kernels and, as
// sub-benchmarks kernels=NAME, with each kernel set the CPU can run.
func BenchmarkGemm(b *testing.B) {
	bench := func(b *testing.B, s shape) {
		a, lda, bm, ldb, c, ldc := operands(rand.New(rand.NewPCG(1, 1)), s)
		var g Gemm
		b.ReportAllocs()
		cpu0 := cputime.Now()
		for b.Loop() {
			g.Do(s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, s.beta, c, ldc)
		}
		flops := 2 * float64(s.m*s.n*s.k) * float64(b.N)
		b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		if cpu := (cputime.Now() - cpu0).Seconds(); cpu > 0 {
			b.ReportMetric(flops/cpu/1e9, "GFLOP/cpu-s")
		}
	}
	for _, s := range benchShapes {
		b.Run(benchName(s), func(b *testing.B) { bench(b, s) })
	}
	for _, name := range Available() {
		b.Run("kernels="+name, func(b *testing.B) {
			prev, err := SetKernels(name)
			if err != nil {
				b.Fatal(err)
			}
			defer SetKernels(prev)
			for _, s := range benchShapes {
				b.Run(benchName(s), func(b *testing.B) { bench(b, s) })
			}
		})
	}
}

// BenchmarkBlas32 is BenchmarkGemm with gonum's float32 BLAS (blas32.Gemm,
// pure Go), for comparison.
func BenchmarkBlas32(b *testing.B) {
	tr := func(t bool) blas.Transpose {
		if t {
			return blas.Trans
		}
		return blas.NoTrans
	}
	for _, s := range benchShapes {
		b.Run(shapeName(s), func(b *testing.B) {
			a, lda, bm, ldb, c, ldc := operands(rand.New(rand.NewPCG(1, 1)), s)
			ar, ac, br, bc := s.m, s.k, s.k, s.n
			if s.transA {
				ar, ac = ac, ar
			}
			if s.transB {
				br, bc = bc, br
			}
			A := blas32.General{Rows: ar, Cols: ac, Stride: lda, Data: a}
			B := blas32.General{Rows: br, Cols: bc, Stride: ldb, Data: bm}
			C := blas32.General{Rows: s.m, Cols: s.n, Stride: ldc, Data: c}
			for b.Loop() {
				blas32.Gemm(tr(s.transA), tr(s.transB), 1, A, B, 0, C)
			}
			b.ReportMetric(2*float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
