#include "textflag.h"

// func convGrad9x32AVX512(n int, src *float32, xs, rowoff int, dg *float32, ldg int, mask0, mask1 int, s *float32, rows, skip int)
// Adds, to nine patch positions of a kernel gradient and thirty-two output
// channels, the terms of n output pixels (rows runs of n, each run's first
// patch skip floats after the end of the run before): three groups of three
// consecutive inputs rowoff floats apart (position 3g + p at src + r·xs +
// g·rowoff + p for pixel r: 3 for nine consecutive positions of a patch
// row, a row stride for three kernel rows of three). Position q's channels
// 0–15 are in Z(4+2q), 16–31 in Z(5+2q), loaded from the 9×32 tile s and
// stored back; for each position, in order of the pixels, one FMA of each
// half's output gradients at dg + r·ldg floats (loaded under the low
// sixteen bits of mask0 and mask1, zero elsewhere) with the position's
// input broadcast: the order in which the GEMM kernels sum the kernel
// gradient's depth.
TEXT ·convGrad9x32AVX512(SB), NOSPLIT, $0-88
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ xs+16(FP), R9
	SHLQ $2, R9
	MOVQ rowoff+24(FP), AX
	LEAQ (SI)(AX*4), R12
	LEAQ (R12)(AX*4), R8
	MOVQ dg+32(FP), DI
	MOVQ ldg+40(FP), R11
	SHLQ $2, R11
	MOVQ mask0+48(FP), AX
	KMOVW AX, K1
	MOVQ mask1+56(FP), AX
	KMOVW AX, K2
	MOVQ s+64(FP), DX
	VMOVUPS 0(DX), Z4
	VMOVUPS 64(DX), Z5
	VMOVUPS 128(DX), Z6
	VMOVUPS 192(DX), Z7
	VMOVUPS 256(DX), Z8
	VMOVUPS 320(DX), Z9
	VMOVUPS 384(DX), Z10
	VMOVUPS 448(DX), Z11
	VMOVUPS 512(DX), Z12
	VMOVUPS 576(DX), Z13
	VMOVUPS 640(DX), Z14
	VMOVUPS 704(DX), Z15
	VMOVUPS 768(DX), Z16
	VMOVUPS 832(DX), Z17
	VMOVUPS 896(DX), Z18
	VMOVUPS 960(DX), Z19
	VMOVUPS 1024(DX), Z20
	VMOVUPS 1088(DX), Z21
	MOVQ rows+72(FP), R13
	MOVQ skip+80(FP), R14
	SHLQ $2, R14
	MOVQ CX, R10
g9pix:
	VMOVUPS.Z (DI), K1, Z0
	VMOVUPS.Z 64(DI), K2, Z1
	VBROADCASTSS 0(SI), Z22
	VFMADD231PS Z0, Z22, Z4
	VFMADD231PS Z1, Z22, Z5
	VBROADCASTSS 4(SI), Z23
	VFMADD231PS Z0, Z23, Z6
	VFMADD231PS Z1, Z23, Z7
	VBROADCASTSS 8(SI), Z24
	VFMADD231PS Z0, Z24, Z8
	VFMADD231PS Z1, Z24, Z9
	VBROADCASTSS 0(R12), Z25
	VFMADD231PS Z0, Z25, Z10
	VFMADD231PS Z1, Z25, Z11
	VBROADCASTSS 4(R12), Z26
	VFMADD231PS Z0, Z26, Z12
	VFMADD231PS Z1, Z26, Z13
	VBROADCASTSS 8(R12), Z27
	VFMADD231PS Z0, Z27, Z14
	VFMADD231PS Z1, Z27, Z15
	VBROADCASTSS 0(R8), Z28
	VFMADD231PS Z0, Z28, Z16
	VFMADD231PS Z1, Z28, Z17
	VBROADCASTSS 4(R8), Z29
	VFMADD231PS Z0, Z29, Z18
	VFMADD231PS Z1, Z29, Z19
	VBROADCASTSS 8(R8), Z30
	VFMADD231PS Z0, Z30, Z20
	VFMADD231PS Z1, Z30, Z21
	ADDQ R9, SI
	ADDQ R9, R12
	ADDQ R9, R8
	ADDQ R11, DI
	DECQ CX
	JNZ g9pix
	ADDQ R14, SI
	ADDQ R14, R12
	ADDQ R14, R8
	MOVQ R10, CX
	DECQ R13
	JNZ g9pix
	VMOVUPS Z4, 0(DX)
	VMOVUPS Z5, 64(DX)
	VMOVUPS Z6, 128(DX)
	VMOVUPS Z7, 192(DX)
	VMOVUPS Z8, 256(DX)
	VMOVUPS Z9, 320(DX)
	VMOVUPS Z10, 384(DX)
	VMOVUPS Z11, 448(DX)
	VMOVUPS Z12, 512(DX)
	VMOVUPS Z13, 576(DX)
	VMOVUPS Z14, 640(DX)
	VMOVUPS Z15, 704(DX)
	VMOVUPS Z16, 768(DX)
	VMOVUPS Z17, 832(DX)
	VMOVUPS Z18, 896(DX)
	VMOVUPS Z19, 960(DX)
	VMOVUPS Z20, 1024(DX)
	VMOVUPS Z21, 1088(DX)
	VZEROUPPER
	RET

