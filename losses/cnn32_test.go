package losses_test

import (
	"testing"

	"github.com/fedlab/fedlab/losses"
)

// f32 returns net computing in float32.
func f32(net losses.CNN) losses.CNN {
	net.Float32 = true
	return net
}

// BenchmarkCNNSamplesFloat32 is BenchmarkCNNSamples for the float32 path.
func BenchmarkCNNSamplesFloat32(b *testing.B) {
	b.Run("lenet5", func(b *testing.B) { benchSamples(b, f32(lenet5)) })
	b.Run("fedda-cnn4-32", func(b *testing.B) { benchSamples(b, f32(fedda4)) })
}
