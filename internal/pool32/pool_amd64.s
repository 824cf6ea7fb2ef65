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

// func pool2AVX2(n, C int, out *float32, next, a0 int, b, pooled *float32, arg *int32)
// Blocks of eight channels (the last one under a lane mask), each over the
// n windows. Registers: SI out, DI pooled, DX arg, BX b, R8 next, R10 C,
// R12 next + C (bytes), R11 the block's channel offset (bytes), R13 n, CX
// windows left, R14, AX, R9 the cursors in out, pooled and arg. Y15 iota,
// Y14 zero; int32 lanes: Y13 C, Y12 next, Y10 8, Y8 2C, Y7 the index of
// window 0's first pixel at the block's channels, Y11 the current
// window's; Y9 the lane mask, Y6 the block's bias, Y5 the sign bits; Y0
// the running maxima, Y1 their indices. The bias and ReLU are Go's
// max(0, maximum + b) instruction for instruction (the sign of a NaN
// included).
TEXT ·pool2AVX2(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), R13
	MOVQ C+8(FP), R10
	MOVQ out+16(FP), SI
	MOVQ next+24(FP), R8
	MOVQ a0+32(FP), AX
	MOVQ b+40(FP), BX
	MOVQ pooled+48(FP), DI
	MOVQ arg+56(FP), DX
	VMOVDQU iota8<>(SB), Y15
	VXORPS Y14, Y14, Y14
	VMOVD R10, X13
	VPBROADCASTD X13, Y13
	VPADDD Y13, Y13, Y8
	VMOVD R8, X12
	VPBROADCASTD X12, Y12
	MOVL $8, R9
	VMOVD R9, X10
	VPBROADCASTD X10, Y10
	VMOVD AX, X7
	VPBROADCASTD X7, Y7
	VPADDD Y15, Y7, Y7
	VPCMPEQD Y5, Y5, Y5
	VPSLLD $31, Y5, Y5
	SHLQ $2, R8
	SHLQ $2, R10
	LEAQ (R8)(R10*1), R12
	XORQ R11, R11

poolBlock:
	MOVQ R10, R9 // lanes left: (C bytes − offset) / 4
	SUBQ R11, R9
	SHRQ $2, R9
	VMOVD R9, X0
	VPBROADCASTD X0, Y0
	VPCMPGTD Y15, Y0, Y9
	VMASKMOVPS (BX)(R11*1), Y9, Y6
	VMOVDQU Y7, Y11
	LEAQ (SI)(R11*1), R14
	LEAQ (DI)(R11*1), AX
	LEAQ (DX)(R11*1), R9
	MOVQ R13, CX

poolWindow:
	VMASKMOVPS (R14), Y9, Y0 // pixel (0, 0)
	VMOVDQU Y11, Y1
	VMASKMOVPS (R14)(R10*1), Y9, Y2 // (0, 1)
	VPADDD Y13, Y11, Y3
	VCMPPS $0x1e, Y0, Y2, Y4 // Y2 > Y0, false on NaN
	VBLENDVPS Y4, Y2, Y0, Y0
	VBLENDVPS Y4, Y3, Y1, Y1
	VMASKMOVPS (R14)(R8*1), Y9, Y2 // (1, 0)
	VPADDD Y12, Y11, Y3
	VCMPPS $0x1e, Y0, Y2, Y4
	VBLENDVPS Y4, Y2, Y0, Y0
	VBLENDVPS Y4, Y3, Y1, Y1
	VMASKMOVPS (R14)(R12*1), Y9, Y2 // (1, 1)
	VPADDD Y13, Y3, Y3
	VCMPPS $0x1e, Y0, Y2, Y4
	VBLENDVPS Y4, Y2, Y0, Y0
	VBLENDVPS Y4, Y3, Y1, Y1
	VADDPS Y6, Y0, Y0 // maximum + b
	VXORPS Y5, Y0, Y0 // Go's max(0, v): −min(min(−0, −v), −0) | …
	VMINPS Y0, Y5, Y2 // −v where −v is NaN or a zero
	VMINPS Y5, Y2, Y0 // −0 where that is NaN or a zero
	VORPS Y2, Y0, Y0
	VXORPS Y5, Y0, Y2
	VMASKMOVPS Y2, Y9, (AX)
	VPMASKMOVD Y1, Y9, (R9)
	VPADDD Y8, Y11, Y11
	LEAQ (R14)(R10*2), R14
	ADDQ R10, AX
	ADDQ R10, R9
	DECQ CX
	JNZ poolWindow

	VPADDD Y10, Y7, Y7
	ADDQ $32, R11
	CMPQ R11, R10
	JLT poolBlock
	VZEROUPPER
	RET

