package losses

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fedlab/fedlab/core"
	"github.com/fedlab/fedlab/internal/gemm32"
	"github.com/fedlab/fedlab/regularizers"
	"github.com/fedlab/fedlab/schedules/sched"
)

// im2col32Ref is im2col32 without a padded copy, the reference: it tests
// each kernel row against the image's bounds. It writes the patches of the
// m images in (geometry g, channels last) as the rows of col: row (s·ho + y)·wo + x holds in[s][y+i−p][x+j−p][c]
// at column (i·k + j)·cin + c, zero outside the image.
func im2col32Ref(g convGeom, in []float32, m int, col []float32) {
	patch, kc, line := g.patch(), g.k*g.cin, g.w*g.cin
	for s := range m {
		img := in[s*g.inSize() : (s+1)*g.inSize()]
		for y := range g.ho {
			for x := range g.wo {
				row := col[((s*g.ho+y)*g.wo+x)*patch:][:patch]
				x0 := x - g.p
				for i := range g.k {
					dst := row[i*kc : (i+1)*kc]
					iy := y + i - g.p
					if iy < 0 || iy >= g.h {
						clear(dst)
						continue
					}
					src := img[iy*line : (iy+1)*line]
					if x0 >= 0 && x0+g.k <= g.w {
						copy32(dst, src[x0*g.cin:])
						continue
					}
					for j := range g.k {
						if ix := x0 + j; ix >= 0 && ix < g.w {
							copy32(dst[j*g.cin:(j+1)*g.cin], src[ix*g.cin:])
						} else {
							clear(dst[j*g.cin : (j+1)*g.cin])
						}
					}
				}
			}
		}
	}
}

// randGeom is a random convolution geometry: 1–8 input channels, images of
// side 1–12 (not square), kernels of side 1–5 that fit the padded image.
func randGeom(rng *rand.Rand) convGeom {
	g := convGeom{cin: 1 + rng.IntN(8), h: 1 + rng.IntN(12), w: 1 + rng.IntN(12), cout: 1 + rng.IntN(20), k: 1 + rng.IntN(5), p: rng.IntN(3), pool: 1}
	for g.h+2*g.p < g.k || g.w+2*g.p < g.k {
		g.p++
	}
	g.ho, g.wo = g.h+2*g.p-g.k+1, g.w+2*g.p-g.k+1
	g.hp, g.wp = g.ho, g.wo
	return g
}

// im2col32 through a padded image writes exactly the values of the direct
// im2col (im2col32Ref), bit for bit, on random geometries, and leaves the
// rest of col untouched.
func TestIm2colPaddedMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 1))
	for range 300 {
		g := randGeom(rng)
		m := 1 + rng.IntN(3)
		in := make([]float32, m*g.inSize())
		for i := range in {
			in[i] = float32(rng.NormFloat64())
		}
		size := m * g.ho * g.wo * g.patch()
		want, got := make([]float32, size+7), make([]float32, size+7)
		for i := range want {
			want[i] = float32(math.NaN())
			got[i] = want[i]
		}
		pad := make([]float32, padSize(g))
		for i := range pad {
			pad[i] = 99 // stale values from an earlier image must not leak
		}
		im2col32Ref(g, in, m, want)
		im2col32(g, in, m, got, pad)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s, %d images: col[%d] = %g, want %g", geomName(g), m, i, got[i], want[i])
			}
		}
	}
}

func geomName(g convGeom) string {
	return fmt.Sprintf("cin %d, %d×%d, k %d, p %d", g.cin, g.h, g.w, g.k, g.p)
}

