package losses

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/registry"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules/sched"
)

// imagesLike builds a Fashion-MNIST-like dataset in 8-bit storage: M
// clients of n side×side grey images (bytes with many zeros and many 255s,
// like clothing on a black background) and labels 0..classes−1, with test
// sets; n is not a multiple of the chunk sizes, so partial chunks are read.
func imagesLike(seed uint64, M, n, side, classes int) *core.Federated {
	rng := rand.New(rand.NewPCG(seed, 7))
	lv := core.PixelLevels()
	F := side * side
	part := func(n int) *core.Data {
		x, y := make([]uint8, n*F), make([]float64, n)
		for i := range n {
			y[i] = float64(rng.IntN(classes))
			for j := range F {
				switch u := rng.Float64(); {
				case u < 0.4:
				case u < 0.5:
					x[i*F+j] = 255
				default:
					x[i*F+j] = uint8(rng.IntN(256))
				}
			}
		}
		return core.NewBytesData(x, lv, y, n, F)
	}
	f := &core.Federated{Name: "images", Features: F, Classes: classes}
	for m := range M {
		f.Train = append(f.Train, part(n+m))
		f.Test = append(f.Test, part(n/2+m))
	}
	return f
}

// asFloat64 is f (8-bit pixels) with every client's pixels held as
// float64(b)/255, as the float64 storage held them, computed here without
// the code under test.
func asFloat64(f *core.Federated) *core.Federated {
	g := *f
	conv := func(parts []*core.Data) []*core.Data {
		var out []*core.Data
		for _, d := range parts {
			x := make([]float64, len(d.X8))
			for k, b := range d.X8 {
				x[k] = float64(b) / 255
			}
			out = append(out, &core.Data{X: x, Y: d.Y, N: d.N, Features: d.Features})
		}
		return out
	}
	g.Train, g.Test = conv(f.Train), conv(f.Test)
	return &g
}

// imageLosses are the losses that read images, and the linear losses on
// two classes (whose full batches go through gemv).
func imageLosses(binary bool, side int) map[string]core.Loss {
	if binary {
		return map[string]core.Loss{
			"logistic": Logistic{Intercept: true},
			"squared":  Squared{Intercept: true},
		}
	}
	lenet := func(f32 bool) CNN {
		if side == 28 { // LeNet-5, as the Fashion-MNIST scripts use it
			return CNN{InChannels: 1, Height: 28, Width: 28, Channels: []int{6, 16}, Kernel: 5, Padding: []int{2, 0}, Pool: 2, Dense: []int{120, 84}, Float32: f32}
		}
		return CNN{InChannels: 1, Height: side, Width: side, Channels: []int{3, 4}, Kernel: 3, Padding: []int{1, 0}, Pool: 2, Dense: []int{10}, Float32: f32}
	}
	return map[string]core.Loss{
		"multinomial": Multinomial{Bias: true},
		"mlp":         MLP{Hidden: []int{16}},
		"mlp32":       MLP{Hidden: []int{16}, Float32: true},
		"cnn":         lenet(false),
		"cnn32":       lenet(true),
	}
}

func sameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// Every loss that reads dense rows computes the same loss, gradient and
// accuracy bit for bit on 8-bit data as on the same values held as
// float64s: full batches (gemv in chunks, the neural chunks), minibatches
// (rows gathered) and accuracy.
func TestBytesStorageEvaluatesEqual(t *testing.T) {
	for _, binary := range []bool{false, true} {
		classes := 10
		if binary {
			classes = 2
		}
		f8 := imagesLike(3, 1, 203, 12, classes)
		f64 := asFloat64(f8)
		d8, d64 := f8.Train[0], f64.Train[0]
		if !d8.Is8Bit() || d64.Is8Bit() || d64.X == nil {
			t.Fatal("the two storages are not 8-bit and float64")
		}
		for name, loss := range imageLosses(binary, 12) {
			lay, err := loss.Layout(f8)
			if err != nil {
				t.Fatal(name, err)
			}
			rng := rand.New(rand.NewPCG(5, 5))
			w := make([]float64, lay.Dim())
			for i := range w {
				w[i] = 0.1 * rng.NormFloat64()
			}
			e8, e64 := loss.NewEvaluator(lay), loss.NewEvaluator(lay)
			batch := rng.Perm(d8.N)[:37]
			for _, idx := range [][]int{nil, batch} {
				g8, g64 := make([]float64, lay.Dim()), make([]float64, lay.Dim())
				l8, l64 := e8.Eval(w, d8, idx, g8), e64.Eval(w, d64, idx, g64)
				if math.Float64bits(l8) != math.Float64bits(l64) || !sameBits(g8, g64) {
					t.Fatalf("%s (batch %v): 8-bit loss %v, float64 %v; gradients equal: %v", name, idx != nil, l8, l64, sameBits(g8, g64))
				}
				if l8 == 0 || slices.Max(g8) == 0 {
					t.Fatalf("%s: loss %g, largest gradient entry %g: the comparison reads nothing", name, l8, slices.Max(g8))
				}
			}
			if p8, ok := e8.(core.Predictor); ok {
				a8, a64 := p8.Accuracy(w, d8), e64.(core.Predictor).Accuracy(w, d64)
				if math.Float64bits(a8) != math.Float64bits(a64) {
					t.Fatalf("%s: accuracy %v on 8-bit data, %v on float64", name, a8, a64)
				}
			} else if name != "squared" {
				t.Fatalf("%s does not predict classes", name)
			}
		}
	}
}

