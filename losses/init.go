package losses

import (
	"math"
	"math/rand/v2"

	"github.com/fedlab/fedlab/core"
)

// KaimingUniform is the default initial model of the neural losses: the
// scheme PyTorch's nn.Linear and nn.Conv2d apply in reset_parameters —
// kaiming_uniform_ with a = √5 for the weights, whose bound
// gain·√(3/fan_in) with gain = √(2/(1+a²)) is 1/√fan_in, and U(−1/√fan_in,
// 1/√fan_in) for the biases — so both are uniform on ±1/√fan_in, fan_in
// being the inputs of one unit: in_features for a dense layer,
// in_channels·k·k for a convolution (He et al., "Delving deep into
// rectifiers", ICCV 2015; PyTorch's torch/nn/modules/linear.py and
// conv.py).
const KaimingUniform = "kaiming_uniform"

// kaimingUniform fills each layer ℓ of w (its "kernelℓ" and "biasℓ"
// blocks, in layout order) with draws of U(−1/√fanIn[ℓ], 1/√fanIn[ℓ]),
// element by element in layout order: bound·(2u − 1) with u = r.Float64().
func kaimingUniform(w []float64, l core.Layout, fanIn []int, r *rand.Rand) {
	for i, b := range l.Blocks {
		bound := 1 / math.Sqrt(float64(fanIn[i/2]))
		for j := range b.Of(w) {
			b.Of(w)[j] = bound * (2*r.Float64() - 1)
		}
	}
}

// DefaultInit is KaimingUniform for a network with hidden layers, "zeros"
// for none (multinomial logistic regression, convex).
func (m MLP) DefaultInit() string {
	if len(m.Hidden) == 0 {
		return core.InitZeros
	}
	return KaimingUniform
}

// Initialize draws KaimingUniform: the fan-in of a dense layer is its
// kernel's rows (in×out).
func (m MLP) Initialize(w []float64, l core.Layout, r *rand.Rand) {
	fanIn := make([]int, len(l.Blocks)/2)
	for i := range fanIn {
		fanIn[i] = l.Blocks[2*i].Rows
	}
	kaimingUniform(w, l, fanIn, r)
}

// DefaultInit is KaimingUniform.
func (m CNN) DefaultInit() string { return KaimingUniform }

// Initialize draws KaimingUniform: the fan-in of a convolution is its
// kernel's columns (Cout×(Cin·k·k)), of a dense layer its kernel's rows.
func (m CNN) Initialize(w []float64, l core.Layout, r *rand.Rand) {
	conv := len(m.Channels)
	fanIn := make([]int, len(l.Blocks)/2)
	for i := range fanIn {
		if k := l.Blocks[2*i]; i < conv {
			fanIn[i] = k.Cols
		} else {
			fanIn[i] = k.Rows
		}
	}
	kaimingUniform(w, l, fanIn, r)
}