// maxPool32 with 2×2 windows (channels last or planar, few or many
// channels) matches a direct reference: per channel the first maximum of
// the window in row-major order (a NaN never replaces, ties keep the
// earlier pixel), then max(0, · + bias); on values with many ties and NaNs.
func TestMaxPool2MatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 2))
	for range 200 {
		g := randGeom(rng)
		g.pool = 2
		g.hp, g.wp = g.ho/2, g.wo/2
		m := 1 + rng.IntN(3)
		out := make([]float32, m*g.outSize())
		for i := range out {
			switch r := rng.IntN(10); {
			case r == 0:
				out[i] = float32(math.NaN())
			case r < 4:
				out[i] = float32(rng.IntN(3)) // ties
			default:
				out[i] = float32(rng.NormFloat64())
			}
		}
		b := make([]float32, g.cout)
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		for _, planar := range []bool{false, true} {
			n := m * g.poolSize()
			pooled, arg := make([]float32, n), make([]int32, n)
			maxPool32(g, out, b, m, pooled, arg, planar)
			for s := range m {
				for y := range g.hp {
					for x := range g.wp {
						for c := range g.cout {
							o := ((s*g.hp+y)*g.wp+x)*g.cout + c
							if planar {
								o = s*g.poolSize() + c*g.hp*g.wp + y*g.wp + x
							}
							var best float32
							at := -1
							for i := range 2 {
								for j := range 2 {
									a := ((s*g.ho+2*y+i)*g.wo+2*x+j)*g.cout + c
									if at < 0 || out[a] > best {
										best, at = out[a], a
									}
								}
							}
							want := max(0, best+b[c])
							if int(arg[o]) != at || math.Float32bits(pooled[o]) != math.Float32bits(want) {
								t.Fatalf("%s, cout %d, planar %v: pooled[%d] = %g at %d, want %g at %d", geomName(g), g.cout, planar, o, pooled[o], arg[o], want, at)
							}
						}
					}
				}
			}
		}
	}
}

// The direct convolution (convDirect) writes exactly the forward output of
// im2col32 and the GEMM, bit for bit, with each GEMM kernel set forced in
// turn (the plain Go one included), on random geometries with padding and
// output rows that are not a multiple of the kernels' width, and on the
// issue's layers (LeNet-5's 1→6 and 6→16 5×5, an RGB 3→32 and 3→64 3×3).
func TestConvDirectMatchesIm2col(t *testing.T) {
	defer gemm32.SetKernels(gemm32.Kernels())
	rng := rand.New(rand.NewPCG(40, 3))
	fixed := []convGeom{
		{cin: 1, h: 28, w: 28, cout: 6, k: 5, p: 2},
		{cin: 6, h: 14, w: 14, cout: 16, k: 5, p: 0},
		{cin: 3, h: 32, w: 32, cout: 32, k: 3, p: 1},
		{cin: 3, h: 32, w: 32, cout: 64, k: 3, p: 1},
	}
	for _, name := range gemm32.Available() {
		if _, err := gemm32.SetKernels(name); err != nil {
			t.Fatal(err)
		}
		tested, shapes := 0, 150
		if testing.Short() {
			shapes = 40 // the four layers and 36 random geometries
		}
		for trial := 0; tested < shapes; trial++ {
			var g convGeom
			if trial < len(fixed) {
				g = fixed[trial]
			} else {
				g = randGeom(rng)
				g.w = 1 + rng.IntN(40)
				for g.w+2*g.p < g.k {
					g.w++
				}
			}
			g.ho, g.wo = g.h+2*g.p-g.k+1, g.w+2*g.p-g.k+1
			if !directShape(g) {
				continue
			}
			tested++
			m := 1 + rng.IntN(3)
			in := make([]float32, m*g.inSize())
			for i := range in {
				in[i] = float32(rng.NormFloat64())
			}
			w := make([]float32, g.cout*g.patch())
			for i := range w {
				w[i] = float32(rng.NormFloat64())
			}
			rows := m * g.ho * g.wo
			col := make([]float32, rows*g.patch())
			want, got := make([]float32, rows*g.cout), make([]float32, rows*g.cout)
			var gm gemm32.Gemm
			im2col32(g, in, m, col, make([]float32, padSize(g)))
			gm.Do(false, true, rows, g.cout, g.patch(), 1, col, g.patch(), w, g.patch(), 0, want, g.cout)
			padded := make([]float32, m*padSize(g)+gemm32.ConvSlack)
			for i := range padded {
				padded[i] = 99 // stale values from an earlier image must not leak
			}
			convDirect(new(gemm32.Conv), g, w, padImages(g, in, m, padded), m, got)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s kernels, %+v, %d images: out[%d] = %g directly, %g through im2col", name, g, m, i, got[i], want[i])
				}
			}
		}
	}
}

