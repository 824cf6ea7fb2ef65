package gemm32

import "golang.org/x/sys/cpu"

// kernelSets lists the kernel sets this CPU can run, widest first:
// AVX-512F (8-row kernels reading A in place, 6×32 kernels, and the
// AVX2/FMA kernels for the other single 16-column panels), AVX2/FMA, plain
// Go.
func kernelSets() []kernelSet {
	avx2 := kernelSet{name: "avx2", packed: kernelAVX2, direct: kernelDirectAVX2, conv8: convRow12x8AVX2, conv16: convRow6x16AVX2, grad8: convGrad12x8AVX2, grad16: convGrad6x16AVX2}
	var sets []kernelSet
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA {
		if cpu.X86.HasAVX512F {
			wide := avx2
			wide.name, wide.wide, wide.wideDirect = "avx512", kernelWideAVX512, kernelWideDirectAVX512
			wide.wide8, wide.narrow8, wide.narrow16 = kernel8x32AVX512, kernel8x16AVX512, kernel16x16AVX512
			wide.convZ8, wide.convZ16, wide.convZ32, wide.gradZ16 = convRow18x8AVX512, convRow8x16AVX512, convRow6x32AVX512, convGrad12x16AVX512
			wide.grad8, wide.convZ10, wide.grad8x30, wide.convZ8x16, wide.gradZ15 = convGrad12x8AVX512, convRow10x16AVX512, convGrad30x8AVX512, convRow16x8AVX512, convGrad15x16AVX512
			wide.gradZ9, wide.gradZ25 = convGrad9x32AVX512, convGrad25x8AVX512
			wide.convP32, wide.convB32 = convPix6x32AVX512, convBack6x32AVX512
			sets = append(sets, wide)
		}
		sets = append(sets, avx2)
	}
	return append(sets, goKernels)
}

// kernelAVX2 is kernelGo in AVX2/FMA assembly (kernel_amd64.s).
//
//go:noescape
func kernelAVX2(k int, a, b *float32, ldb int, c *float32, ldc int, acc bool)

// kernelDirectAVX2 is kernelDirectGo in AVX2/FMA assembly (kernel_amd64.s).
//
//go:noescape
func kernelDirectAVX2(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, acc bool)

// kernelWideAVX512 computes a 6×32 tile, two kernelAVX2 tiles, with
// AVX-512F (kernel_amd64.s); the second 16 columns of b are boff floats
// after the first.
//
//go:noescape
func kernelWideAVX512(k int, a, b *float32, ldb, boff int, c *float32, ldc int, acc bool)

// kernelWideDirectAVX512 is kernelWideAVX512 with the a rows read in place
// (as kernelDirectAVX2).
//
//go:noescape
func kernelWideDirectAVX512(k int, a *float32, lda int, b *float32, ldb, boff int, c *float32, ldc int, acc bool)

// convRow12x8AVX2 computes twelve output pixels of at most eight channels
// of a direct convolution (Conv.Row) with AVX2/FMA (conv_amd64.s).
//
//go:noescape
func convRow12x8AVX2(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask *int32, spill bool)

// convRow6x16AVX2 computes six output pixels of at most sixteen channels
// of a direct convolution (Conv.Row) with AVX2/FMA (conv_amd64.s).
//
//go:noescape
func convRow6x16AVX2(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask0, mask1 *int32, full bool)

// convRow8x16AVX512 computes eight output pixels of at most sixteen
// channels of a direct convolution (Conv.Row) with AVX-512F
// (conv_amd64.s).
//
//go:noescape
func convRow8x16AVX512(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask int)

// convRow6x32AVX512 computes six output pixels of at most thirty-two
// channels of a direct convolution (Conv.Row) with AVX-512F
// (conv_amd64.s).
//
//go:noescape
func convRow6x32AVX512(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask0, mask1 int)

// convGrad12x8AVX2 adds n pixels' terms to a 12×8 tile of a kernel
// gradient (Conv.AddGrad) with AVX2/FMA (conv_amd64.s).
//
//go:noescape
func convGrad12x8AVX2(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask *int32, s *float32, rows, skip int)

// convGrad6x16AVX2 adds n pixels' terms to a 6×16 tile of a kernel
// gradient (Conv.AddGrad) with AVX2/FMA (conv_amd64.s).
//
//go:noescape
func convGrad6x16AVX2(n int, src *float32, xs int, dg *float32, ldg int, mask0, mask1 *int32, s *float32, rows, skip int)

// convGrad12x16AVX512 adds n pixels' terms to a 12×16 tile of a kernel
// gradient (Conv.AddGrad) with AVX-512F (conv_amd64.s).
//
//go:noescape
func convGrad12x16AVX512(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask int, s *float32, rows, skip int)

// convRow18x8AVX512 computes eighteen pixels of at most eight channels of
// a direct convolution's row, two pixels to a register (conv_amd64.s).
//
//go:noescape
func convRow18x8AVX512(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask int)

// convGrad12x8AVX512 is convGrad12x8AVX2 with AVX-512F, two patch
// positions to a register (conv_amd64.s).
//
//go:noescape
func convGrad12x8AVX512(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask *int32, s *float32, rows, skip int)

// convRow10x16AVX512 computes ten pixels of at most sixteen channels of a
// direct convolution's row (conv_amd64.s).
//
//go:noescape
func convRow10x16AVX512(kh, kc int, src *float32, xs, line int, w *float32, dst *float32, ldd int, mask int)

// convGrad30x8AVX512 is convGrad12x8AVX512 for thirty patch positions,
// five kernel rows of six (conv_amd64.s).
//
//go:noescape
func convGrad30x8AVX512(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask *int32, s *float32, rows, skip int)

// convRow16x8AVX512 computes sixteen pixels of at most eight channels of
// a direct convolution's row of one input channel (consecutive patches),
// two pixels to a register (conv_amd64.s).
//
//go:noescape
func convRow16x8AVX512(kh, kc int, src *float32, line int, w *float32, dst *float32, ldd int, mask int)

// convGrad15x16AVX512 adds n pixels' terms to a 15×16 tile of a kernel
// gradient (Conv.AddGrad): three groups of five positions (conv_amd64.s).
//
//go:noescape
func convGrad15x16AVX512(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask int, s *float32, rows, skip int)
