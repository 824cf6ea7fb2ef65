package losses

import (
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/gemm32"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules/sched"
)

// A small federated run of a float32 CNN whose second layer (9 input
// channels, 20 output channels) computes its output from its padded
// images at every pixel gives the same records (training and test loss and
// accuracy at every round) and the same final model, bit for bit, as with
// every layer through im2col, under the kernel set that runs it (AVX-512).
func TestImplicitConvRecordsUnchanged(t *testing.T) {
	defer gemm32.SetKernels(gemm32.Kernels())
	defer func(off bool) { directConvOff = off }(directConvOff)
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
	metrics := []core.Metric{
		metric{"train_loss", func(e *core.Eval) float64 { return e.TrainLoss() }},
		metric{"test_loss", func(e *core.Eval) float64 { return e.TestLoss() }},
		metric{"train_accuracy", func(e *core.Eval) float64 { return accuracyOf(e, false) }},
		metric{"test_accuracy", func(e *core.Eval) float64 { return accuracyOf(e, true) }},
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
		var res [2]*core.Result
		for k, off := range []bool{true, false} {
			directConvOff = off
			p, err := core.NewProblem(f, net, core.Penalty{Name: "none", Reg: regularizers.None{}, Lambda: sched.Constant(0)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			s := core.Settings{Rounds: rounds, ClientsPerRound: 3, LocalSteps: 3, Batch: 16, EvalEvery: 1, Seed: 5,
				Workers: 2, Init: "normal", InitScale: 0.1}
			res[k] = core.Run(p, &localSteps{eta: 0.05}, s, metrics)
			if res[k].Status != core.Done {
				t.Fatalf("run %s: %s", res[k].Status, res[k].Err)
			}
		}
		if len(res[0].Records) != rounds+1 || !sameBits(res[0].Model, res[1].Model) {
			t.Fatalf("%s kernels: %d records; final models equal: %v", name, len(res[0].Records), sameBits(res[0].Model, res[1].Model))
		}
		for i, r := range res[0].Records {
			if !sameBits(r.Values, res[1].Records[i].Values) {
				t.Fatalf("%s kernels, round %d: records %v through im2col, %v implicit", name, r.Round, r.Values, res[1].Records[i].Values)
			}
		}
		if first, last := res[0].Records[0].Values[0], res[0].Records[rounds].Values[0]; first == last {
			t.Fatalf("the training loss did not move (%g): the runs compare nothing", first)
		}
	}
}
