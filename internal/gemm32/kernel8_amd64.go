package gemm32

// kernel8x32AVX512 computes tiles 8×32 tiles, one under the other, with
// AVX-512F (kernel8_amd64.s): entry (i, p) of the first tile's a block is
// at a + i·ars + p·aps floats (A read in place, transposed or not), the
// second 16 columns of b are boff floats after the first. Each output is
// summed as in kernelAVX2.
//
//go:noescape
func kernel8x32AVX512(k int, a *float32, ars, aps int, b *float32, ldb, boff int, c *float32, ldc, tiles int, acc bool)

// kernel8x16AVX512 is kernel8x32AVX512 for one 16-column panel of b,
// reading and writing only the columns of C in mask (bit j for column j).
//
//go:noescape
func kernel8x16AVX512(k int, a *float32, ars, aps int, b *float32, ldb int, c *float32, ldc, mask int, acc bool)

// kernel16x16AVX512 is kernel8x16AVX512 for tiles tiles of sixteen rows,
// one under the other.
//
//go:noescape
func kernel16x16AVX512(k int, a *float32, ars, aps int, b *float32, ldb int, c *float32, ldc, mask, tiles int, acc bool)
