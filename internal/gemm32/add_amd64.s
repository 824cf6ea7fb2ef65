#include "textflag.h"

// func addAVX2(dst, src *float32, n int)
// dst[i] = dst[i] + src[i] for i < n (a multiple of 8), eight at a time.
TEXT ·addAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX
addloop:
	VMOVUPS (DI), Y0
	VADDPS (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNZ addloop
	VZEROUPPER
	RET

// func addRowsAVX2(dst *float32, ds int, src *float32, ss, rows, n int, mask *int32)
// Row after row: dst[i] = dst[i] + src[i] for i < n, eight at a time, the
// last n mod 8 under the mask (Y1).
TEXT ·addRowsAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ ds+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ ss+24(FP), R9
	MOVQ rows+32(FP), CX
	MOVQ n+40(FP), R10
	MOVQ mask+48(FP), AX
	VMOVDQU (AX), Y1
	SHLQ $2, R8
	SHLQ $2, R9
	MOVQ R10, R11
	SHRQ $3, R11 // whole blocks of eight
	ANDQ $7, R10 // the rest
rowloop:
	MOVQ DI, DX
	MOVQ SI, BX
	MOVQ R11, AX
	TESTQ AX, AX
	JZ tail
blockloop:
	VMOVUPS (DX), Y0
	VADDPS (BX), Y0, Y0
	VMOVUPS Y0, (DX)
	ADDQ $32, DX
	ADDQ $32, BX
	DECQ AX
	JNZ blockloop
tail:
	TESTQ R10, R10
	JZ nextrow
	VMASKMOVPS (DX), Y1, Y0
	VMASKMOVPS (BX), Y1, Y2
	VADDPS Y2, Y0, Y0
	VMASKMOVPS Y0, Y1, (DX)
nextrow:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ CX
	JNZ rowloop
	VZEROUPPER
	RET
