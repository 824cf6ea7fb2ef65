package gemm32

// convPix6x32AVX512 computes six output pixels of at most thirty-two
// channels of a direct convolution, each pixel's patch at its own offset,
// over one depth block's runs of patch positions (Conv.Pixels,
// convpix_amd64.s).
//
//go:noescape
func convPix6x32AVX512(segs *int, nseg int, at *int, src *float32, w *float32, dst *float32, ldd int, mask0, mask1 int, acc bool)

// convBack6x32AVX512 computes six pixels of at most thirty-two channels
// of a sum of chains, each pixel's terms and output at its own offsets
// (ConvBack.Sums, convpix_amd64.s).
//
//go:noescape
func convBack6x32AVX512(terms *int, nterm, n int, at *int, src *float32, w *float32, dst *float32, dat *int, mask0, mask1 int)
