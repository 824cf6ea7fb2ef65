package losses

import (
	"math"

	"github.com/fedlab/fedlab/internal/argmax32"
	"github.com/fedlab/fedlab/internal/gemm32"
	"github.com/fedlab/fedlab/internal/pool32"
)

// Float32 convolution helpers of cnnEval32. Inside the float32 path an image
// is stored pixel by pixel, row-major, each pixel's channels together
// ("channels last"), so that a kernel row's k pixels are k·cin contiguous
// values; a convolution's output is one row per (sample, y, x) and one
// column per output channel, the shape of the batched GEMM that computes it.
// Kernels are permuted to match: column (i·k + j)·cin + c of row o holds the
// weight of input channel c at kernel position (i, j) (permuteKernel32).

// im2col32 writes the patches of the m images in (geometry g, channels
// last) as the rows of col: row (s·ho + y)·wo + x holds in[s][y+i−p][x+j−p][c]
// at column (i·k + j)·cin + c, zero outside the image. With padding, each
// image is first copied into pad (at least padSize(g) floats) with its
// border of zeros, so that every kernel row is one run of k·cin values.
func im2col32(g convGeom, in []float32, m int, col, pad []float32) {
	for s := range m {
		img := in[s*g.inSize() : (s+1)*g.inSize()]
		if g.p > 0 {
			img = padImage(g, img, pad)
		}
		imageCols32(g, img, col[s*g.ho*g.wo*g.patch():])
	}
}

// im2colPadded32 is im2col32 on m images already padded (padImages: each
// padSize(g) floats).
func im2colPadded32(g convGeom, padded []float32, m int, col []float32) {
	for s := range m {
		imageCols32(g, padded[s*padSize(g):(s+1)*padSize(g)], col[s*g.ho*g.wo*g.patch():])
	}
}

// imageCols32 writes the patches of one zero-padded image img (or the
// image itself, without padding) as the first ho·wo rows of col, as
// im2col32 does.
func imageCols32(g convGeom, img, col []float32) {
	patch, kc := g.patch(), g.k*g.cin
	line := (g.w + 2*g.p) * g.cin // a row of the padded image
	for y := range g.ho {
		rows := col[y*g.wo*patch:][:g.wo*patch]
		switch {
		case g.k == 5 && g.cin == 1: // LeNet-5's first layer
			patchRows5x5(rows, img[y*line:], line)
			continue
		case g.k == 3 && g.cin == 3: // a first layer on RGB images
			patchRows3x3x3(rows, img[y*line:], line)
			continue
		}
		if kc > 16 { // long runs: one kernel row of the whole output row a call
			for i := range g.k {
				gemm32.CopyRows(rows[i*kc:], patch, img[(y+i)*line:], g.cin, g.wo, kc)
			}
			continue
		}
		for x := range g.wo {
			row := rows[x*patch:][:patch]
			src := img[y*line+x*g.cin:]
			for i := range g.k {
				copy32(row[i*kc:(i+1)*kc], src[i*line:])
			}
		}
	}
}

// patchRows5x5 writes the patches of one output row of a 5×5 convolution
// of one channel, as im2col32 does (row x of rows from the image rows at
// img, line floats apart), with a fixed-size move per kernel row: for runs
// of 5 floats the loop and copy32's dispatch cost more than the moves.
func patchRows5x5(rows, img []float32, line int) {
	for x := range len(rows) / 25 {
		row, src := (*[25]float32)(rows[x*25:]), img[x:]
		*(*[5]float32)(row[0:]) = *(*[5]float32)(src)
		*(*[5]float32)(row[5:]) = *(*[5]float32)(src[line:])
		*(*[5]float32)(row[10:]) = *(*[5]float32)(src[2*line:])
		*(*[5]float32)(row[15:]) = *(*[5]float32)(src[3*line:])
		*(*[5]float32)(row[20:]) = *(*[5]float32)(src[4*line:])
	}
}

// patchRows3x3x3 is patchRows5x5 for a 3×3 convolution of three channels
// (kernel rows of 9 floats).
func patchRows3x3x3(rows, img []float32, line int) {
	for x := range len(rows) / 27 {
		row, src := (*[27]float32)(rows[x*27:]), img[x*3:]
		*(*[9]float32)(row[0:]) = *(*[9]float32)(src)
		*(*[9]float32)(row[9:]) = *(*[9]float32)(src[line:])
		*(*[9]float32)(row[18:]) = *(*[9]float32)(src[2*line:])
	}
}

// padSize is the size of the padded image of im2col32.
func padSize(g convGeom) int { return (g.h + 2*g.p) * (g.w + 2*g.p) * g.cin }

