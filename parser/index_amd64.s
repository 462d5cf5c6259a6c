#include "textflag.h"

// func pairIndex(s []byte, from, d int, c0, c1 byte) int
TEXT ·pairIndex(SB), NOSPLIT, $0-56
	MOVQ   s_base+0(FP), SI
	MOVQ   s_len+8(FP), R8
	MOVQ   from+24(FP), DI
	MOVQ   d+32(FP), DX
	// last: the end of the places j may take (j+d < len(s)).
	SUBQ   DX, R8
	MOVBQZX c0+40(FP), AX
	MOVQ   $0x0101010101010101, BX
	IMULQ  BX, AX
	MOVQ   AX, X0
	PUNPCKLQDQ X0, X0
	MOVBQZX c1+41(FP), AX
	IMULQ  BX, AX
	MOVQ   AX, X1
	PUNPCKLQDQ X1, X1
	// R9: s + d, where the second byte of each place is.
	LEAQ   (SI)(DX*1), R9

loop16:
	LEAQ   16(DI), CX
	CMPQ   CX, R8
	JGT    tail
	MOVOU  (SI)(DI*1), X2
	MOVOU  (R9)(DI*1), X3
	PCMPEQB X0, X2
	PCMPEQB X1, X3
	PAND   X3, X2
	PMOVMSKB X2, AX
	TESTL  AX, AX
	JNZ    found
	MOVQ   CX, DI
	JMP    loop16

found:
	BSFL   AX, AX
	ADDQ   AX, DI
	MOVQ   DI, ret+48(FP)
	RET

tail:
	MOVBQZX c0+40(FP), AX
	MOVBQZX c1+41(FP), BX

tailloop:
	CMPQ   DI, R8
	JGE    none
	CMPB   (SI)(DI*1), AL
	JNE    next
	CMPB   (R9)(DI*1), BL
	JEQ    tailfound

next:
	INCQ   DI
	JMP    tailloop

tailfound:
	MOVQ   DI, ret+48(FP)
	RET

none:
	MOVQ   $-1, ret+48(FP)
	RET

// func indexAny8(s []byte, set *[8][16]byte) int
TEXT ·indexAny8(SB), NOSPLIT, $0-40
	MOVQ   s_base+0(FP), SI
	MOVQ   s_len+8(FP), R8
	MOVQ   set+24(FP), DX
	// X8-X15: each of the set's bytes in all 16 lanes.
	MOVOU  0(DX), X8
	MOVOU  16(DX), X9
	MOVOU  32(DX), X10
	MOVOU  48(DX), X11
	MOVOU  64(DX), X12
	MOVOU  80(DX), X13
	MOVOU  96(DX), X14
	MOVOU  112(DX), X15
	XORQ   DI, DI

any16:
	LEAQ   16(DI), CX
	CMPQ   CX, R8
	JGT    anytail
	MOVOU  (SI)(DI*1), X0
	MOVO   X0, X1
	MOVO   X0, X2
	MOVO   X0, X3
	MOVO   X0, X4
	MOVO   X0, X5
	MOVO   X0, X6
	MOVO   X0, X7
	PCMPEQB X8, X0
	PCMPEQB X9, X1
	PCMPEQB X10, X2
	PCMPEQB X11, X3
	POR    X1, X0
	POR    X3, X2
	POR    X2, X0
	PCMPEQB X12, X4
	PCMPEQB X13, X5
	PCMPEQB X14, X6
	PCMPEQB X15, X7
	POR    X5, X4
	POR    X7, X6
	POR    X6, X4
	POR    X4, X0
	PMOVMSKB X0, AX
	TESTL  AX, AX
	JNZ    anyfound
	MOVQ   CX, DI
	JMP    any16

anyfound:
	BSFL   AX, AX
	ADDQ   AX, DI
	MOVQ   DI, ret+32(FP)
	RET

anytail:
	CMPQ   DI, R8
	JGE    anynone
	MOVB   (SI)(DI*1), AL
	CMPB   AL, 0(DX)
	JEQ    anytailfound
	CMPB   AL, 16(DX)
	JEQ    anytailfound
	CMPB   AL, 32(DX)
	JEQ    anytailfound
	CMPB   AL, 48(DX)
	JEQ    anytailfound
	CMPB   AL, 64(DX)
	JEQ    anytailfound
	CMPB   AL, 80(DX)
	JEQ    anytailfound
	CMPB   AL, 96(DX)
	JEQ    anytailfound
	CMPB   AL, 112(DX)
	JEQ    anytailfound
	INCQ   DI
	JMP    anytail

anytailfound:
	MOVQ   DI, ret+32(FP)
	RET

anynone:
	MOVQ   $-1, ret+32(FP)
	RET

// func indexAny2(s []byte, c0, c1 byte) int
TEXT ·indexAny2(SB), NOSPLIT, $0-40
	MOVQ   s_base+0(FP), SI
	MOVQ   s_len+8(FP), R8
	MOVQ   $0x0101010101010101, BX
	MOVBQZX c0+24(FP), AX
	IMULQ  BX, AX
	MOVQ   AX, X8
	PUNPCKLQDQ X8, X8
	MOVBQZX c1+25(FP), AX
	IMULQ  BX, AX
	MOVQ   AX, X9
	PUNPCKLQDQ X9, X9
	XORQ   DI, DI

two16:
	LEAQ   16(DI), CX
	CMPQ   CX, R8
	JGT    twotail
	MOVOU  (SI)(DI*1), X0
	MOVO   X0, X1
	PCMPEQB X8, X0
	PCMPEQB X9, X1
	POR    X1, X0
	PMOVMSKB X0, AX
	TESTL  AX, AX
	JNZ    twofound
	MOVQ   CX, DI
	JMP    two16

twofound:
	BSFL   AX, AX
	ADDQ   AX, DI
	MOVQ   DI, ret+32(FP)
	RET

twotail:
	MOVBQZX c0+24(FP), AX
	MOVBQZX c1+25(FP), BX

twotailloop:
	CMPQ   DI, R8
	JGE    twonone
	MOVB   (SI)(DI*1), DX
	CMPB   DX, AL
	JEQ    twotailfound
	CMPB   DX, BL
	JEQ    twotailfound
	INCQ   DI
	JMP    twotailloop

twotailfound:
	MOVQ   DI, ret+32(FP)
	RET

twonone:
	MOVQ   $-1, ret+32(FP)
	RET
