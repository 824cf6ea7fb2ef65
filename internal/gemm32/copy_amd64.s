#include "textflag.h"

// func copyRowsAVX512(dst *float32, ds int, src *float32, ss, rows, n int, mask int)
// Row after row: dst[i] = src[i] for i < n, sixteen at a time, the last
// n mod 16 under the low bits of mask (K1).
TEXT ·copyRowsAVX512(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ ds+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ ss+24(FP), R9
	MOVQ rows+32(FP), CX
	MOVQ n+40(FP), R10
	MOVQ mask+48(FP), AX
	KMOVW AX, K1
	SHLQ $2, R8
	SHLQ $2, R9
	MOVQ R10, R11
	SHRQ $4, R11 // whole blocks of sixteen
	ANDQ $15, R10 // the rest
crow:
	MOVQ DI, DX
	MOVQ SI, BX
	MOVQ R11, AX
	TESTQ AX, AX
	JZ ctail
cblock:
	VMOVUPS (BX), Z0
	VMOVUPS Z0, (DX)
	ADDQ $64, DX
	ADDQ $64, BX
	DECQ AX
	JNZ cblock
ctail:
	TESTQ R10, R10
	JZ cnext
	VMOVUPS.Z (BX), K1, Z0
	VMOVUPS Z0, K1, (DX)
cnext:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ crow
	VZEROUPPER
	RET