// padImage copies the image img of geometry g (channels last) into pad
// with a border of g.p zeros on each side and returns the padded image.
func padImage(g convGeom, img, pad []float32) []float32 {
	line, row := (g.w+2*g.p)*g.cin, g.w*g.cin
	pad = pad[:padSize(g)]
	clear(pad[:g.p*line+g.p*g.cin])
	for y := range g.h {
		at := (y+g.p)*line + g.p*g.cin
		copy(pad[at:at+row], img[y*row:(y+1)*row])
		end := min(len(pad), at+row+2*g.p*g.cin) // the right border and the next row's left one
		clear(pad[at+row : end])
	}
	clear(pad[(g.h+g.p)*line:])
	return pad
}

// copy32 copies src[:len(dst)] to dst: the kernel rows of single- and
// three-channel layers (3, 5, 9, 15 values) as fixed-size array moves,
// other short rows by a loop, long ones by copy (cheaper than memmove calls
// for a few values).
func copy32(dst, src []float32) {
	switch n := len(dst); {
	case n == 3:
		*(*[3]float32)(dst) = *(*[3]float32)(src)
	case n == 5:
		*(*[5]float32)(dst) = *(*[5]float32)(src)
	case n == 9:
		*(*[9]float32)(dst) = *(*[9]float32)(src)
	case n == 15:
		*(*[15]float32)(dst) = *(*[15]float32)(src)
	case n > 16:
		copy(dst, src)
	default:
		src = src[:n]
		for i, v := range src {
			dst[i] = v
		}
	}
}

// col2im32 adds the rows of dcol back to the image positions im2col32
// copied them from (its adjoint), overwriting the m images din. Each input
// position receives its terms in the order of the output pixels (y, x)
// they come from, as a loop over the pixels adds them: kernel rows i
// from the last (the first output row) down, then the output columns x,
// each (i, x) one gemm32.AddRows over the output rows.
func col2im32(g convGeom, dcol []float32, m int, din []float32) {
	clear(din[:m*g.inSize()])
	patch, kc, line := g.patch(), g.k*g.cin, g.w*g.cin
	next := g.wo * patch // dcol floats from output row y to y + 1
	for s := range m {
		img, src := din[s*g.inSize():(s+1)*g.inSize()], dcol[s*g.ho*g.wo*patch:]
		for i := g.k - 1; i >= 0; i-- {
			y0, y1 := max(0, g.p-i), min(g.ho, g.h+g.p-i) // output rows whose kernel row i is inside the image
			if y0 >= y1 {
				continue
			}
			for x := range g.wo {
				x0 := x - g.p
				j0, j1 := max(0, -x0), min(g.k, g.w-x0) // kernel columns inside the image
				if j0 >= j1 {
					continue
				}
				at := (y0+i-g.p)*line + (x0+j0)*g.cin
				gemm32.AddRows(img[at:], line, src[y0*next+x*patch+i*kc+j0*g.cin:], next, y1-y0, (j1-j0)*g.cin)
			}
		}
	}
}

// permuteKernel32 copies a convolution kernel of cout rows between k64, in
// the layout's (c, i, j) column order, and k32, in the float32 path's
// (i, j, c) order: from k64 to k32 if toF32, else from k32 to k64.
func permuteKernel32(g convGeom, k64 []float64, k32 []float32, toF32 bool) {
	kk, patch, C := g.k*g.k, g.patch(), g.cin
	for o := range g.cout {
		r64, r32 := k64[o*patch:(o+1)*patch], k32[o*patch:(o+1)*patch]
		for c := range C { // channel c: kk values in a row in k64, every C-th value from c in k32
			p64, p32 := r64[c*kk:(c+1)*kk], r32[c:]
			if kk == 9 { // 3×3 kernels: fixed-size moves without bounds checks
				a, b := (*[9]float64)(p64), p32[:8*C+1]
				if toF32 {
					b[0], b[C], b[2*C], b[3*C], b[4*C] = float32(a[0]), float32(a[1]), float32(a[2]), float32(a[3]), float32(a[4])
					b[5*C], b[6*C], b[7*C], b[8*C] = float32(a[5]), float32(a[6]), float32(a[7]), float32(a[8])
				} else {
					a[0], a[1], a[2], a[3], a[4] = float64(b[0]), float64(b[C]), float64(b[2*C]), float64(b[3*C]), float64(b[4*C])
					a[5], a[6], a[7], a[8] = float64(b[5*C]), float64(b[6*C]), float64(b[7*C]), float64(b[8*C])
				}
				continue
			}
			for ij := range p64 {
				if toF32 {
					p32[ij*C] = float32(p64[ij])
				} else {
					p64[ij] = float64(p32[ij*C])
				}
			}
		}
	}
}

