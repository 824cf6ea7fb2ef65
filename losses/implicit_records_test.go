package losses

import (
	"testing"

	"github.com/fedlab/fedlab/internal/gemm32"
)

// A small federated run of a float32 CNN whose second layer (9 input
// channels, 20 output channels) computes its output from its padded
// images at every pixel gives the same records (training and test loss and
// accuracy at every round) and the same final model, bit for bit, as with
// every layer through im2col, under the kernel set that runs it (AVX-512).
func TestImplicitConvRecordsUnchanged(t *testing.T) {
	defer gemm32.SetKernels(gemm32.Kernels())
	rounds, n := 3, 30
	if testing.Short() {
		rounds, n = 1, 8
	}
	f := imagesLike(12, 4, n, 28, 10)
	net := CNN{InChannels: 1, Channels: []int{9, 20}, Kernel: 3, Padding: []int{1, 0}, Pool: 2, Dense: []int{12}, Float32: true}
	geo, err := net.geometry(28 * 28)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range gemm32.Available() {
		if _, err := gemm32.SetKernels(name); err != nil {
			t.Fatal(err)
		}
		if !gemm32.PixelKernel(geo[1].cout) {
			continue // every layer with more than 8 input channels through im2col: nothing to compare
		}
		if !implicitConv(geo[1]) {
			t.Fatalf("%s kernels: layer %+v is not implicit: the runs would compare nothing", name, geo[1])
		}
		sameRecordsBothWays(t, name+" kernels, implicit", f, net, rounds)
	}
}