// patch25Idx are the lane indices (VPERMT2PS) that gather a 5×5 patch from
// its five rows (eight floats each, two to a register): positions 0–15
// from rows 0–1 and 2–3, then positions 16–24 from rows 2–3 and 4.
DATA patch25Idx<>+0(SB)/8, $0x0000000100000000
DATA patch25Idx<>+8(SB)/8, $0x0000000300000002
DATA patch25Idx<>+16(SB)/8, $0x0000000800000004
DATA patch25Idx<>+24(SB)/8, $0x0000000a00000009
DATA patch25Idx<>+32(SB)/8, $0x0000000c0000000b
DATA patch25Idx<>+40(SB)/8, $0x0000001100000010
DATA patch25Idx<>+48(SB)/8, $0x0000001300000012
DATA patch25Idx<>+56(SB)/8, $0x0000001800000014
DATA patch25Idx<>+64(SB)/8, $0x0000000a00000009
DATA patch25Idx<>+72(SB)/8, $0x0000000c0000000b
DATA patch25Idx<>+80(SB)/8, $0x0000001100000010
DATA patch25Idx<>+88(SB)/8, $0x0000001300000012
DATA patch25Idx<>+96(SB)/8, $0x0000001000000014
DATA patch25Idx<>+104(SB)/8, $0x0000001000000010
DATA patch25Idx<>+112(SB)/8, $0x0000001000000010
DATA patch25Idx<>+120(SB)/8, $0x0000001000000010
GLOBL patch25Idx<>(SB), RODATA|NOPTR, $128

// func convGrad25x8AVX512(n int, src *float32, xs, rowoff int, dg *float32, ldg int, cout int, s *float32, rows, skip int)
// Adds, to the 25 positions of a 5×5 patch (five kernel rows of five
// consecutive inputs, rowoff floats apart) and cout ≤ 8 output channels,
// the terms of n output pixels (rows runs as convGrad9x32AVX512), the
// positions in the lanes: per pixel, Z0 holds positions 0–15 and Z1
// positions 16–24, gathered (patch25Idx) from eight floats at the start
// of each of the five rows (three past a row's five are read but unused;
// ConvSlack covers them after the last row), and channel o's
// positions are in Z(8+2o) and Z(9+2o), loaded from and stored back to
// s + 32·o floats; for each channel, in order of the pixels, one FMA of
// the positions' inputs with the channel's output gradient at dg + r·ldg
// floats broadcast (no other channel is read): the order in which the GEMM
// kernels sum the kernel gradient's depth.
TEXT ·convGrad25x8AVX512(SB), NOSPLIT, $0-80
	MOVQ n+0(FP), CX
	MOVQ src+8(FP), SI
	MOVQ xs+16(FP), R9
	SHLQ $2, R9
	MOVQ rowoff+24(FP), AX
	SHLQ $2, AX
	LEAQ (AX)(AX*2), R15
	MOVQ dg+32(FP), DI
	MOVQ ldg+40(FP), R11
	SHLQ $2, R11
	MOVQ cout+48(FP), BX
	MOVQ s+56(FP), DX
	VMOVDQU32 patch25Idx<>+0(SB), Z28
	VMOVDQU32 patch25Idx<>+64(SB), Z29
	VMOVUPS 0(DX), Z8
	VMOVUPS 64(DX), Z9
	VMOVUPS 128(DX), Z10
	VMOVUPS 192(DX), Z11
	VMOVUPS 256(DX), Z12
	VMOVUPS 320(DX), Z13
	VMOVUPS 384(DX), Z14
	VMOVUPS 448(DX), Z15
	VMOVUPS 512(DX), Z16
	VMOVUPS 576(DX), Z17
	VMOVUPS 640(DX), Z18
	VMOVUPS 704(DX), Z19
	VMOVUPS 768(DX), Z20
	VMOVUPS 832(DX), Z21
	VMOVUPS 896(DX), Z22
	VMOVUPS 960(DX), Z23
	MOVQ rows+64(FP), R13
	MOVQ skip+72(FP), R14
	SHLQ $2, R14
	MOVQ CX, R10
