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