// func unpool2AVX2(n, C int, dp, pooled *float32, arg *int32, a0 int, dout *float32, next int, gb *float32)
// Blocks of eight channels (the last one under a lane mask), each over the
// n windows, the block's bias gradient in Y6 throughout. Registers: SI dp,
// BX pooled, DX arg, DI dout, AX gb, R8 next, R10 C, R12 next + C (bytes),
// R11 the block's channel offset (bytes), R9 the offset in dp, pooled and
// arg, R14 the cursor in dout, R13 n, CX windows left. Y15 iota, Y14 zero;
// int32 lanes: Y13 C, Y12 next, Y10 8, Y8 2C, Y7 the index of window 0's
// first pixel at the block's channels, Y11 the current window's; Y9 the
// lane mask; Y0 the gradient, Y1 the maxima's indices.
TEXT ·unpool2AVX2(SB), NOSPLIT, $0-72
	MOVQ n+0(FP), R13
	MOVQ C+8(FP), R10
	MOVQ dp+16(FP), SI
	MOVQ pooled+24(FP), BX
	MOVQ arg+32(FP), DX
	MOVQ a0+40(FP), R9
	MOVQ dout+48(FP), DI
	MOVQ next+56(FP), R8
	MOVQ gb+64(FP), AX
	VMOVDQU iota8<>(SB), Y15
	VXORPS Y14, Y14, Y14
	VMOVD R10, X13
	VPBROADCASTD X13, Y13
	VPADDD Y13, Y13, Y8
	VMOVD R8, X12
	VPBROADCASTD X12, Y12
	MOVL $8, R14
	VMOVD R14, X10
	VPBROADCASTD X10, Y10
	VMOVD R9, X7
	VPBROADCASTD X7, Y7
	VPADDD Y15, Y7, Y7
	SHLQ $2, R8
	SHLQ $2, R10
	LEAQ (R8)(R10*1), R12
	XORQ R11, R11

unpoolBlock:
	MOVQ R10, R9 // lanes left: (C bytes − offset) / 4
	SUBQ R11, R9
	SHRQ $2, R9
	VMOVD R9, X0
	VPBROADCASTD X0, Y0
	VPCMPGTD Y15, Y0, Y9
	VMASKMOVPS (AX)(R11*1), Y9, Y6
	VMOVDQU Y7, Y11
	MOVQ R11, R9
	LEAQ (DI)(R11*1), R14
	MOVQ R13, CX

unpoolWindow:
	VMASKMOVPS (SI)(R9*1), Y9, Y0
	VMASKMOVPS (BX)(R9*1), Y9, Y1
	VCMPPS $0x1e, Y14, Y1, Y1 // pooled > 0: the ReLU was active
	VANDPS Y1, Y0, Y0
	VADDPS Y0, Y6, Y6 // gb + v
	VADDPS Y0, Y14, Y0 // 0 + v
	VPMASKMOVD (DX)(R9*1), Y9, Y1
	VPCMPEQD Y11, Y1, Y2 // pixel (0, 0)
	VANDPS Y2, Y0, Y3
	VMASKMOVPS Y3, Y9, (R14)
	VPADDD Y13, Y11, Y4 // (0, 1)
	VPCMPEQD Y4, Y1, Y2
	VANDPS Y2, Y0, Y3
	VMASKMOVPS Y3, Y9, (R14)(R10*1)
	VPADDD Y12, Y11, Y4 // (1, 0)
	VPCMPEQD Y4, Y1, Y2
	VANDPS Y2, Y0, Y3
	VMASKMOVPS Y3, Y9, (R14)(R8*1)
	VPADDD Y13, Y4, Y4 // (1, 1)
	VPCMPEQD Y4, Y1, Y2
	VANDPS Y2, Y0, Y3
	VMASKMOVPS Y3, Y9, (R14)(R12*1)
	VPADDD Y8, Y11, Y11
	ADDQ R10, R9
	LEAQ (R14)(R10*2), R14
	DECQ CX
	JNZ unpoolWindow

	VMASKMOVPS Y6, Y9, (AX)(R11*1)
	VPADDD Y10, Y7, Y7
	ADDQ $32, R11
	CMPQ R11, R10
	JLT unpoolBlock
	VZEROUPPER
	RET

