// Package hugepages allocates large numeric arrays that the kernel may back
// with 2 MiB pages instead of 4 KiB ones. Generating a dataset writes every
// page of its feature matrix once, and on a virtual machine each first
// write of a 4 KiB page is a costly fault; a huge page takes one fault for
// 512 of them, and fewer TLB misses when rows are later read in random
// order. The hint changes no value: where the kernel has no huge pages to
// give (transparent huge pages set to "never", memory fragmented, another
// system), the memory is ordinary.
package hugepages

// minBytes is the smallest allocation worth the hint (two huge pages).
const minBytes = 4 << 20

// Floats returns n zeroed float64s, hinted for huge pages when they span at
// least 4 MiB (see the package comment).
func Floats(n int) []float64 {
	x := make([]float64, n)
	if n*8 >= minBytes {
		advise(x)
	}
	return x
}