// unpool32 gives, bit for bit, what the definition gives (each pooled
// gradient to its maximum where out + bias > 0, its bias gradient summed
// in order of o), for channels-last maps (run 1) and planar ones, with
// NaN gradients where the ReLU was inactive (they must not leak).
func TestUnpool32MatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 6))
	for trial := range 200 {
		C, pixels, run := 1+rng.IntN(40), 1+rng.IntN(30), 1
		if trial%2 == 1 {
			run = pixels
		}
		n := C * pixels * 3 // the pooled entries' maxima come from a map 3 times larger
		out, b := make([]float32, n), make([]float32, C)
		for i := range out {
			out[i] = float32(rng.NormFloat64())
		}
		for i := range b {
			b[i] = float32(rng.NormFloat64())
		}
		dp, arg := make([]float32, C*pixels), make([]int32, C*pixels)
		for o, a := range rng.Perm(n)[:len(dp)] {
			arg[o], dp[o] = int32(a), float32(rng.NormFloat64())
			if rng.IntN(5) == 0 {
				dp[o] = float32(math.NaN())
			}
		}
		want, got := make([]float32, n), make([]float32, n)
		wantB, gotB := make([]float32, C), make([]float32, C)
		for i := range wantB {
			wantB[i] = float32(rng.NormFloat64())
			gotB[i] = wantB[i]
		}
		for o, v := range dp {
			c, a := o/run%C, arg[o]
			if !(out[a]+b[c] > 0) {
				v = 0
			}
			want[a] += v
			wantB[c] += v
		}
		for i := range got {
			got[i] = 7 // overwritten
		}
		unpool32(dp, arg, out, b, got, gotB, run)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("run %d, %d channels: dout[%d] = %g, want %g", run, C, i, got[i], want[i])
			}
		}
		for i := range wantB {
			if math.Float32bits(gotB[i]) != math.Float32bits(wantB[i]) {
				t.Fatalf("run %d, %d channels: gb[%d] = %g, want %g", run, C, i, gotB[i], wantB[i])
			}
		}
	}
}

// A small federated run of a float32 LeNet-like CNN (both convolutions
// direct) gives the same records (training and test loss and accuracy at
// every round) and the same final model, bit for bit, with the direct
// convolution on and off, under each assembly kernel set.
func TestDirectConvRecordsUnchanged(t *testing.T) {
	defer gemm32.SetKernels(gemm32.Kernels())
	rounds, n := 4, 40
	if testing.Short() {
		rounds, n = 2, 20
	}
	f := imagesLike(11, 4, n, 28, 10)
	net := CNN{InChannels: 1, Channels: []int{6, 16}, Kernel: 5, Padding: []int{2, 0}, Pool: 2, Dense: []int{24}, Float32: true}
	geo, err := net.geometry(28 * 28)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range gemm32.Available() {
		if name == "go" {
			continue // the plain Go kernels use im2col everywhere
		}
		if _, err := gemm32.SetKernels(name); err != nil {
			t.Fatal(err)
		}
		for _, g := range geo {
			if !directConv(g) {
				t.Fatalf("%s kernels: layer %+v is not direct: the runs would compare nothing", name, g)
			}
		}
		sameRecordsBothWays(t, name+" kernels, direct", f, net, rounds)
	}
}

// sameRecordsBothWays runs a small federated training of net on f for
// rounds rounds with every layer through im2col (directConvOff) and as
// the kernels in use arrange it, and fails unless the records (training
// and test loss and accuracy at every round) and the final models are the
// same bits, and the training loss moved.
func sameRecordsBothWays(t *testing.T, what string, f *core.Federated, net CNN, rounds int) {
	t.Helper()
	defer func(off bool) { directConvOff = off }(directConvOff)
	metrics := []core.Metric{
		metric{"train_loss", func(e *core.Eval) float64 { return e.TrainLoss() }},
		metric{"test_loss", func(e *core.Eval) float64 { return e.TestLoss() }},
		metric{"train_accuracy", func(e *core.Eval) float64 { return accuracyOf(e, false) }},
		metric{"test_accuracy", func(e *core.Eval) float64 { return accuracyOf(e, true) }},
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
		t.Fatalf("%s: %d records; final models equal: %v", what, len(res[0].Records), sameBits(res[0].Model, res[1].Model))
	}
	for i, r := range res[0].Records {
		if !sameBits(r.Values, res[1].Records[i].Values) {
			t.Fatalf("%s, round %d: records %v through im2col, %v as arranged", what, r.Round, r.Values, res[1].Records[i].Values)
		}
	}
	if first, last := res[0].Records[0].Values[0], res[0].Records[rounds].Values[0]; first == last {
		t.Fatalf("%s: the training loss did not move (%g): the runs compare nothing", what, first)
	}
}
