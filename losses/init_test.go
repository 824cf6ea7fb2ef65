package losses_test

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/fedlab/fedlab/algorithms"
	"github.com/fedlab/fedlab/core"
	_ "github.com/fedlab/fedlab/datasets"
	"github.com/fedlab/fedlab/losses"
	_ "github.com/fedlab/fedlab/metrics"
	"github.com/fedlab/fedlab/registry"
	_ "github.com/fedlab/fedlab/regularizers"
)

// imageData is a classification dataset of 1×28×28 images (no samples:
// Layout only reads the shape).
func imageData() *core.Federated {
	return &core.Federated{Name: "images", Features: 784, Classes: 10, Train: []*core.Data{{Features: 784}}}
}

// Every layer's kernel and bias are uniform on ±1/√fan_in, as PyTorch's
// nn.Linear and nn.Conv2d draw them: all values inside the bound, the
// largest within 2% of it for blocks of 100 values or more, and the sample
// variance within 10% of bound²/3 for blocks of 1,000 or more.
func TestKaimingUniformHasPyTorchsBounds(t *testing.T) {
	cases := []struct {
		loss  core.Loss
		fanIn []int // per layer
	}{
		{losses.MLP{Hidden: []int{200, 50}}, []int{784, 200, 50}},
		// LeNet-5: conv 5×5×6 (padding 2), conv 5×5×16, dense 400→120→84→10
		{losses.CNN{InChannels: 1, Channels: []int{6, 16}, Kernel: 5, Padding: []int{2, 0}, Pool: 2, Dense: []int{120, 84}}, []int{25, 150, 400, 120, 84}},
	}
	for _, c := range cases {
		l, err := c.loss.Layout(imageData())
		if err != nil {
			t.Fatal(err)
		}
		in := c.loss.(core.Initializer)
		if got := in.DefaultInit(); got != losses.KaimingUniform {
			t.Fatalf("%T: default init %q", c.loss, got)
		}
		w := make([]float64, l.Dim())
		in.Initialize(w, l, rand.New(rand.NewPCG(1, 2)))
		if len(l.Blocks) != 2*len(c.fanIn) {
			t.Fatalf("%T: %d blocks for %d layers", c.loss, len(l.Blocks), len(c.fanIn))
		}
		for i, b := range l.Blocks {
			bound := 1 / math.Sqrt(float64(c.fanIn[i/2]))
			v := b.Of(w)
			maxAbs, sum, sq := 0.0, 0.0, 0.0
			for _, x := range v {
				maxAbs, sum, sq = math.Max(maxAbs, math.Abs(x)), sum+x, sq+x*x
			}
			n := float64(len(v))
			variance := sq/n - (sum/n)*(sum/n)
			switch {
			case maxAbs >= bound:
				t.Errorf("%T %s: |w| reaches %g, bound %g", c.loss, b.Name, maxAbs, bound)
			case len(v) >= 100 && maxAbs < 0.98*bound:
				t.Errorf("%T %s: largest |w| %g, want near the bound %g", c.loss, b.Name, maxAbs, bound)
			case len(v) >= 1000 && math.Abs(variance/(bound*bound/3)-1) > 0.1:
				t.Errorf("%T %s: variance %g, want %g (uniform on ±%g)", c.loss, b.Name, variance, bound*bound/3, bound)
			}
		}
	}
}