// maxPool32 pools the convolution output out of m samples (rows (s, y, x),
// columns channels; before bias and ReLU) into pooled, channels last or, if
// planar, image by image and channel by channel (the order the dense layers
// read), and records in arg the index in out of each maximum (the first in
// row-major window order on ties). The bias b and the ReLU are applied to
// the maxima only: max over the window of max(0, v + b) is max(0, (max v) +
// b), and the gradient reaches the maximum only where v + b > 0 (unpool32).
func maxPool32(g convGeom, out, b []float32, m int, pooled []float32, arg []int32, planar bool) {
	stride := 1 // distance between channels in pooled
	if planar {
		stride = g.hp * g.wp
	}
	if g.pool == 2 && (planar || g.cout < 8) {
		maxPool2(g, out, b, m, pooled, arg, stride)
		return
	}
	for s := range m {
		for y := range g.hp {
			for x := range g.wp {
				o := ((s*g.hp+y)*g.wp + x) * g.cout
				if planar {
					o = s*g.poolSize() + y*g.wp + x
				}
				for i := range g.pool {
					for j := range g.pool {
						a := ((s*g.ho+y*g.pool+i)*g.wo + x*g.pool + j) * g.cout
						first := i == 0 && j == 0
						if planar {
							poolPixelStrided(out[a:a+g.cout], a, pooled[o:], arg[o:], stride, first)
						} else {
							poolPixel(out[a:a+g.cout], a, pooled[o:o+g.cout], arg[o:o+g.cout], first)
						}
					}
				}
				for c, bc := range b {
					v := &pooled[o+c*stride]
					*v = max(0, *v+bc)
				}
			}
		}
	}
}

// maxPool2 is maxPool32 for 2×2 windows, channel by channel, with channel
// c's maximum at pooled[o + c·stride] of output pixel o: for few channels
// (and the planar last layer) four selects per channel cost less than a
// call to argmax32.Fold per window pixel.
func maxPool2(g convGeom, out, b []float32, m int, pooled []float32, arg []int32, stride int) {
	C, next := g.cout, g.wo*g.cout // next: the window's second row
	for s := range m {
		for y := range g.hp {
			for x := range g.wp {
				o := ((s*g.hp+y)*g.wp + x) * C
				if stride > 1 {
					o = s*g.poolSize() + y*g.wp + x
				}
				a := ((s*g.ho+2*y)*g.wo + 2*x) * C
				w := out[a : a+next+2*C]
				for c, bc := range b[:C] {
					best, at := w[c], uint32(a+c)
					best, at = pick32(best, at, w[C+c], uint32(a+C+c))
					best, at = pick32(best, at, w[next+c], uint32(a+next+c))
					best, at = pick32(best, at, w[next+C+c], uint32(a+next+C+c))
					pooled[o+c*stride] = max(0, best+bc)
					arg[o+c*stride] = int32(at)
				}
			}
		}
	}
}

// pick32 returns (v, i) if v > best, else (best, at), by masks instead of
// a branch (as argmax32.Fold): ties and a NaN v keep best.
func pick32(best float32, at uint32, v float32, i uint32) (float32, uint32) {
	var m uint32
	if v > best {
		m = math.MaxUint32
	}
	return math.Float32frombits(math.Float32bits(best)&^m | math.Float32bits(v)&m), at&^m | i&m
}

// poolPixel folds one window pixel's channel values v (at index a of the
// convolution output) into the running maxima best and their indices arg;
// the first pixel initializes them.
func poolPixel(v []float32, a int, best []float32, arg []int32, first bool) {
	if !first {
		argmax32.Fold(v, int32(a), best, arg)
		return
	}
	copy(best, v)
	for c := range v {
		arg[c] = int32(a + c)
	}
}

// poolPixelStrided is poolPixel with channel c's maximum at best[c·stride]
// (masks instead of branches, as in argmax32).
func poolPixelStrided(v []float32, a int, best []float32, arg []int32, stride int, first bool) {
	for c, x := range v {
		o := c * stride
		var m uint32 // all ones where x replaces the running maximum
		if first || x > best[o] {
			m = math.MaxUint32
		}
		best[o] = math.Float32frombits(math.Float32bits(best[o])&^m | math.Float32bits(x)&m)
		arg[o] = int32(uint32(arg[o])&^m | uint32(a+c)&m)
	}
}

