package gemm32

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestConvMatchesDo forces each kernel set (the plain Go one included) and
// checks that Conv.Row gives, bit for bit, the product Do computes on the
// im2col matrix with the same kernels, on random shapes: 1–40 output
// channels (one or several 16-channel blocks, partial ones), patches of 1–5
// kernel rows, rows of pixels that are not a multiple of the kernels'
// width, strides and output rows wider than the channels (which Row must
// not write).
func TestConvMatchesDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 2))
	for _, ks := range kernelSets() {
		for trial := range trials(400) {
			cout, kh, kc := 1+rng.IntN(40), 1+rng.IntN(5), 1+rng.IntN(30)
			if trial%4 == 0 { // the layers: 5×5×1 → 6, 5×5×6 → 16, 3×3×3 → 32
				cout, kh, kc = []int{6, 16, 32, 64}[trial/4%4], []int{5, 5, 3, 3}[trial/4%4], []int{5, 30, 9, 3}[trial/4%4]
			}
			xs := 1 + rng.IntN(8)
			line := kc + rng.IntN(40)
			n := ConvWidth(cout) + rng.IntN(30)
			ldo := cout + rng.IntN(3)
			patch := kh * kc
			src := randSlice(rng, (n-1)*xs+(kh-1)*line+kc+rng.IntN(3))
			w := randSlice(rng, cout*patch)
			col := make([]float32, n*patch)
			for x := range n {
				for i := range kh {
					copy(col[x*patch+i*kc:][:kc], src[x*xs+i*line:])
				}
			}
			want, got := make([]float32, (n-1)*ldo+cout+2), make([]float32, (n-1)*ldo+cout+2)
			for i := range want {
				want[i] = float32(math.NaN())
				got[i] = want[i]
			}
			g := Gemm{own: &ks}
			g.Do(false, true, n, cout, patch, 1, col, patch, w, patch, 0, want, ldo)
			c := Conv{own: &ks}
			c.Load(w, cout, patch)
			c.Row(n, kh, kc, src, xs, line, got, ldo)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s kernels, %d channels, %d×%d patch, %d pixels (xs %d, line %d, ldo %d): out[%d] = %g, Do gives %g",
						ks.name, cout, kh, kc, n, xs, line, ldo, i, got[i], want[i])
				}
			}
		}
	}
}

// Row refuses a row narrower than ConvWidth, a patch of another shape and
// operands that do not hold the row, with a message naming the shape; and
// AddGrad refuses pixels outside its input or with negative strides.
func TestConvRowPanics(t *testing.T) {
	var c Conv
	c.Load(make([]float32, 6*25), 6, 25)
	for _, f := range []func(){
		func() { c.Row(ConvWidth(6)-1, 5, 5, make([]float32, 1000), 1, 32, make([]float32, 1000), 6) },
		func() { c.Row(28, 5, 5, make([]float32, 100), 1, 32, make([]float32, 1000), 6) },
		func() { c.Row(28, 5, 5, make([]float32, 1000), 1, 32, make([]float32, 100), 6) },
		func() { c.Row(28, 4, 5, make([]float32, 1000), 1, 32, make([]float32, 1000), 6) },
		func() { c.Row(28, -5, -5, make([]float32, 1000), 1, 32, make([]float32, 1000), 6) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "gemm32: a convolution row of") {
					t.Errorf("panic %v", r)
				}
			}()
			f()
		}()
	}
	for _, px := range []ConvPixels{{N: 2, H: 3, W: 28, SS: 1024, YS: 32, XS: 1}, {N: 1, H: 3, W: 28, SS: 0, YS: -32, XS: 1}, {N: 0, H: 3, W: 28, SS: 1024, YS: 32, XS: 1}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "gemm32: a kernel gradient of") {
					t.Errorf("pixels %+v: panic %v", px, r)
				}
			}()
			c.AddGrad(make([]float32, 6*25), 6, 5, 5, make([]float32, 2*3*28*6), 6, make([]float32, 1030), 32, px)
		}()
	}
}

// TestConvGradMatchesDo forces each kernel set (the plain Go one included)
// and checks that AddGrad adds, bit for bit, what Do adds with the same
// kernels from the im2col matrix of the pixels, on random shapes: 1–40
// channels, patch rows shorter and longer than the kernels' tiles, groups
// of images whose pixels span several depth blocks (up to 1,080 pixels)
// and whose blocks end inside an image row.
func TestConvGradMatchesDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 4))
	for _, ks := range kernelSets() {
		for trial := range trials(300) {
			cout, kh, rl := 1+rng.IntN(40), 1+rng.IntN(5), 1+rng.IntN(30)
			if trial%4 == 0 { // the layers
				cout, kh, rl = []int{6, 16, 32, 64}[trial/4%4], []int{5, 5, 3, 3}[trial/4%4], []int{5, 30, 9, 3}[trial/4%4]
			}
			patch := kh * rl
			xs, line := 1+rng.IntN(6), rl+rng.IntN(20)
			px := ConvPixels{N: 1 + rng.IntN(3), H: 1 + rng.IntN(12), W: 1 + rng.IntN(30), XS: xs}
			px.YS = (px.W-1)*xs + line/2 + rng.IntN(5)
			px.SS = (px.H-1)*px.YS + (kh-1)*line + (px.W-1)*xs + rl + rng.IntN(7)
			K := px.N * px.H * px.W
			src := randSlice(rng, (px.N-1)*px.SS+(px.H-1)*px.YS+(px.W-1)*px.XS+(kh-1)*line+rl+ConvSlack)
			ldg := cout + rng.IntN(3)
			dg := randSlice(rng, (K-1)*ldg+cout)
			col := make([]float32, K*patch)
			r := 0
			for s := range px.N {
				for y := range px.H {
					for x := range px.W {
						for i := range kh {
							copy(col[r*patch+i*rl:][:rl], src[s*px.SS+y*px.YS+x*px.XS+i*line:])
						}
						r++
					}
				}
			}
			want := randSlice(rng, cout*patch)
			got := append([]float32(nil), want...)
			g := Gemm{own: &ks}
			g.Do(true, false, cout, patch, K, 1, dg, ldg, col, patch, 1, want, patch)
			c := Conv{own: &ks}
			c.AddGrad(got, cout, kh, rl, dg, ldg, src, line, px)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s kernels, %d channels, %d×%d patch, pixels %+v: gw[%d] = %g, Do gives %g",
						ks.name, cout, kh, rl, px, i, got[i], want[i])
				}
			}
		}
	}
}

// AddTo gives the bits of the plain loop, at every length around the
// vector width, leaving dst past len(src) untouched.
func TestAddToMatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 5))
	for n := range 40 {
		src, dst := randSlice(rng, n), randSlice(rng, n+3)
		want := append([]float32(nil), dst...)
		for i, v := range src {
			want[i] += v
		}
		AddTo(dst, src)
		for i := range want {
			if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n = %d: dst[%d] = %g, the loop gives %g", n, i, dst[i], want[i])
			}
		}
	}
}

// trials is n random cases, a tenth of them under -short (every kind of
// case still comes up: they cycle with the trial number, the layers of
// the issue every 4 trials, four of them in the first 16).
func trials(n int) int {
	if testing.Short() {
		return n / 10
	}
	return n
}
