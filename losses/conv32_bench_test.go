package losses

import (
	"testing"

	"github.com/fedlab/fedlab/internal/gemm32"
)

// BenchmarkConv32ForwardParts times the two parts of a small-channel
// convolution's forward pass for a batch of 16, each alone: im2col32 and
// the product reading its matrix in place; and the direct convolution
// that replaces both (convDirect, padding included). Layers: LeNet-5's 1→6 and 6→16
// 5×5 convolutions and the 3-channel first layer of the 4-layer CNN.
func BenchmarkConv32ForwardParts(b *testing.B) {
	layers := []struct {
		name string
		g    convGeom
	}{
		{"lenet5-conv1", convGeom{cin: 1, h: 28, w: 28, cout: 6, k: 5, p: 2, ho: 28, wo: 28}},
		{"lenet5-conv2", convGeom{cin: 6, h: 14, w: 14, cout: 16, k: 5, p: 0, ho: 10, wo: 10}},
		{"cnn4-32-c3-conv1", convGeom{cin: 3, h: 32, w: 32, cout: 32, k: 3, p: 1, ho: 32, wo: 32}},
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
			for b.Loop() {
				im2col32(g, in, m, col, pad)
			}
		})
		b.Run(l.name+"/product", func(b *testing.B) {
			for b.Loop() {
				gm.Do(false, true, rows, g.cout, patch, 1, col, patch, w, patch, 0, out, g.cout)
			}
		})
		b.Run(l.name+"/direct", func(b *testing.B) {
			c, padded := new(gemm32.Conv), make([]float32, m*padSize(g)+gemm32.ConvSlack)
			for b.Loop() {
				convDirect(c, g, w, padImages(g, in, m, padded), m, out)
			}
		})
	}
}