// iota16 is 0, 1, …, 15 as int32.
DATA iota16<>+0(SB)/8, $0x0000000100000000
DATA iota16<>+8(SB)/8, $0x0000000300000002
DATA iota16<>+16(SB)/8, $0x0000000500000004
DATA iota16<>+24(SB)/8, $0x0000000700000006
DATA iota16<>+32(SB)/8, $0x0000000900000008
DATA iota16<>+40(SB)/8, $0x0000000b0000000a
DATA iota16<>+48(SB)/8, $0x0000000d0000000c
DATA iota16<>+56(SB)/8, $0x0000000f0000000e
GLOBL iota16<>(SB), RODATA|NOPTR, $64

// func pool2AVX512(n, C int, out *float32, next, a0 int, b, pooled *float32, arg *int32)
// pool2AVX2 with AVX-512F: blocks of sixteen channels, the lane mask in
// K1, the comparisons in K2 (the same registers otherwise, in Z).
TEXT ·pool2AVX512(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), R13
	MOVQ C+8(FP), R10
	MOVQ out+16(FP), SI
	MOVQ next+24(FP), R8
	MOVQ a0+32(FP), AX
	MOVQ b+40(FP), BX
	MOVQ pooled+48(FP), DI
	MOVQ arg+56(FP), DX
	VMOVDQU32 iota16<>(SB), Z15
	VPXORD Z14, Z14, Z14
	VPBROADCASTD R10, Z13
	VPADDD Z13, Z13, Z8
	VPBROADCASTD R8, Z12
	MOVL $16, R9
	VPBROADCASTD R9, Z10
	VPBROADCASTD AX, Z7
	VPADDD Z15, Z7, Z7
	VPTERNLOGD $0xff, Z5, Z5, Z5
	VPSLLD $31, Z5, Z5
	SHLQ $2, R8
	SHLQ $2, R10
	LEAQ (R8)(R10*1), R12
	XORQ R11, R11

zpoolBlock:
	MOVQ R10, R9 // lanes left: (C bytes − offset) / 4
	SUBQ R11, R9
	SHRQ $2, R9
	VPBROADCASTD R9, Z0
	VPCMPGTD Z15, Z0, K1
	VMOVUPS.Z (BX)(R11*1), K1, Z6
	VMOVDQA32 Z7, Z11
	LEAQ (SI)(R11*1), R14
	LEAQ (DI)(R11*1), AX
	LEAQ (DX)(R11*1), R9
	MOVQ R13, CX

zpoolWindow:
	VMOVUPS.Z (R14), K1, Z0 // pixel (0, 0)
	VMOVDQA32 Z11, Z1
	VMOVUPS.Z (R14)(R10*1), K1, Z2 // (0, 1)
	VPADDD Z13, Z11, Z3
	VCMPPS $0x1e, Z0, Z2, K2 // Z2 > Z0, false on NaN
	VMOVAPS Z2, K2, Z0
	VMOVDQA32 Z3, K2, Z1
	VMOVUPS.Z (R14)(R8*1), K1, Z2 // (1, 0)
	VPADDD Z12, Z11, Z3
	VCMPPS $0x1e, Z0, Z2, K2
	VMOVAPS Z2, K2, Z0
	VMOVDQA32 Z3, K2, Z1
	VMOVUPS.Z (R14)(R12*1), K1, Z2 // (1, 1)
	VPADDD Z13, Z3, Z3
	VCMPPS $0x1e, Z0, Z2, K2
	VMOVAPS Z2, K2, Z0
	VMOVDQA32 Z3, K2, Z1
	VADDPS Z6, Z0, Z0 // maximum + b
	VPXORD Z5, Z0, Z0 // Go's max(0, v), as in pool2AVX2
	VMINPS Z0, Z5, Z2
	VMINPS Z5, Z2, Z0
	VPORD Z2, Z0, Z0
	VPXORD Z5, Z0, Z2
	VMOVUPS Z2, K1, (AX)
	VMOVDQU32 Z1, K1, (R9)
	VPADDD Z8, Z11, Z11
	LEAQ (R14)(R10*2), R14
	ADDQ R10, AX
	ADDQ R10, R9
	DECQ CX
	JNZ zpoolWindow

	VPADDD Z10, Z7, Z7
	ADDQ $64, R11
	CMPQ R11, R10
	JLT zpoolBlock
	VZEROUPPER
	RET