g25pix:
	VMOVUPS (SI), Y0
	VINSERTF64X4 $1, (SI)(AX*1), Z0, Z0
	VMOVUPS (SI)(AX*2), Y1
	VINSERTF64X4 $1, (SI)(R15*1), Z1, Z1
	VMOVUPS (SI)(AX*4), Y2
	VPERMT2PS Z1, Z28, Z0
	VPERMT2PS Z2, Z29, Z1
	VBROADCASTSS 0(DI), Z2
	VFMADD231PS Z0, Z2, Z8
	VFMADD231PS Z1, Z2, Z9
	CMPQ BX, $1
	JEQ g25next
	VBROADCASTSS 4(DI), Z3
	VFMADD231PS Z0, Z3, Z10
	VFMADD231PS Z1, Z3, Z11
	CMPQ BX, $2
	JEQ g25next
	VBROADCASTSS 8(DI), Z4
	VFMADD231PS Z0, Z4, Z12
	VFMADD231PS Z1, Z4, Z13
	CMPQ BX, $3
	JEQ g25next
	VBROADCASTSS 12(DI), Z5
	VFMADD231PS Z0, Z5, Z14
	VFMADD231PS Z1, Z5, Z15
	CMPQ BX, $4
	JEQ g25next
	VBROADCASTSS 16(DI), Z6
	VFMADD231PS Z0, Z6, Z16
	VFMADD231PS Z1, Z6, Z17
	CMPQ BX, $5
	JEQ g25next
	VBROADCASTSS 20(DI), Z7
	VFMADD231PS Z0, Z7, Z18
	VFMADD231PS Z1, Z7, Z19
	CMPQ BX, $6
	JEQ g25next
	VBROADCASTSS 24(DI), Z2
	VFMADD231PS Z0, Z2, Z20
	VFMADD231PS Z1, Z2, Z21
	CMPQ BX, $7
	JEQ g25next
	VBROADCASTSS 28(DI), Z3
	VFMADD231PS Z0, Z3, Z22
	VFMADD231PS Z1, Z3, Z23
g25next:
	ADDQ R9, SI
	ADDQ R11, DI
	DECQ CX
	JNZ g25pix
	ADDQ R14, SI
	MOVQ R10, CX
	DECQ R13
	JNZ g25pix
	VMOVUPS Z8, 0(DX)
	VMOVUPS Z9, 64(DX)
	VMOVUPS Z10, 128(DX)
	VMOVUPS Z11, 192(DX)
	VMOVUPS Z12, 256(DX)
	VMOVUPS Z13, 320(DX)
	VMOVUPS Z14, 384(DX)
	VMOVUPS Z15, 448(DX)
	VMOVUPS Z16, 512(DX)
	VMOVUPS Z17, 576(DX)
	VMOVUPS Z18, 640(DX)
	VMOVUPS Z19, 704(DX)
	VMOVUPS Z20, 768(DX)
	VMOVUPS Z21, 832(DX)
	VMOVUPS Z22, 896(DX)
	VMOVUPS Z23, 960(DX)
	VZEROUPPER
	RET

