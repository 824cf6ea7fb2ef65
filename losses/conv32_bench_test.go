package losses

import (
	"testing"
	"time"

	"github.com/fedlab/fedlab/internal/cputime"

	"github.com/fedlab/fedlab/internal/gemm32"
)

// BenchmarkConv32ForwardParts times the two parts of a small-channel
// convolution's forward pass for a batch of 16, each alone: im2col32 and
// the product reading its matrix in place; the direct convolution that
// replaces both (convDirect, padding included); and the kernel gradient
// from the kept im2col matrix (kgrad-product) and from the padded images
// (kgrad-direct), in the groups of samples of the backward pass; the
// input gradient's product (dcol-product) and col2im32; forward's layer
// as it runs through im2col (forward-im2col, groups of colGroup) and from
// the padded images at every pixel (forward-pixels, convPixels, where
// gemm32.PixelKernel); the input gradient as backward computes it through
// the product and col2im32 (input-im2col) and with gemm32.ConvBack
// (input-back, where backConv). Layers: LeNet-5's 1→6 and 6→16 5×5 convolutions,
// the first layers of the 4-layer CNN and its 32- and 64-channel second
// and third layers (the direct parts where Conv.Row runs them).
func BenchmarkConv32ForwardParts(b *testing.B) { benchConvParts(b) }

// BenchmarkConv32ForwardPartsGo is BenchmarkConv32ForwardParts with the
// plain Go kernels forced (gemm32.SetKernels("go")): the direct
// convolution's Go code against im2col and the plain Go GEMM.
func BenchmarkConv32ForwardPartsGo(b *testing.B) {
	prev, err := gemm32.SetKernels("go")
	if err != nil {
		b.Fatal(err)
	}
	defer gemm32.SetKernels(prev)
	benchConvParts(b)
}