// func unpool2AVX512(n, C int, dp, pooled *float32, arg *int32, a0 int, dout *float32, next int, gb *float32)
// unpool2AVX2 with AVX-512F: blocks of sixteen channels, the lane mask in
// K1, the active ReLUs in K3, a pixel's maxima in K4.
TEXT ·unpool2AVX512(SB), NOSPLIT, $0-72
	MOVQ n+0(FP), R13
	MOVQ C+8(FP), R10
	MOVQ dp+16(FP), SI
	MOVQ pooled+24(FP), BX
	MOVQ arg+32(FP), DX
	MOVQ a0+40(FP), R9
	MOVQ dout+48(FP), DI
	MOVQ next+56(FP), R8
	MOVQ gb+64(FP), AX
	VMOVDQU32 iota16<>(SB), Z15
	VPXORD Z14, Z14, Z14
	VPBROADCASTD R10, Z13
	VPADDD Z13, Z13, Z8
	VPBROADCASTD R8, Z12
	MOVL $16, R14
	VPBROADCASTD R14, Z10
	VPBROADCASTD R9, Z7
	VPADDD Z15, Z7, Z7
	SHLQ $2, R8
	SHLQ $2, R10
	LEAQ (R8)(R10*1), R12
	XORQ R11, R11

zunpoolBlock:
	MOVQ R10, R9 // lanes left: (C bytes − offset) / 4
	SUBQ R11, R9
	SHRQ $2, R9
	VPBROADCASTD R9, Z0
	VPCMPGTD Z15, Z0, K1
	VMOVUPS.Z (AX)(R11*1), K1, Z6
	VMOVDQA32 Z7, Z11
	MOVQ R11, R9
	LEAQ (DI)(R11*1), R14
	MOVQ R13, CX

zunpoolWindow:
	VMOVUPS.Z (SI)(R9*1), K1, Z0
	VMOVUPS.Z (BX)(R9*1), K1, Z1
	VCMPPS $0x1e, Z14, Z1, K3 // pooled > 0: the ReLU was active
	VMOVAPS.Z Z0, K3, Z0
	VADDPS Z0, Z6, Z6 // gb + v
	VADDPS Z0, Z14, Z0 // 0 + v
	VMOVDQU32.Z (DX)(R9*1), K1, Z1
	VPCMPEQD Z11, Z1, K4 // pixel (0, 0)
	VMOVAPS.Z Z0, K4, Z3
	VMOVUPS Z3, K1, (R14)
	VPADDD Z13, Z11, Z4 // (0, 1)
	VPCMPEQD Z4, Z1, K4
	VMOVAPS.Z Z0, K4, Z3
	VMOVUPS Z3, K1, (R14)(R10*1)
	VPADDD Z12, Z11, Z4 // (1, 0)
	VPCMPEQD Z4, Z1, K4
	VMOVAPS.Z Z0, K4, Z3
	VMOVUPS Z3, K1, (R14)(R8*1)
	VPADDD Z13, Z4, Z4 // (1, 1)
	VPCMPEQD Z4, Z1, K4
	VMOVAPS.Z Z0, K4, Z3
	VMOVUPS Z3, K1, (R14)(R12*1)
	VPADDD Z8, Z11, Z11
	ADDQ R10, R9
	LEAQ (R14)(R10*2), R14
	DECQ CX
	JNZ zunpoolWindow

	VMOVUPS Z6, K1, (AX)(R11*1)
	VPADDD Z10, Z7, Z7
	ADDQ $64, R11
	CMPQ R11, R10
	JLT zunpoolBlock
	VZEROUPPER
	RET