// localSteps runs Steps minibatch gradient steps from the broadcast model
// on each client and averages the clients' models.
type localSteps struct {
	eta float64
	w   []float64
}

func (a *localSteps) Init(env *core.Env) error { a.w = slices.Clone(env.W0); return nil }
func (a *localSteps) Shape() (core.MessageShape, core.MessageShape) {
	return core.MessageShape{Vecs: 1}, core.MessageShape{Vecs: 1}
}
func (a *localSteps) Broadcast(_ *core.Round, down *core.Message) { copy(down.Vecs[0], a.w) }
func (a *localSteps) ClientUpdate(_ *core.Round, c *core.Client, down, up *core.Message) {
	w, g := up.Vecs[0], c.Vec(0)
	copy(w, down.Vecs[0])
	for range c.Steps {
		c.Gradient(w, g)
		for i := range w {
			w[i] -= a.eta * g[i]
		}
	}
}
func (a *localSteps) Aggregate(_ *core.Round, mean *core.Message, _ []*core.Message) {
	copy(a.w, mean.Vecs[0])
}
func (a *localSteps) Model(dst []float64) { copy(dst, a.w) }

// metric is a named measurement of the evaluated model.
type metric struct {
	name string
	f    func(e *core.Eval) float64
}

func (m metric) Name() string              { return m.name }
func (m metric) Eval(e *core.Eval) float64 { return m.f(e) }

// accuracyOf is the accuracy of e's model on the pooled training or test data.
func accuracyOf(e *core.Eval, test bool) float64 {
	return e.Evaluator().(core.Predictor).Accuracy(e.W, e.Problem.Data.Pooled(test))
}

// A run's records — training and test loss, training and test accuracy at
// every round, and the final model — are the same bit for bit whether the
// images are held as bytes or as float64s, for every loss that reads
// images (two workers, partial participation, minibatches).
func TestBytesStorageRecordsEqual(t *testing.T) {
	for _, binary := range []bool{false, true} {
		classes := 10
		if binary {
			classes = 2
		}
		recordsEqual(t, imagesLike(11, 4, 70, 12, classes), imageLosses(binary, 12))
	}
}

// The same on the first 200 training and 60 test images of the installed
// Fashion-MNIST (apt-get install dataset-fashion-mnist; CI installs it),
// with LeNet-5, the MLP and multinomial logistic regression. Under
// -short it is skipped: TestBytesStorageRecordsEqual runs the same code on
// images like these.
func TestBytesStorageRecordsEqualOnFashionMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the same check on synthetic images is TestBytesStorageRecordsEqual's; on Fashion-MNIST it is the full suite's")
	}
	const dir = "/usr/share/datasets/fashion-mnist"
	read := func(name string, skip, n int) []byte {
		fh, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			t.Skipf("%s is not installed (apt-get install dataset-fashion-mnist)", dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		zr, err := gzip.NewReader(fh)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, skip+n)
		if _, err := io.ReadFull(zr, b); err != nil {
			t.Fatal(name, err)
		}
		return b[skip:]
	}
	const F = 28 * 28
	lv := core.PixelLevels()
	f := &core.Federated{Name: "fashion_mnist", Features: F, Classes: 10}
	for _, set := range []struct {
		prefix string
		n      int
		parts  *[]*core.Data
	}{{"train", 200, &f.Train}, {"t10k", 60, &f.Test}} {
		pix := read(set.prefix+"-images-idx3-ubyte.gz", 16, set.n*F)
		lab := read(set.prefix+"-labels-idx1-ubyte.gz", 8, set.n)
		for m := range 4 {
			a, b := m*set.n/4, (m+1)*set.n/4
			y := make([]float64, b-a)
			for i := range y {
				y[i] = float64(lab[a+i])
			}
			*set.parts = append(*set.parts, core.NewBytesData(pix[a*F:b*F], lv, y, b-a, F))
		}
	}
	all := imageLosses(false, 28)
	delete(all, "cnn") // LeNet-5 in float64 is slow; the synthetic test covers its code path
	recordsEqual(t, f, all)
}