// func addTransposedAVX512(gw *float32, ldg int, s *float32, lds, npos, nch int)
// Adds the npos × nch block at s (npos ≤ 16 rows of nch ≤ 16 floats, lds
// floats apart; sixteen floats of each row are read) transposed to the
// nch × npos block at gw (rows ldg floats apart): gw[o·ldg + q] +=
// s[q·lds + o], one addition each. Z0..Z15 take the rows (zero past
// npos), a 16×16 transpose in four rounds of shuffles leaves channel o's
// values in Z(o), added to gw's row under the low npos bits of K1.
TEXT ·addTransposedAVX512(SB), NOSPLIT, $0-48
	MOVQ gw+0(FP), DI
	MOVQ ldg+8(FP), R9
	SHLQ $2, R9
	MOVQ s+16(FP), SI
	MOVQ lds+24(FP), R8
	SHLQ $2, R8
	MOVQ npos+32(FP), CX
	MOVQ nch+40(FP), BX
	VXORPS Z0, Z0, Z0
	VXORPS Z1, Z1, Z1
	VXORPS Z2, Z2, Z2
	VXORPS Z3, Z3, Z3
	VXORPS Z4, Z4, Z4
	VXORPS Z5, Z5, Z5
	VXORPS Z6, Z6, Z6
	VXORPS Z7, Z7, Z7
	VXORPS Z8, Z8, Z8
	VXORPS Z9, Z9, Z9
	VXORPS Z10, Z10, Z10
	VXORPS Z11, Z11, Z11
	VXORPS Z12, Z12, Z12
	VXORPS Z13, Z13, Z13
	VXORPS Z14, Z14, Z14
	VXORPS Z15, Z15, Z15
	VMOVUPS (SI), Z0
	ADDQ R8, SI
	CMPQ CX, $1
	JEQ trloaded
	VMOVUPS (SI), Z1
	ADDQ R8, SI
	CMPQ CX, $2
	JEQ trloaded
	VMOVUPS (SI), Z2
	ADDQ R8, SI
	CMPQ CX, $3
	JEQ trloaded
	VMOVUPS (SI), Z3
	ADDQ R8, SI
	CMPQ CX, $4
	JEQ trloaded
	VMOVUPS (SI), Z4
	ADDQ R8, SI
	CMPQ CX, $5
	JEQ trloaded
	VMOVUPS (SI), Z5
	ADDQ R8, SI
	CMPQ CX, $6
	JEQ trloaded
	VMOVUPS (SI), Z6
	ADDQ R8, SI
	CMPQ CX, $7
	JEQ trloaded
	VMOVUPS (SI), Z7
	ADDQ R8, SI
	CMPQ CX, $8
	JEQ trloaded
	VMOVUPS (SI), Z8
	ADDQ R8, SI
	CMPQ CX, $9
	JEQ trloaded
	VMOVUPS (SI), Z9
	ADDQ R8, SI
	CMPQ CX, $10
	JEQ trloaded
	VMOVUPS (SI), Z10
	ADDQ R8, SI
	CMPQ CX, $11
	JEQ trloaded
	VMOVUPS (SI), Z11
	ADDQ R8, SI
	CMPQ CX, $12
	JEQ trloaded
	VMOVUPS (SI), Z12
	ADDQ R8, SI
	CMPQ CX, $13
	JEQ trloaded
	VMOVUPS (SI), Z13
	ADDQ R8, SI
	CMPQ CX, $14
	JEQ trloaded
	VMOVUPS (SI), Z14
	ADDQ R8, SI
	CMPQ CX, $15
	JEQ trloaded
	VMOVUPS (SI), Z15
