package gemm32

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestConvBackMatchesDo forces each kernel set that computes ConvBack.Sums
// (the AVX-512 one and the plain Go one) and checks that Sums gives, bit
// for bit, what Do gives for the product of the output gradient's rows
// with the kernel (each term a row of dcol) followed by adding each
// pixel's terms in order to +0, as col2im does: 1–70 output and input
// channels (one to three 32-channel blocks, partial ones), 1–9 kernel
// positions, 0–9 terms in any order (a position used twice included), 1–40
// pixels at arbitrary offsets (whole calls of six and a partial last one)
// and outputs scattered in a wider buffer, whose other values Sums must
// not write.
func TestConvBackMatchesDo(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 9))
	ran := 0
	for _, ks := range kernelSets() {
		if ks.convB32 == nil && ks.conv8 != nil {
			continue
		}
		ran++
		for trial := range trials(150) {
			cout, kk, cin := 1+rng.IntN(70), 1+rng.IntN(9), 1+rng.IntN(70)
			if trial%3 == 0 { // the 4-layer CNN's layers: 3×3, 32 or 64 channels
				cout, kk = []int{32, 64}[trial/3%2], 9
				cin = cout
			}
			nt := rng.IntN(10)
			terms := make([]int, 0, 2*nt)
			for range nt {
				terms = append(terms, rng.IntN(200)-100, rng.IntN(kk))
			}
			n := 1 + rng.IntN(40)
			src := randSlice(rng, 200+cout+rng.IntN(100))
			at, dat := make([]int, n), make([]int, n)
			slots := rng.Perm(n + 3)
			for r := range at {
				at[r] = 100 + rng.IntN(len(src)-cout-199)
				dat[r] = slots[r]*(cin+1) + rng.IntN(2)
			}
			size := (n+3)*(cin+1) + 2
			w := randSlice(rng, cout*kk*cin)
			patch := kk * cin
			want, got := make([]float32, size), make([]float32, size)
			for i := range want {
				want[i] = float32(math.NaN())
				got[i] = want[i]
			}
			rows := make([]float32, n*max(1, nt)*cout)
			for r := range n {
				for k := 0; k < len(terms); k += 2 {
					copy(rows[(r*nt+k/2)*cout:][:cout], src[at[r]+terms[k]:])
				}
			}
			dcol := make([]float32, n*max(1, nt)*patch)
			g := Gemm{own: &ks}
			if nt > 0 {
				g.Do(false, false, n*nt, patch, cout, 1, rows, cout, w, patch, 0, dcol, patch)
			}
			for r := range n {
				for ch := range cin {
					var sum float32
					for k := 0; k < len(terms); k += 2 {
						sum += dcol[(r*nt+k/2)*patch+terms[k+1]*cin+ch]
					}
					want[dat[r]+ch] = sum
				}
			}
			c := ConvBack{own: &ks}
			c.Load(w, cout, kk, cin)
			c.Sums(at, dat, terms, src, got)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("%s kernels, %d→%d channels, %d positions, %d terms, %d pixels: out[%d] = %g, want %g",
						ks.name, cout, cin, kk, nt, n, i, got[i], want[i])
				}
			}
		}
	}
	if ran == 0 {
		t.Fatal("no kernel set computes Sums")
	}
}

// Sums refuses terms or outputs outside its operands, naming the pixel,
// and, with assembly kernels that have no such kernel (AVX2), says so
// instead of computing other bits than Do.
func TestConvBackPanics(t *testing.T) {
	for _, ks := range kernelSets() {
		c := ConvBack{own: &ks}
		c.Load(make([]float32, 32*9*32), 32, 9, 32)
		cases := map[string]func(){
			"gemm32: convolution input gradient pixel 1": func() {
				c.Sums([]int{0, 90}, []int{0, 32}, []int{0, 4}, make([]float32, 100), make([]float32, 64))
			},
			"gemm32: convolution input gradient term at kernel position 9": func() {
				c.Sums([]int{0}, []int{0}, []int{0, 9}, make([]float32, 100), make([]float32, 64))
			},
		}
		if ks.convB32 == nil && ks.conv8 != nil {
			cases = map[string]func(){"gemm32: ConvBack.Sums has no kernel with the " + ks.name + " kernels": func() {
				c.Sums([]int{0}, []int{0}, []int{0, 4}, make([]float32, 100), make([]float32, 64))
			}}
		}
		for want, f := range cases {
			func() {
				defer func() {
					if r, _ := recover().(string); !strings.HasPrefix(r, want) {
						t.Errorf("%s kernels: panic %q, want %q…", ks.name, r, want)
					}
				}()
				f()
			}()
		}
	}
}
