package gemm32

import "fmt"

// ConvBack computes a convolution's input gradient straight from the
// output gradient, without the product dcol = dg·w and col2im: each input
// value is a sum, from +0 and in a given order, of terms, one per kernel
// position whose output pixel exists; each term is the product of the
// output gradient's cout channels at that pixel with the kernel's weights
// of that position and input channel, summed as Do sums a depth of cout
// (one chain from zero, with the kernels in use). That is bit-identical to
// Do(false, false, pixels, patch, cout, 1, dg, cout, w, patch, 0, dcol,
// patch) followed by adding each input value's terms of dcol to +0 in that
// order. The assembly kernel computes six pixels of thirty-two input
// channels at once. A ConvBack owns its packed kernel, so it does not
// allocate after its first Load of a given shape; it is not safe for
// concurrent use.
type ConvBack struct {
	w               []float32 // per block of 32 input channels, per kernel position, cout rows of 32 weights
	k               []float32 // the kernel as loaded, for the plain Go path
	cout, kk, cin   int
	ks              *kernelSet // the kernels of the loaded kernel (active's at Load, unless a test set own)
	own             *kernelSet // kernels fixed for this value by a test; nil = active
	tailAt, tailDat [6]int     // the last call's pixels
	terms           []int      // Sums' terms for the kernel: offsets and the weights' offsets in a channel block
}

// BackKernel reports whether ConvBack.Sums has an assembly kernel with the
// kernels in use (AVX-512). With the plain Go kernels Sums sums in plain
// Go; with the other assembly kernels it has none and panics.
func BackKernel() bool { return active.convB32 != nil }

// Load sets the kernel: cout rows of kk·cin weights, row o holding output
// channel o's weights by kernel position, then input channel. Sums uses
// the kernels in use at Load.
func (c *ConvBack) Load(w []float32, cout, kk, cin int) {
	if cout < 1 || cout > ConvDepth || kk < 1 || cin < 1 || len(w) < cout*kk*cin {
		panic(fmt.Sprintf("gemm32: a convolution kernel of %d channels (at most %d), %d positions and %d input channels in %d floats", cout, ConvDepth, kk, cin, len(w)))
	}
	c.cout, c.kk, c.cin, c.k, c.ks = cout, kk, cin, w[:cout*kk*cin], active
	if c.own != nil {
		c.ks = c.own
	}
	if c.ks.convB32 == nil {
		return
	}
	blocks, patch := (cin+31)/32, kk*cin
	if n := blocks * kk * cout * 32; len(c.w) < n {
		c.w = make([]float32, n)
	}
	for b := range blocks {
		for q := range kk {
			dst := c.w[(b*kk+q)*cout*32:][:cout*32]
			for o := range cout {
				row, src := dst[o*32:(o+1)*32], w[o*patch+q*cin+b*32:o*patch+(q+1)*cin]
				n := copy(row, src)
				clear(row[n:])
			}
		}
	}
}

// Sums computes, for the n = len(at) pixels r, out[dat[r] + ch] for input
// channels ch < cin: from +0, for each pair (off, q) of terms in order, it
// adds the sum over o < cout of src[at[r] + off + o] · w[o·kk·cin + q·cin
// + ch] (see ConvBack). With no terms it writes zeros. It writes nothing
// else in out.
func (c *ConvBack) Sums(at, dat, terms []int, src, out []float32) {
	n := len(at)
	if c.ks == nil || len(dat) != n || len(terms)%2 != 0 {
		panic(fmt.Sprintf("gemm32: convolution input gradient of %d pixels with %d outputs and %d term values", n, len(dat), len(terms)))
	}
	lo, hi := 0, 0 // the terms' offsets' range
	for t := 0; t < len(terms); t += 2 {
		if q := terms[t+1]; q < 0 || q >= c.kk {
			panic(fmt.Sprintf("gemm32: convolution input gradient term at kernel position %d of %d", q, c.kk))
		}
		if t == 0 || terms[t] < lo {
			lo = terms[t]
		}
		if t == 0 || terms[t] > hi {
			hi = terms[t]
		}
	}
	for r := range n {
		if (len(terms) > 0 && (at[r]+lo < 0 || at[r]+hi+c.cout > len(src))) || dat[r] < 0 || dat[r]+c.cin > len(out) {
			panic(fmt.Sprintf("gemm32: convolution input gradient pixel %d (terms at %d%+d…%+d, %d channels; output at %d, %d channels) outside %d and %d floats",
				r, at[r], lo, hi, c.cout, dat[r], c.cin, len(src), len(out)))
		}
	}
	if n == 0 {
		return
	}
	if !used.Load() {
		used.Store(true)
	}
	if len(terms) == 0 {
		for _, d := range dat {
			clear(out[d : d+c.cin])
		}
		return
	}
	if c.ks.conv8 == nil {
		convBackGo(c.k, c.cout, c.kk, c.cin, at, dat, terms, src, out)
		return
	}
	if c.ks.convB32 == nil {
		panic(fmt.Sprintf("gemm32: ConvBack.Sums has no kernel with the %s kernels (see BackKernel)", c.ks.name))
	}
	c.terms = c.terms[:0]
	for t := 0; t < len(terms); t += 2 {
		c.terms = append(c.terms, terms[t], terms[t+1]*c.cout*32)
	}
	full := n / 6 * 6
	if full < n { // the last pixels, the last one repeated (written twice, the same values)
		for r := range 6 {
			c.tailAt[r], c.tailDat[r] = at[min(full+r, n-1)], dat[min(full+r, n-1)]
		}
	}
	for b := 0; b < c.cin; b += 32 {
		left := c.cin - b
		m0, m1 := 1<<min(16, left)-1, 1<<max(0, min(16, left-16))-1
		w := &c.w[b/32*c.kk*c.cout*32]
		for x := 0; x < full; x += 6 {
			c.ks.convB32(&c.terms[0], len(c.terms)/2, c.cout, &at[x], &src[0], w, &out[b], &dat[x], m0, m1)
		}
		if full < n {
			c.ks.convB32(&c.terms[0], len(c.terms)/2, c.cout, &c.tailAt[0], &src[0], w, &out[b], &c.tailDat[0], m0, m1)
		}
	}
}

// convBackGo is Sums with the plain Go kernel's arithmetic: each term a
// sum from zero of rounded products (as kernelGo sums it), added to the
// running sum from +0.
func convBackGo(k []float32, cout, kk, cin int, at, dat, terms []int, src, out []float32) {
	patch := kk * cin
	for r, a := range at {
		for ch := range cin {
			var acc float32
			for t := 0; t < len(terms); t += 2 {
				g, q := src[a+terms[t]:][:cout], terms[t+1]
				var sum float32
				for o, v := range g {
					sum += v * k[o*patch+q*cin+ch]
				}
				acc += sum
			}
			out[dat[r]+ch] = acc
		}
	}
}