// recordsEqual runs every loss of ls on f8 (8-bit images) and on the same
// values held as float64s (4 rounds, 2 under -short), and fails unless the
// records and the final models are the same bit for bit.
func recordsEqual(t *testing.T, f8 *core.Federated, ls map[string]core.Loss) {
	t.Helper()
	recordsEqualTo(t, f8, asFloat64(f8), ls)
}

// recordsEqualTo is recordsEqual against f64, the values of f8 held as
// float64s.
func recordsEqualTo(t *testing.T, f8, f64 *core.Federated, ls map[string]core.Loss) {
	t.Helper()
	losses := []core.Metric{
		metric{"train_loss", func(e *core.Eval) float64 { return e.TrainLoss() }},
		metric{"test_loss", func(e *core.Eval) float64 { return e.TestLoss() }},
	}
	accuracies := append(slices.Clone(losses),
		metric{"train_accuracy", func(e *core.Eval) float64 { return accuracyOf(e, false) }},
		metric{"test_accuracy", func(e *core.Eval) float64 { return accuracyOf(e, true) }})
	rounds := 4
	if testing.Short() {
		rounds = 2
	}
	for name, loss := range ls {
		metrics := accuracies
		if name == "squared" {
			metrics = losses
		}
		var res [2]*core.Result
		for k, f := range []*core.Federated{f8, f64} {
			p, err := core.NewProblem(f, loss, core.Penalty{Name: "none", Reg: regularizers.None{}, Lambda: sched.Constant(0)}, nil)
			if err != nil {
				t.Fatal(name, err)
			}
			s := core.Settings{Rounds: rounds, ClientsPerRound: 3, LocalSteps: 3, Batch: 16, EvalEvery: 1, Seed: 9,
				Workers: 2, Init: "normal", InitScale: 0.1}
			res[k] = core.Run(p, &localSteps{eta: 0.05}, s, metrics)
			if res[k].Status != core.Done {
				t.Fatalf("%s: run %s: %s", name, res[k].Status, res[k].Err)
			}
		}
		if len(res[0].Records) != rounds+1 || !sameBits(res[0].Model, res[1].Model) {
			t.Fatalf("%s: %d records; final models equal: %v", name, len(res[0].Records), sameBits(res[0].Model, res[1].Model))
		}
		for i, r := range res[0].Records {
			if !sameBits(r.Values, res[1].Records[i].Values) {
				t.Fatalf("%s: round %d: 8-bit records %v, float64 %v", name, r.Round, r.Values, res[1].Records[i].Values)
			}
		}
		if first, last := res[0].Records[0].Values[0], res[0].Records[rounds].Values[0]; first == last {
			t.Fatalf("%s: the training loss did not move (%g): the runs compare nothing", name, first)
		}
	}
}

// PixelLevels holds float64(b)/255 for every byte, the value the float64
// storage of pixels has always held; AffineLevels holds b·scale + offset.
func TestLevels(t *testing.T) {
	px, af := core.PixelLevels(), core.AffineLevels(2.0/255, -1)
	for b := range 256 {
		if math.Float64bits(px[b]) != math.Float64bits(float64(b)/255) {
			t.Fatalf("PixelLevels[%d] = %v, want %v", b, px[b], float64(b)/255)
		}
		if math.Float64bits(af[b]) != math.Float64bits(float64(b)*(2.0/255)-1) {
			t.Fatalf("AffineLevels[%d] = %v", b, af[b])
		}
	}
	if px[0] != 0 || px[255] != 1 || af[0] != -1 || af[255] != 1 {
		t.Fatalf("ends: pixel %g %g, affine %g %g", px[0], px[255], af[0], af[255])
	}
}

