package gemm32

import "fmt"

// PixelKernel reports whether Conv.Pixels has an assembly kernel for a
// kernel of cout output channels with the kernels in use: AVX-512, more
// than sixteen channels (six pixels of thirty-two channels a call). With
// the plain Go kernels Pixels sums in plain Go; with the other assembly
// kernels it has none and panics.
func PixelKernel(cout int) bool { return active.convP32 != nil && cout > 16 }

// Pixels computes the loaded kernel's outputs at n = len(at) output pixels
// whose patches start anywhere in src, pixel r's at src[at[r]]:
// out[r·ldo + o] = Σ over kernel rows i < kh and t < kc (kh·kc = patch) of
// src[at[r] + i·line + t] · w[o·patch + i·kc + t], bit-identical to
// Do(false, true, n, cout, patch, 1, col, patch, w, patch, 0, out, ldo) on
// the im2col matrix col of those pixels: the patch is split into Do's
// depth blocks (a patch deeper than ConvDepth too), each block summed term
// by term from zero with the kernels in use and added to the blocks
// before it (the first stored). Pixels of different output rows and
// images go through the kernels together, so no call computes pixels
// twice. It writes nothing else in out.
func (c *Conv) Pixels(at []int, kh, kc int, src []float32, line int, out []float32, ldo int) {
	n := len(at)
	if c.ks == nil || kh < 1 || kh*kc != c.patch || n < 1 || line < 0 || ldo < c.cout || len(out) < (n-1)*ldo+c.cout {
		panic(fmt.Sprintf("gemm32: %d convolution pixels of a %d×%d patch (kernel %d×%d), row stride %d, output stride %d, in %d floats",
			n, kh, kc, c.cout, c.patch, line, ldo, len(out)))
	}
	end := (kh-1)*line + kc // a patch's extent from its start
	for r, a := range at {
		if a < 0 || a+end > len(src) {
			panic(fmt.Sprintf("gemm32: convolution pixel %d's patch at %d (%d×%d, row stride %d) outside %d floats", r, a, kh, kc, line, len(src)))
		}
	}
	if !used.Load() {
		used.Store(true)
	}
	c.pixelSegs(kh, kc, line)
	if c.ks.conv8 == nil {
		convPixelsGo(c.k, c.cout, c.segs, c.segAt, at, src, out, ldo)
		return
	}
	if c.ks.convP32 == nil || c.cw != 32 {
		panic(fmt.Sprintf("gemm32: Conv.Pixels has no kernel for %d channels with the %s kernels (see PixelKernel)", c.cout, c.ks.name))
	}
	full := n / 6 * 6
	if full < n { // the last pixels, the last one repeated, through a scratch tile
		for r := range c.tailAt {
			c.tailAt[r] = at[min(full+r, n-1)]
		}
	}
	for b := 0; b < c.cout; b += 32 {
		left := c.cout - b
		m0, m1 := 1<<min(16, left)-1, 1<<max(0, min(16, left-16))-1
		for k := 0; k+1 < len(c.segAt); k++ {
			segs := c.segs[c.segAt[k]:c.segAt[k+1]]
			pc := c.segPos[k]
			w := &c.w[b*c.patch+pc*32]
			for x := 0; x < full; x += 6 {
				c.ks.convP32(&segs[0], len(segs)/2, &at[x], &src[0], w, &out[x*ldo+b], ldo, m0, m1, k > 0)
			}
			if full == n {
				continue
			}
			c.ks.convP32(&segs[0], len(segs)/2, &c.tailAt[0], &src[0], w, &c.tail[0], 32, m0, m1, false)
			for r := range n - full {
				row, t := out[(full+r)*ldo+b:][:min(32, left)], c.tail[r*32:]
				if k == 0 {
					copy(row, t)
					continue
				}
				for j := range row {
					row[j] += t[j]
				}
			}
		}
	}
}

// pixelSegs sets c.segs to the runs of Pixels' depth blocks for a patch of
// kh rows of kc values, line floats apart: pairs (offset from a patch's
// start, length), block k's at c.segs[c.segAt[k]:c.segAt[k+1]], starting
// at patch position c.segPos[k]. The blocks are Do's: k = patch split into
// equal blocks of at most ConvDepth.
func (c *Conv) pixelSegs(kh, kc, line int) {
	key := [3]int{kh, kc, line}
	if c.segKey == key && c.segAt != nil {
		return
	}
	c.segKey, c.segs, c.segAt, c.segPos = key, c.segs[:0], append(c.segAt[:0], 0), c.segPos[:0]
	patch := kh * kc
	nb := (patch + ConvDepth - 1) / ConvDepth
	kd := (patch + nb - 1) / nb // Do's depth blocks
	for pc := 0; pc < patch; pc += kd {
		hi := min(pc+kd, patch)
		for i := range kh {
			a, b := max(pc, i*kc), min(hi, (i+1)*kc)
			if a < b {
				c.segs = append(c.segs, i*line+a-i*kc, b-a)
			}
		}
		c.segAt, c.segPos = append(c.segAt, len(c.segs)), append(c.segPos, pc)
	}
}

// convPixelsGo is Pixels with the plain Go kernel's arithmetic: per depth
// block a sum from zero, term by term, of rounded products (as kernelGo
// sums it), stored for the first block and added for the others.
func convPixelsGo(k []float32, cout int, segs, segAt, at []int, src, out []float32, ldo int) {
	patch := len(k) / cout
	for r, a := range at {
		for o := range cout {
			w, p := k[o*patch:(o+1)*patch], 0
			for b := 0; b+1 < len(segAt); b++ {
				var sum float32
				s := segs[segAt[b]:segAt[b+1]]
				for q := 0; q < len(s); q += 2 {
					for _, v := range src[a+s[q] : a+s[q]+s[q+1]] {
						sum += v * w[p]
						p++
					}
				}
				if b == 0 {
					out[r*ldo+o] = sum
				} else {
					out[r*ldo+o] += sum
				}
			}
		}
	}
}

// pixelState is Conv's state for Pixels.
type pixelState struct {
	segs, segAt, segPos []int           // the runs of the depth blocks (pixelSegs)
	segKey              [3]int          // the kh, kc and line of segs
	tailAt              [6]int          // the last call's pixels
	tail                [6 * 32]float32 // the last call's outputs
}