// unpool32 overwrites dout with the gradient at the convolution output:
// each pooled gradient dp[o] goes to its maximum a = arg[o] where the ReLU
// was active (out[a] + b[channel] > 0). It adds the bias gradient, the sum
// of dout over each channel, to gb (summed here over the fewer pooled
// entries, in the order of o). The channel of dp[o] is ⌊o/run⌋ mod
// len(b): run is 1 for channels-last pooled maps, Hp·Wp for planar ones.
func unpool32(dp []float32, arg []int32, out, b, dout, gb []float32, run int) {
	clear(dout)
	if run == 1 { // channels last: pixel by pixel, channel c at dp[o] for o mod len(b) = c
		C := len(b)
		b, gb = b[:C], gb[:C]
		for p := 0; p+C <= len(dp); p += C {
			for c, v := range dp[p : p+C] {
				a := arg[p+c]
				var keep uint32 // all ones where the ReLU was active: a select, not a branch
				if out[a]+b[c] > 0 {
					keep = math.MaxUint32
				}
				v = math.Float32frombits(math.Float32bits(v) & keep)
				dout[a] += v
				gb[c] += v
			}
		}
		return
	}
	c, left := 0, run // channel of dp[o], entries left in its run
	for o, v := range dp {
		a := arg[o]
		var keep uint32 // all ones where the ReLU was active
		if out[a]+b[c] > 0 {
			keep = math.MaxUint32
		}
		v = math.Float32frombits(math.Float32bits(v) & keep)
		dout[a] += v
		gb[c] += v
		if left--; left == 0 {
			left = run
			if c++; c == len(b) {
				c = 0
			}
		}
	}
}

// maxPool2Kernels is maxPool32 for 2×2 windows, channels last, with
// pool32's kernels (one call per row of windows): the same pooled values
// and maxima, bit for bit.
func maxPool2Kernels(g convGeom, out, b []float32, m int, pooled []float32, arg []int32) {
	maxPool2KernelsFrom(g, out, b, 0, m, pooled, arg)
}

// maxPool2KernelsFrom is maxPool2Kernels for the samples s0..s0+n−1 of
// the maps out, pooled and arg only.
func maxPool2KernelsFrom(g convGeom, out, b []float32, s0, n int, pooled []float32, arg []int32) {
	if g.wp == 0 {
		return
	}
	C, next, row := g.cout, g.wo*g.cout, g.wp*g.cout
	for s := s0; s < s0+n; s++ {
		for y := range g.hp {
			o := (s*g.hp + y) * row
			pool32.Pool2(g.wp, C, out, (s*g.ho+2*y)*next, next, b, pooled[o:o+row], arg[o:o+row])
		}
	}
}

// unpool2Kernels is unpool32 for the channels-last maps of
// maxPool2Kernels (run 1), with pool32's kernels: each window's pixels
// written (0 + the gradient at its maximum, +0 elsewhere), the pixels
// outside every window (an odd last row or column) cleared, the bias
// gradient summed in the same order; the same bits. The ReLU was active
// where the pooled value is positive, which is where unpool32 finds the
// maximum plus the bias positive.
func unpool2Kernels(g convGeom, dp, pooled []float32, arg []int32, m int, dout, gb []float32) {
	unpool2KernelsFrom(g, dp, pooled, arg, 0, m, dout, gb)
}

// unpool2KernelsFrom is unpool2Kernels for the samples s0..s0+n−1 of the
// maps only (their part of dout); called for consecutive groups of
// samples in order, it adds the bias gradient in the same order.
func unpool2KernelsFrom(g convGeom, dp, pooled []float32, arg []int32, s0, n int, dout, gb []float32) {
	if g.ho%2 != 0 || g.wo%2 != 0 || g.wp == 0 {
		clear(dout[s0*g.outSize() : (s0+n)*g.outSize()])
	}
	if g.wp == 0 {
		return
	}
	C, next, row := g.cout, g.wo*g.cout, g.wp*g.cout
	for s := s0; s < s0+n; s++ {
		for y := range g.hp {
			o := (s*g.hp + y) * row
			pool32.Unpool2(g.wp, C, dp[o:o+row], pooled[o:o+row], arg[o:o+row], dout, (s*g.ho+2*y)*next, next, gb)
		}
	}
}

// transposePool copies the m pooled maps of layer g between cl, channels
// last, and planar, channel by channel (the order the dense layers read):
// from cl to planar if toPlanar, else back.
func transposePool(g convGeom, cl []float32, m int, planar []float32, toPlanar bool) {
	C, HW := g.cout, g.hp*g.wp
	for s := range m {
		c0, p0 := cl[s*C*HW:(s+1)*C*HW], planar[s*C*HW:(s+1)*C*HW]
		for i := range HW {
			px := c0[i*C : (i+1)*C]
			if toPlanar {
				for c, v := range px {
					p0[c*HW+i] = v
				}
			} else {
				for c := range px {
					px[c] = p0[c*HW+i]
				}
			}
		}
	}
}
