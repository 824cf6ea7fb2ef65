#include "textflag.h"

// func convPix6x32AVX512(segs *int, nseg int, at *int, src *float32, w *float32, dst *float32, ldd int, mask0, mask1 int, acc bool)
// Six output pixels of a direct convolution, thirty-two output channels,
// each pixel's patch anywhere in the input: pixel r's patch starts at src +
// at[r] floats. segs holds nseg pairs (offset, length) in floats: the runs
// of a depth block's patch positions, each run at its offset from a
// patch's start; w holds, for each position of the runs in order, the
// thirty-two channels' weights. Z4..Z15 accumulate (pixel r in Z(4+2r),
// Z(5+2r)) one FMA per position from zero, the order in which the GEMM
// kernels sum a row of the im2col matrix over a depth block; then each
// pixel's channels 0–15 are stored at dst + r·ldd floats under the low
// sixteen bits of mask0, 16–31 under those of mask1 (without masks where
// both are whole: masked stores are slower), or, with acc, added to the
// values there first (as the GEMM kernels add a later depth block).
TEXT ·convPix6x32AVX512(SB), NOSPLIT, $0-73
	MOVQ at+16(FP), AX
	MOVQ src+24(FP), BX
	MOVQ 0(AX), R8
	LEAQ (BX)(R8*4), R8
	MOVQ 8(AX), R9
	LEAQ (BX)(R9*4), R9
	MOVQ 16(AX), R10
	LEAQ (BX)(R10*4), R10
	MOVQ 24(AX), R11
	LEAQ (BX)(R11*4), R11
	MOVQ 32(AX), R12
	LEAQ (BX)(R12*4), R12
	MOVQ 40(AX), R13
	LEAQ (BX)(R13*4), R13
	MOVQ segs+0(FP), BX
	MOVQ nseg+8(FP), CX
	MOVQ w+32(FP), DI
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
pseg:
	MOVQ 0(BX), AX
	SHLQ $2, AX
	MOVQ 8(BX), DX
pcols:
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VBROADCASTSS (R8)(AX*1), Z2
	VFMADD231PS Z0, Z2, Z4
	VFMADD231PS Z1, Z2, Z5
	VBROADCASTSS (R9)(AX*1), Z3
	VFMADD231PS Z0, Z3, Z6
	VFMADD231PS Z1, Z3, Z7
	VBROADCASTSS (R10)(AX*1), Z2
	VFMADD231PS Z0, Z2, Z8
	VFMADD231PS Z1, Z2, Z9
	VBROADCASTSS (R11)(AX*1), Z3
	VFMADD231PS Z0, Z3, Z10
	VFMADD231PS Z1, Z3, Z11
	VBROADCASTSS (R12)(AX*1), Z2
	VFMADD231PS Z0, Z2, Z12
	VFMADD231PS Z1, Z2, Z13
	VBROADCASTSS (R13)(AX*1), Z3
	VFMADD231PS Z0, Z3, Z14
	VFMADD231PS Z1, Z3, Z15
	ADDQ $4, AX
	ADDQ $128, DI
	DECQ DX
	JNZ pcols
	ADDQ $16, BX
	DECQ CX
	JNZ pseg
	MOVQ dst+40(FP), DX
	MOVQ ldd+48(FP), R8
	SHLQ $2, R8
	MOVQ mask0+56(FP), AX
	KMOVW AX, K1
	MOVQ mask1+64(FP), BX
	KMOVW BX, K2
	ANDQ BX, AX
	MOVBQZX acc+72(FP), BX
	CMPQ AX, $0xffff
	JEQ pfull
	TESTQ BX, BX
	JZ pstore
	VMOVUPS.Z (DX), K1, Z0
	VADDPS Z0, Z4, Z4
	VMOVUPS Z4, K1, (DX)
	VMOVUPS.Z 64(DX), K2, Z1
	VADDPS Z1, Z5, Z5
	VMOVUPS Z5, K2, 64(DX)
	ADDQ R8, DX
	VMOVUPS.Z (DX), K1, Z0
	VADDPS Z0, Z6, Z6
	VMOVUPS Z6, K1, (DX)
	VMOVUPS.Z 64(DX), K2, Z1
	VADDPS Z1, Z7, Z7
	VMOVUPS Z7, K2, 64(DX)
	ADDQ R8, DX
	VMOVUPS.Z (DX), K1, Z0
	VADDPS Z0, Z8, Z8
	VMOVUPS Z8, K1, (DX)
	VMOVUPS.Z 64(DX), K2, Z1
	VADDPS Z1, Z9, Z9
	VMOVUPS Z9, K2, 64(DX)
	ADDQ R8, DX
	VMOVUPS.Z (DX), K1, Z0
	VADDPS Z0, Z10, Z10
	VMOVUPS Z10, K1, (DX)
	VMOVUPS.Z 64(DX), K2, Z1
	VADDPS Z1, Z11, Z11
	VMOVUPS Z11, K2, 64(DX)
	ADDQ R8, DX
	VMOVUPS.Z (DX), K1, Z0
	VADDPS Z0, Z12, Z12
	VMOVUPS Z12, K1, (DX)
	VMOVUPS.Z 64(DX), K2, Z1
	VADDPS Z1, Z13, Z13
	VMOVUPS Z13, K2, 64(DX)
	ADDQ R8, DX
	VMOVUPS.Z (DX), K1, Z0
	VADDPS Z0, Z14, Z14
	VMOVUPS Z14, K1, (DX)
	VMOVUPS.Z 64(DX), K2, Z1
	VADDPS Z1, Z15, Z15
	VMOVUPS Z15, K2, 64(DX)
	VZEROUPPER
	RET