// The draw is bound·(2u − 1), u = r.Float64(), element by element in
// layout order: a 2-input, 1-hidden-unit, 2-class MLP by hand.
func TestKaimingUniformDrawOrder(t *testing.T) {
	m := losses.MLP{Hidden: []int{1}}
	l, err := m.Layout(&core.Federated{Name: "tiny", Features: 2, Classes: 2, Train: []*core.Data{{Features: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, l.Dim())
	m.Initialize(w, l, rand.New(rand.NewPCG(7, 8)))
	// kernel1 (2 values, fan-in 2), bias1 (1, fan-in 2), kernel2 (2, fan-in 1), bias2 (2, fan-in 1)
	r := rand.New(rand.NewPCG(7, 8))
	want := make([]float64, len(w))
	for i, fan := range []float64{2, 2, 2, 1, 1, 1, 1} {
		want[i] = (2*r.Float64() - 1) / math.Sqrt(fan)
	}
	for i := range w {
		if w[i] != want[i] {
			t.Fatalf("w = %v, want %v", w, want)
		}
	}
}

// A network without hidden layers is convex and starts at zero, as
// before; "zeros" is refused where hidden layers cannot learn from it.
func TestResolveInitOfTheLosses(t *testing.T) {
	cases := []struct {
		loss       core.Loss
		init, want string
		err        string
	}{
		{losses.MLP{}, "", "", ""},
		{losses.MLP{}, "default", "zeros", ""},
		{losses.MLP{}, "zeros", "zeros", ""},
		{losses.MLP{Hidden: []int{10}}, "", losses.KaimingUniform, ""},
		{losses.MLP{Hidden: []int{10}}, "default", losses.KaimingUniform, ""},
		{losses.MLP{Hidden: []int{10}}, "normal", "normal", ""},
		{losses.MLP{Hidden: []int{10}}, "zeros", "", `init = "zeros": the loss's hidden layers cannot learn from a zero model`},
		{losses.CNN{}, "zeros", "", `leave init out for the loss's default ("kaiming_uniform"), or give init = "normal" with an init_scale`},
		{losses.CNN{}, "kaiming_uniform", losses.KaimingUniform, ""},
		{losses.Multinomial{}, "kaiming_uniform", "", `init = "kaiming_uniform": want "default" (the loss's own: "zeros"), "zeros" or "normal"`},
	}
	for _, c := range cases {
		got, err := core.ResolveInit(c.loss, c.init)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%T %q: %q, %v; want %q", c.loss, c.init, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%T %q: error %v, want %q", c.loss, c.init, err, c.err)
		}
	}
}

// A newcomer's first networks learn with the default initial model: a
// 784-200-200-10 MLP and LeNet-5 (float64 and float32), trained by FedAvg
// on 1,000 Fashion-MNIST images over 5 clients (2 local epochs of batches
// of 10, η = 0.1) for 5 rounds, classify 500 test images far above chance
// (0.1). With the former default, the zero model, the networks stay at
// chance (the 0.096).
func TestDefaultInitLearnsFashionMNIST(t *testing.T) {
	if _, err := os.Stat("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"); err != nil {
		t.Skip("Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist; .ci/run installs it)")
	}
	if testing.Short() || raceEnabled {
		t.Skip("trains three networks for tens of seconds (minutes under the race detector)")
	}
	data, err := registry.Build[*core.Federated](registry.Dataset, "fashion_mnist", map[string]any{
		"clients": 5.0, "train_samples": 1000.0, "test_samples": 500.0, "seed": 1.0})
	if err != nil {
		t.Fatal(err)
	}
	none, err := registry.Build[core.Penalty](registry.Regularizer, "none", nil)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := registry.Build[core.Metric](registry.Metric, "test_accuracy", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		params map[string]any
	}{
		{"mlp", map[string]any{"hidden": []float64{200, 200}}},
		{"cnn", nil},
		{"cnn", map[string]any{"precision": "float32"}},
	} {
		loss, err := registry.Build[core.Loss](registry.Loss, c.name, c.params)
		if err != nil {
			t.Fatal(err)
		}
		p, err := core.NewProblem(data, loss, none, nil)
		if err != nil {
			t.Fatal(err)
		}
		alg, err := registry.Build[core.Algorithm](registry.Algorithm, "fedavg", map[string]any{"eta_c": 0.1, "eta_s": 1.0})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		res := core.Run(p, alg, core.Settings{Rounds: 5, LocalEpochs: 2, Batch: 10, Seed: 1, Workers: 2}, []core.Metric{acc})
		if res.Status != core.Done {
			t.Fatalf("%s %v: %s %s", c.name, c.params, res.Status, res.Err)
		}
		first, last := res.Records[0].Values[0], res.Records[len(res.Records)-1].Values[0]
		t.Logf("%s %v: test accuracy %.3f at round 0, %.3f at round 5 (%v)", c.name, c.params, first, last, time.Since(start).Round(time.Second))
		if last < 0.5 {
			t.Errorf("%s %v: test accuracy %.3f after 5 rounds, want well above chance (> 0.5)", c.name, c.params, last)
		}
	}
}
