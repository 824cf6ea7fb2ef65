package losses

import "github.com/fedlab/fedlab/internal/gemm32"

// backClass is a class of input pixels of a convolution whose gradient
// terms come from the same kernel positions (the output pixels that
// exist): for every input row in rows and column in cols.
type backClass struct {
	terms   []int // pairs (offset in the output gradient from a pixel's at, kernel position), in col2im32's order
	at, dat []int // per pixel, cnnChunk samples one after the other: the offset of its output pixel (y+p, x+p) in the output gradient (possibly outside it), of its channels in the input gradient
	per     int   // pixels per sample
}

// backClasses splits layer g's input pixels into classes by the kernel
// positions (i, j) whose output pixel (y+p−i, x+p−j) exists, and lists
// each class's terms in the order col2im32 adds them to a pixel: kernel
// rows from the last, then columns from the last (the output pixels in
// order).
func backClasses(g convGeom) []backClass {
	span := func(v, n int) [2]int { return [2]int{max(0, v+g.p-n+1), min(g.k-1, v+g.p)} } // the kernel rows (columns) of input row (column) v
	group := func(size, n int) (spans [][2]int, members [][]int) {
		for v := range size {
			s := span(v, n)
			k := 0
			for k < len(spans) && spans[k] != s {
				k++
			}
			if k == len(spans) {
				spans, members = append(spans, s), append(members, nil)
			}
			members[k] = append(members[k], v)
		}
		return spans, members
	}
	rowSpans, rows := group(g.h, g.ho)
	colSpans, cols := group(g.w, g.wo)
	var classes []backClass
	for a, rs := range rowSpans {
		for b, cs := range colSpans {
			c := backClass{per: len(rows[a]) * len(cols[b])}
			for i := rs[1]; i >= rs[0]; i-- {
				for j := cs[1]; j >= cs[0]; j-- {
					c.terms = append(c.terms, -(i*g.wo+j)*g.cout, i*g.k+j)
				}
			}
			for s := range cnnChunk {
				for _, y := range rows[a] {
					for _, x := range cols[b] {
						c.at = append(c.at, (s*g.ho*g.wo+(y+g.p)*g.wo+x+g.p)*g.cout)
						c.dat = append(c.dat, (s*g.h*g.w+y*g.w+x)*g.cin)
					}
				}
			}
			classes = append(classes, c)
		}
	}
	return classes
}

// inputGradBack overwrites din with the input gradient of the m samples'
// output gradient dout at layer g with kernel w, class by class
// (gemm32.ConvBack), bit-identical to the product dout·w and col2im32.
func inputGradBack(c *gemm32.ConvBack, g convGeom, w, dout []float32, m int, din []float32, classes []backClass) {
	c.Load(w, g.cout, g.k*g.k, g.cin)
	for _, cl := range classes {
		n := m * cl.per
		c.Sums(cl.at[:n], cl.dat[:n], cl.terms, dout, din)
	}
}

// convBackOff makes the layers with a ConvBack compute their input
// gradient through the product and col2im32 (tests compare the two ways).
var convBackOff = false

// backConv reports whether layer g (not the first) computes its input
// gradient with gemm32.ConvBack: the implicit layers (implicitConv) where
// ConvBack has an assembly kernel (AVX-512) and the output channels fit
// one depth block. The choice depends on the shape and the CPU's kernels
// only, and either way gives the same bits.
func backConv(g convGeom) bool {
	return !convBackOff && implicitConv(g) && gemm32.BackKernel() && g.cout <= gemm32.ConvDepth
}
