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
