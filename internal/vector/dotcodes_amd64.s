#include "textflag.h"

// func dotCodesAVX2(k *int16, c *uint8, n int) int64
//
// Σ k[i]·c[i] for n a positive multiple of 32. Codes are zero-extended to
// int16 and multiplied pairwise with VPMADDWD into int32 lanes; each lane
// sums n/8 products, which the caller's weight bound keeps below 2^31. The
// lanes are widened to int64 before the final horizontal sum.
TEXT ·dotCodesAVX2(SB), NOSPLIT, $0-32
	MOVQ k+0(FP), SI
	MOVQ c+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	SHRQ $5, CX

loop:
	VPMOVZXBW (DI), Y2
	VPMOVZXBW 16(DI), Y3
	VPMADDWD (SI), Y2, Y2
	VPMADDWD 32(SI), Y3, Y3
	VPADDD Y2, Y0, Y0
	VPADDD Y3, Y1, Y1
	ADDQ $32, DI
	ADDQ $64, SI
	DECQ CX
	JNZ loop

	VPADDD Y1, Y0, Y0
	VPMOVSXDQ X0, Y2
	VEXTRACTI128 $1, Y0, X3
	VPMOVSXDQ X3, Y3
	VPADDQ Y3, Y2, Y2
	VEXTRACTI128 $1, Y2, X3
	VPADDQ X3, X2, X2
	VPSHUFD $0x4e, X2, X3
	VPADDQ X3, X2, X2
	VMOVQ X2, AX
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv0() (lo, hi uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, lo+0(FP)
	MOVL DX, hi+4(FP)
	RET

// func prefetch(p *byte, lines int)
//
// Hints the cache to load lines consecutive 64-byte lines from p (lines > 0).
TEXT ·prefetch(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ lines+8(FP), CX

pf:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	DECQ CX
	JNZ pf
	RET