pstore:
	VMOVUPS Z4, K1, (DX)
	VMOVUPS Z5, K2, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z6, K1, (DX)
	VMOVUPS Z7, K2, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z8, K1, (DX)
	VMOVUPS Z9, K2, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z10, K1, (DX)
	VMOVUPS Z11, K2, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z12, K1, (DX)
	VMOVUPS Z13, K2, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z14, K1, (DX)
	VMOVUPS Z15, K2, 64(DX)
	VZEROUPPER
	RET

pfull: // all thirty-two channels: loads and stores without masks
	TESTQ BX, BX
	JZ pfstore
	VADDPS (DX), Z4, Z4
	VMOVUPS Z4, (DX)
	VADDPS 64(DX), Z5, Z5
	VMOVUPS Z5, 64(DX)
	ADDQ R8, DX
	VADDPS (DX), Z6, Z6
	VMOVUPS Z6, (DX)
	VADDPS 64(DX), Z7, Z7
	VMOVUPS Z7, 64(DX)
	ADDQ R8, DX
	VADDPS (DX), Z8, Z8
	VMOVUPS Z8, (DX)
	VADDPS 64(DX), Z9, Z9
	VMOVUPS Z9, 64(DX)
	ADDQ R8, DX
	VADDPS (DX), Z10, Z10
	VMOVUPS Z10, (DX)
	VADDPS 64(DX), Z11, Z11
	VMOVUPS Z11, 64(DX)
	ADDQ R8, DX
	VADDPS (DX), Z12, Z12
	VMOVUPS Z12, (DX)
	VADDPS 64(DX), Z13, Z13
	VMOVUPS Z13, 64(DX)
	ADDQ R8, DX
	VADDPS (DX), Z14, Z14
	VMOVUPS Z14, (DX)
	VADDPS 64(DX), Z15, Z15
	VMOVUPS Z15, 64(DX)
	VZEROUPPER
	RET

pfstore:
	VMOVUPS Z4, (DX)
	VMOVUPS Z5, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z6, (DX)
	VMOVUPS Z7, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z8, (DX)
	VMOVUPS Z9, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z10, (DX)
	VMOVUPS Z11, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z12, (DX)
	VMOVUPS Z13, 64(DX)
	ADDQ R8, DX
	VMOVUPS Z14, (DX)
	VMOVUPS Z15, 64(DX)
	VZEROUPPER
	RET

// func convBack6x32AVX512(terms *int, nterm, n int, at *int, src *float32, w *float32, dst *float32, dat *int, mask0, mask1 int)
// Six pixels of thirty-two channels of a sum of nterm chains (ConvBack):
// terms holds pairs (offset, weights) in floats; for each term in order,
// Z16..Z27 accumulate from zero one FMA per o < n of src[at[r] + offset +
// o] (broadcast) with the thirty-two weights at w + weights + 32·o, the
// order in which the GEMM kernels sum a depth of n, and Z4..Z15 (pixel r
// in Z(4+2r), Z(5+2r), from +0) then add the term's sums, as col2im adds
// the GEMM's outputs. Pixel r's channels 0–15 are stored at dst + dat[r]
// floats under the low sixteen bits of mask0, 16–31 under those of mask1
// (without masks where both are whole).
TEXT ·convBack6x32AVX512(SB), NOSPLIT, $0-80
	MOVQ at+24(FP), AX
	MOVQ src+32(FP), BX
	MOVQ 0(AX), R8
	LEAQ (BX)(R8*4), R8
	MOVQ 8(AX), R9
	LEAQ (BX)(R9*4), R9
	MOVQ 16(AX), R10
	LEAQ (BX)(R10*4), R10
	MOVQ 24(AX), R11
	LEAQ (BX)(R11*4), R11
	MOVQ 32(AX), R12
	LEAQ (BX)(R12*4), R12
	MOVQ 40(AX), R13
	LEAQ (BX)(R13*4), R13
	MOVQ terms+0(FP), BX
	MOVQ nterm+8(FP), CX
	MOVQ w+40(FP), SI
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
bterm:
	MOVQ 0(BX), AX
	SHLQ $2, AX
	MOVQ 8(BX), DI
	LEAQ (SI)(DI*4), DI
	MOVQ n+16(FP), DX
	VXORPS Z16, Z16, Z16
	VXORPS Z17, Z17, Z17
	VXORPS Z18, Z18, Z18
	VXORPS Z19, Z19, Z19
	VXORPS Z20, Z20, Z20
	VXORPS Z21, Z21, Z21
	VXORPS Z22, Z22, Z22
	VXORPS Z23, Z23, Z23
	VXORPS Z24, Z24, Z24
	VXORPS Z25, Z25, Z25
	VXORPS Z26, Z26, Z26
	VXORPS Z27, Z27, Z27