// benchConvParts runs the parts of BenchmarkConv32ForwardParts.
func benchConvParts(b *testing.B) {
	layers := []struct {
		name string
		g    convGeom
	}{
		{"lenet5-conv1", convGeom{cin: 1, h: 28, w: 28, cout: 6, k: 5, p: 2, ho: 28, wo: 28}},
		{"lenet5-conv2", convGeom{cin: 6, h: 14, w: 14, cout: 16, k: 5, p: 0, ho: 10, wo: 10}},
		{"cnn4-32-c3-conv1", convGeom{cin: 3, h: 32, w: 32, cout: 32, k: 3, p: 1, ho: 32, wo: 32}},
		{"cnn4-64-c3-conv1", convGeom{cin: 3, h: 32, w: 32, cout: 64, k: 3, p: 1, ho: 32, wo: 32}},
		{"cnn4-32-c1-conv1", convGeom{cin: 1, h: 28, w: 28, cout: 32, k: 3, p: 1, ho: 28, wo: 28}},
		{"cnn4-64-c1-conv1", convGeom{cin: 1, h: 28, w: 28, cout: 64, k: 3, p: 1, ho: 28, wo: 28}},
		{"cnn4-32-c1-conv2", convGeom{cin: 32, h: 14, w: 14, cout: 32, k: 3, p: 1, ho: 14, wo: 14}},
		{"cnn4-32-c1-conv3", convGeom{cin: 32, h: 7, w: 7, cout: 32, k: 3, p: 1, ho: 7, wo: 7}},
		{"cnn4-32-c3-conv2", convGeom{cin: 32, h: 16, w: 16, cout: 32, k: 3, p: 1, ho: 16, wo: 16}},
		{"cnn4-32-c3-conv3", convGeom{cin: 32, h: 8, w: 8, cout: 32, k: 3, p: 1, ho: 8, wo: 8}},
		{"cnn4-64-c1-conv2", convGeom{cin: 64, h: 14, w: 14, cout: 64, k: 3, p: 1, ho: 14, wo: 14}},
		{"cnn4-64-c1-conv3", convGeom{cin: 64, h: 7, w: 7, cout: 64, k: 3, p: 1, ho: 7, wo: 7}},
	}
	const m = 16
	for _, l := range layers {
		g := l.g
		in := make([]float32, m*g.inSize())
		for i := range in {
			in[i] = float32(i%7) / 8
		}
		rows, patch := m*g.ho*g.wo, g.patch()
		col, pad := make([]float32, rows*patch), make([]float32, padSize(g))
		w, out := make([]float32, g.cout*patch), make([]float32, rows*g.cout)
		var gm gemm32.Gemm
		im2col32(g, in, m, col, pad)
		b.Run(l.name+"/im2col", func(b *testing.B) {
			cpu0 := cputime.Now()
			for b.Loop() {
				im2col32(g, in, m, col, pad)
			}
			reportCPU(b, cpu0)
		})
		b.Run(l.name+"/product", func(b *testing.B) {
			cpu0 := cputime.Now()
			for b.Loop() {
				gm.Do(false, true, rows, g.cout, patch, 1, col, patch, w, patch, 0, out, g.cout)
			}
			reportCPU(b, cpu0)
		})
		wt := make([]float32, patch*g.cout)
		b.Run(l.name+"/product-wt", func(b *testing.B) {
			cpu0 := cputime.Now()
			for b.Loop() {
				gm.Do(false, false, rows, g.cout, patch, 1, col, patch, wt, g.cout, 0, out, g.cout)
			}
			reportCPU(b, cpu0)
		})
		dcol, din := make([]float32, rows*patch), make([]float32, m*g.inSize())
		b.Run(l.name+"/dcol-product", func(b *testing.B) {
			cpu0 := cputime.Now()
			for b.Loop() {
				gm.Do(false, false, rows, patch, g.cout, 1, out, g.cout, w, patch, 0, dcol, patch)
			}
			reportCPU(b, cpu0)
		})
		b.Run(l.name+"/col2im", func(b *testing.B) {
			cpu0 := cputime.Now()
			for b.Loop() {
				col2im32(g, dcol, m, din)
			}
			reportCPU(b, cpu0)
		})
		b.Run(l.name+"/input-im2col", func(b *testing.B) {
			cpu0 := cputime.Now()
			for b.Loop() {
				for s0 := 0; s0 < m; s0 += colGroup(g) {
					n := min(colGroup(g), m-s0)
					gm.Do(false, false, n*g.ho*g.wo, patch, g.cout, 1, out[s0*g.ho*g.wo*g.cout:], g.cout, w, patch, 0, dcol, patch)
					col2im32(g, dcol, n, din[s0*g.inSize():])
				}
			}
			reportCPU(b, cpu0)
		})
		if backConv(g) {
			cb, classes := new(gemm32.ConvBack), backClasses(g)
			b.Run(l.name+"/input-back", func(b *testing.B) {
				cpu0 := cputime.Now()
				for b.Loop() {
					inputGradBack(cb, g, w, out, m, din, classes)
				}
				reportCPU(b, cpu0)
			})
		}
		c, padded := new(gemm32.Conv), make([]float32, m*padSize(g)+gemm32.ConvSlack)
		b.Run(l.name+"/forward-im2col", func(b *testing.B) {
			cpu0 := cputime.Now()
			for b.Loop() {
				for s0 := 0; s0 < m; s0 += colGroup(g) {
					n := min(colGroup(g), m-s0)
					im2col32(g, in[s0*g.inSize():], n, col, pad)
					gm.Do(false, false, n*g.ho*g.wo, g.cout, patch, 1, col, patch, wt, g.cout, 0, out[s0*g.ho*g.wo*g.cout:], g.cout)
				}
			}
			reportCPU(b, cpu0)
		})
		if gemm32.PixelKernel(g.cout) {
			at := make([]int, m*g.ho*g.wo)
			b.Run(l.name+"/forward-pixels", func(b *testing.B) {
				cpu0 := cputime.Now()
				for b.Loop() {
					convPixels(c, g, w, padImages(g, in, m, padded), m, out, at)
				}
				reportCPU(b, cpu0)
			})
		}
		if patch > gemm32.ConvDepth || g.wo < gemm32.ConvWidth(g.cout) {
			continue
		}
		b.Run(l.name+"/direct", func(b *testing.B) {
			cpu0 := cputime.Now()
			for b.Loop() {
				convDirect(c, g, w, padImages(g, in, m, padded), m, out)
			}
			reportCPU(b, cpu0)
		})
		P, line, gw := g.ho*g.wo, (g.w+2*g.p)*g.cin, make([]float32, g.cout*patch)
		b.Run(l.name+"/kgrad-product", func(b *testing.B) {
			cpu0 := cputime.Now()
			for b.Loop() {
				for s0 := 0; s0 < m; s0 += colGroup(g) {
					n := min(colGroup(g), m-s0)
					gm.Do(true, false, g.cout, patch, n*P, 1, out[s0*P*g.cout:], g.cout, col[s0*P*patch:], patch, 1, gw, patch)
				}
			}
			reportCPU(b, cpu0)
		})
		b.Run(l.name+"/kgrad-direct", func(b *testing.B) {
			cpu0 := cputime.Now()
			for b.Loop() {
				for s0 := 0; s0 < m; s0 += colGroup(g) {
					n := min(colGroup(g), m-s0)
					px := gemm32.ConvPixels{N: n, H: g.ho, W: g.wo, SS: padSize(g), YS: line, XS: g.cin}
					c.AddGrad(gw, g.cout, g.k, g.k*g.cin, out[s0*P*g.cout:], g.cout, padded[s0*padSize(g):], line, px)
				}
			}
			reportCPU(b, cpu0)
		})
	}
}

// reportCPU reports the process CPU time per operation since cpu0 (µs),
// which other jobs on the shared machine disturb less than wall time.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	if cpu := cputime.Now() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
	}
}