trloaded:
	VUNPCKLPS Z1, Z0, Z16
	VUNPCKHPS Z1, Z0, Z17
	VUNPCKLPS Z3, Z2, Z18
	VUNPCKHPS Z3, Z2, Z19
	VUNPCKLPS Z5, Z4, Z20
	VUNPCKHPS Z5, Z4, Z21
	VUNPCKLPS Z7, Z6, Z22
	VUNPCKHPS Z7, Z6, Z23
	VUNPCKLPS Z9, Z8, Z24
	VUNPCKHPS Z9, Z8, Z25
	VUNPCKLPS Z11, Z10, Z26
	VUNPCKHPS Z11, Z10, Z27
	VUNPCKLPS Z13, Z12, Z28
	VUNPCKHPS Z13, Z12, Z29
	VUNPCKLPS Z15, Z14, Z30
	VUNPCKHPS Z15, Z14, Z31
	VUNPCKLPD Z18, Z16, Z0
	VUNPCKHPD Z18, Z16, Z1
	VUNPCKLPD Z19, Z17, Z2
	VUNPCKHPD Z19, Z17, Z3
	VUNPCKLPD Z22, Z20, Z4
	VUNPCKHPD Z22, Z20, Z5
	VUNPCKLPD Z23, Z21, Z6
	VUNPCKHPD Z23, Z21, Z7
	VUNPCKLPD Z26, Z24, Z8
	VUNPCKHPD Z26, Z24, Z9
	VUNPCKLPD Z27, Z25, Z10
	VUNPCKHPD Z27, Z25, Z11
	VUNPCKLPD Z30, Z28, Z12
	VUNPCKHPD Z30, Z28, Z13
	VUNPCKLPD Z31, Z29, Z14
	VUNPCKHPD Z31, Z29, Z15
	VSHUFF32X4 $0x88, Z4, Z0, Z16
	VSHUFF32X4 $0xdd, Z4, Z0, Z20
	VSHUFF32X4 $0x88, Z5, Z1, Z17
	VSHUFF32X4 $0xdd, Z5, Z1, Z21
	VSHUFF32X4 $0x88, Z6, Z2, Z18
	VSHUFF32X4 $0xdd, Z6, Z2, Z22
	VSHUFF32X4 $0x88, Z7, Z3, Z19
	VSHUFF32X4 $0xdd, Z7, Z3, Z23
	VSHUFF32X4 $0x88, Z12, Z8, Z24
	VSHUFF32X4 $0xdd, Z12, Z8, Z28
	VSHUFF32X4 $0x88, Z13, Z9, Z25
	VSHUFF32X4 $0xdd, Z13, Z9, Z29
	VSHUFF32X4 $0x88, Z14, Z10, Z26
	VSHUFF32X4 $0xdd, Z14, Z10, Z30
	VSHUFF32X4 $0x88, Z15, Z11, Z27
	VSHUFF32X4 $0xdd, Z15, Z11, Z31
	VSHUFF32X4 $0x88, Z24, Z16, Z0
	VSHUFF32X4 $0xdd, Z24, Z16, Z8
	VSHUFF32X4 $0x88, Z25, Z17, Z1
	VSHUFF32X4 $0xdd, Z25, Z17, Z9
	VSHUFF32X4 $0x88, Z26, Z18, Z2
	VSHUFF32X4 $0xdd, Z26, Z18, Z10
	VSHUFF32X4 $0x88, Z27, Z19, Z3
	VSHUFF32X4 $0xdd, Z27, Z19, Z11
	VSHUFF32X4 $0x88, Z28, Z20, Z4
	VSHUFF32X4 $0xdd, Z28, Z20, Z12
	VSHUFF32X4 $0x88, Z29, Z21, Z5
	VSHUFF32X4 $0xdd, Z29, Z21, Z13
	VSHUFF32X4 $0x88, Z30, Z22, Z6
	VSHUFF32X4 $0xdd, Z30, Z22, Z14
	VSHUFF32X4 $0x88, Z31, Z23, Z7
	VSHUFF32X4 $0xdd, Z31, Z23, Z15
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z0, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $1
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z1, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $2
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z2, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $3
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z3, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $4
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z4, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $5
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z5, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $6
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z6, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $7
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z7, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $8
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z8, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $9
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z9, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $10
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z10, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $11
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z11, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $12
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z12, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $13
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z13, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $14
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z14, Z16, Z16
	VMOVUPS Z16, K1, (DI)
	ADDQ R9, DI
	CMPQ BX, $15
	JEQ trdone
	VMOVUPS.Z (DI), K1, Z16
	VADDPS Z15, Z16, Z16
	VMOVUPS Z16, K1, (DI)
trdone:
	VZEROUPPER
	RET