bcols:
	VMOVUPS (DI), Z0
	VMOVUPS 64(DI), Z1
	VBROADCASTSS (R8)(AX*1), Z2
	VFMADD231PS Z0, Z2, Z16
	VFMADD231PS Z1, Z2, Z17
	VBROADCASTSS (R9)(AX*1), Z3
	VFMADD231PS Z0, Z3, Z18
	VFMADD231PS Z1, Z3, Z19
	VBROADCASTSS (R10)(AX*1), Z2
	VFMADD231PS Z0, Z2, Z20
	VFMADD231PS Z1, Z2, Z21
	VBROADCASTSS (R11)(AX*1), Z3
	VFMADD231PS Z0, Z3, Z22
	VFMADD231PS Z1, Z3, Z23
	VBROADCASTSS (R12)(AX*1), Z2
	VFMADD231PS Z0, Z2, Z24
	VFMADD231PS Z1, Z2, Z25
	VBROADCASTSS (R13)(AX*1), Z3
	VFMADD231PS Z0, Z3, Z26
	VFMADD231PS Z1, Z3, Z27
	ADDQ $4, AX
	ADDQ $128, DI
	DECQ DX
	JNZ bcols
	VADDPS Z16, Z4, Z4
	VADDPS Z17, Z5, Z5
	VADDPS Z18, Z6, Z6
	VADDPS Z19, Z7, Z7
	VADDPS Z20, Z8, Z8
	VADDPS Z21, Z9, Z9
	VADDPS Z22, Z10, Z10
	VADDPS Z23, Z11, Z11
	VADDPS Z24, Z12, Z12
	VADDPS Z25, Z13, Z13
	VADDPS Z26, Z14, Z14
	VADDPS Z27, Z15, Z15
	ADDQ $16, BX
	DECQ CX
	JNZ bterm
	MOVQ dst+48(FP), DX
	MOVQ dat+56(FP), BX
	MOVQ mask0+64(FP), AX
	KMOVW AX, K1
	MOVQ mask1+72(FP), CX
	KMOVW CX, K2
	ANDQ CX, AX
	CMPQ AX, $0xffff
	JEQ bfull
	MOVQ 0(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z4, K1, (AX)
	VMOVUPS Z5, K2, 64(AX)
	MOVQ 8(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z6, K1, (AX)
	VMOVUPS Z7, K2, 64(AX)
	MOVQ 16(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z8, K1, (AX)
	VMOVUPS Z9, K2, 64(AX)
	MOVQ 24(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z10, K1, (AX)
	VMOVUPS Z11, K2, 64(AX)
	MOVQ 32(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z12, K1, (AX)
	VMOVUPS Z13, K2, 64(AX)
	MOVQ 40(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z14, K1, (AX)
	VMOVUPS Z15, K2, 64(AX)
	VZEROUPPER
	RET

bfull: // all thirty-two channels: stores without masks
	MOVQ 0(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z4, (AX)
	VMOVUPS Z5, 64(AX)
	MOVQ 8(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z6, (AX)
	VMOVUPS Z7, 64(AX)
	MOVQ 16(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z8, (AX)
	VMOVUPS Z9, 64(AX)
	MOVQ 24(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z10, (AX)
	VMOVUPS Z11, 64(AX)
	MOVQ 32(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z12, (AX)
	VMOVUPS Z13, 64(AX)
	MOVQ 40(BX), AX
	LEAQ (DX)(AX*4), AX
	VMOVUPS Z14, (AX)
	VMOVUPS Z15, 64(AX)
	VZEROUPPER
	RET
