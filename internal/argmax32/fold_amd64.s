#include "textflag.h"

// iota8 is 0, 1, …, 7 as int32.
DATA iota8<>+0(SB)/4, $0
DATA iota8<>+4(SB)/4, $1
DATA iota8<>+8(SB)/4, $2
DATA iota8<>+12(SB)/4, $3
DATA iota8<>+16(SB)/4, $4
DATA iota8<>+20(SB)/4, $5
DATA iota8<>+24(SB)/4, $6
DATA iota8<>+28(SB)/4, $7
GLOBL iota8<>(SB), RODATA|NOPTR, $32

// func foldAVX2(v, best *float32, arg *int32, n int, a int32)
// Eight lanes at a time: Y2 = v > best, best = Y2 ? v : best,
// arg = Y2 ? positions : arg, positions (Y3) advancing by 8 (Y4).
TEXT ·foldAVX2(SB), NOSPLIT, $0-36
	MOVQ v+0(FP), SI
	MOVQ best+8(FP), DI
	MOVQ arg+16(FP), DX
	MOVQ n+24(FP), CX
	MOVL a+32(FP), AX
	VMOVD AX, X3
	VPBROADCASTD X3, Y3
	VPADDD iota8<>(SB), Y3, Y3
	MOVL $8, AX
	VMOVD AX, X4
	VPBROADCASTD X4, Y4

loop:
	VMOVUPS (SI), Y0
	VMOVUPS (DI), Y1
	VCMPPS $0x1e, Y1, Y0, Y2
	VBLENDVPS Y2, Y0, Y1, Y1
	VMOVUPS Y1, (DI)
	VMOVDQU (DX), Y5
	VBLENDVPS Y2, Y3, Y5, Y5
	VMOVDQU Y5, (DX)
	VPADDD Y4, Y3, Y3
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, DX
	SUBQ $8, CX
	JNZ loop
	VZEROUPPER
	RET