// benchmarkStorage times a minibatch gradient (batch 16) and a full pass
// of loss on 2,000 28×28 images in 8-bit or float64 storage.
func benchmarkStorage(b *testing.B, loss core.Loss, bytes, full bool) {
	f := imagesLike(4, 1, 2000, 28, 10)
	if !bytes {
		f = asFloat64(f)
	}
	lay, err := loss.Layout(f)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	w, g := make([]float64, lay.Dim()), make([]float64, lay.Dim())
	for i := range w {
		w[i] = 0.05 * rng.NormFloat64()
	}
	ev := loss.NewEvaluator(lay)
	var idx []int
	if !full {
		idx = rng.Perm(2000)[:16]
	}
	for b.Loop() {
		ev.Eval(w, f.Train[0], idx, g)
	}
}

func BenchmarkStorageMLPBatch16Bytes(b *testing.B) {
	benchmarkStorage(b, MLP{Hidden: []int{200, 200}}, true, false)
}
func BenchmarkStorageMLPBatch16Float64(b *testing.B) {
	benchmarkStorage(b, MLP{Hidden: []int{200, 200}}, false, false)
}
func BenchmarkStorageMultinomialFullBytes(b *testing.B) {
	benchmarkStorage(b, Multinomial{Bias: true}, true, true)
}
func BenchmarkStorageMultinomialFullFloat64(b *testing.B) {
	benchmarkStorage(b, Multinomial{Bias: true}, false, true)
}

// TestLEAFRecordsEqualFloat64: a LEAF split of pixel levels (k/255, as
// LEAF writes FEMNIST) and one of small integers, which fedlab.data.leaf
// keeps 8-bit, give runs whose records and final models are those of the
// same values held as float64s, bit for bit (multinomial, MLP, LeNet-5 in
// float32); the pixel split only under -short.
func TestLEAFRecordsEqualFloat64(t *testing.T) {
	const F = 28 * 28
	for _, c := range []struct {
		name  string
		value func(i, j int) string
		level func(b uint8) float64 // the value a byte stands for, computed here
	}{
		{"pixels", func(i, j int) string { return strconv.FormatFloat(float64((i*37+j*11+i*j)%256)/255, 'g', -1, 64) },
			func(b uint8) float64 { return float64(b) / 255 }},
		{"integers", func(i, j int) string { return strconv.Itoa((i*7 + j*3) % 3) }, func(b uint8) float64 { return float64(b) }},
	} {
		if testing.Short() && c.name == "integers" {
			continue // the pixel levels only under -short
		}
		var b strings.Builder
		b.WriteString(`{"users": ["w0", "w1", "w2", "w3"], "user_data": {`)
		for w := range 4 {
			if w > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"w%d": {"x": [`, w)
			var y []string
			for k := range 30 {
				i := w*30 + k
				if k > 0 {
					b.WriteString(", ")
				}
				row := make([]string, F)
				for j := range row {
					row[j] = c.value(i, j)
				}
				b.WriteString("[" + strings.Join(row, ", ") + "]")
				y = append(y, strconv.Itoa(i*7%10))
			}
			b.WriteString(`], "y": [` + strings.Join(y, ", ") + "]}")
		}
		b.WriteString("}}")
		path := filepath.Join(t.TempDir(), "leaf.json")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := registry.Build[*core.Federated](registry.Dataset, "leaf", map[string]any{"path": path, "classes": 10, "test_fraction": 0.2})
		if err != nil {
			t.Fatal(c.name, err)
		}
		if !f.Train[0].Is8Bit() {
			t.Fatalf("%s: the LEAF split is not 8-bit", c.name)
		}
		g := *f
		conv := func(parts []*core.Data) []*core.Data {
			var out []*core.Data
			for _, d := range parts {
				x := make([]float64, len(d.X8))
				for k, b := range d.X8 {
					x[k] = c.level(b)
				}
				out = append(out, &core.Data{X: x, Y: d.Y, N: d.N, Features: d.Features})
			}
			return out
		}
		g.Train, g.Test = conv(f.Train), conv(f.Test)
		all := imageLosses(false, 28)
		t.Log(c.name)
		recordsEqualTo(t, f, &g, map[string]core.Loss{"multinomial": all["multinomial"], "mlp": all["mlp"], "cnn32": all["cnn32"]})
	}
}
