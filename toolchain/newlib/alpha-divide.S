/* Integer division helpers that GCC calls on Alpha (which has no divide
   instruction): __divq __divqu __remq __remqu (64-bit) and __divl __divlu
   __reml __remlu (32-bit, result sign-extended).  On Linux these live in
   glibc; newlib has none, so toolchain/build-newlib.sh adds them to libc.a
   (and installs them alone as lib/libalphadiv.a for freestanding code).

   Special calling convention (gcc/config/alpha/alpha.md, divmod patterns):
   dividend in $24, divisor in $25, result in $27, return address in $23;
   only $23, $27 and $28 may be changed, every other register is preserved.

   Algorithm: unsigned shift-and-subtract, with the divisor first aligned
   below the dividend, so the loop runs log2(quotient)+1 times.  Division by
   zero raises gentrap GEN_INTDIV (-2), as glibc does, and returns 0.  */

	.set	noreorder
	.set	noat
	.text

#define FRAME	48

/* In: $1 = n, $2 = d (d != 0).  Out: $3 = n / d, $1 = n % d.
   Uses $4, $27, $28.  */
.macro UDIVMOD
	mov	$31, $3
	cmpule	$2, $1, $28		/* d <= n ? */
	beq	$28, 9f			/* no: q = 0, r = n */
	mov	1, $4
1:	blt	$2, 2f			/* d has its top bit set: aligned */
	addq	$2, $2, $27
	cmpule	$27, $1, $28		/* 2d <= n ? */
	beq	$28, 2f
	mov	$27, $2
	addq	$4, $4, $4
	br	$31, 1b
2:	cmpule	$2, $1, $28
	subq	$1, $2, $27
	cmovne	$28, $27, $1
	bis	$3, $4, $27
	cmovne	$28, $27, $3
	srl	$2, 1, $2
	srl	$4, 1, $4
	bne	$4, 2b
9:
.endm

.macro ENTRY name
	.align	4
	.globl	\name
	.type	\name, @function
	.ent	\name
\name:
	.frame	$30, FRAME, $23, 0
	lda	$30, -FRAME($30)
	stq	$1, 0($30)
	stq	$2, 8($30)
	stq	$3, 16($30)
	stq	$4, 24($30)
	.prologue 0
.endm

.macro EXIT name
	ldq	$1, 0($30)
	ldq	$2, 8($30)
	ldq	$3, 16($30)
	ldq	$4, 24($30)
	lda	$30, FRAME($30)
	ret	$31, ($23), 1
\name\()_by_zero:
	stq	$16, 32($30)
	lda	$16, -2($31)		/* GEN_INTDIV */
	call_pal 0xaa			/* gentrap */
	ldq	$16, 32($30)
	mov	$31, $27
	ldq	$1, 0($30)
	ldq	$2, 8($30)
	ldq	$3, 16($30)
	ldq	$4, 24($30)
	lda	$30, FRAME($30)
	ret	$31, ($23), 1
	.end	\name
	.size	\name, . - \name
.endm

/* 64-bit unsigned */
ENTRY __divqu
	mov	$24, $1
	mov	$25, $2
	beq	$2, __divqu_by_zero
	UDIVMOD
	mov	$3, $27
EXIT __divqu

ENTRY __remqu
	mov	$24, $1
	mov	$25, $2
	beq	$2, __remqu_by_zero
	UDIVMOD
	mov	$1, $27
EXIT __remqu

/* 64-bit signed: divide the magnitudes, quotient negative if the signs
   differ, remainder has the sign of the dividend.  */
ENTRY __divq
	beq	$25, __divq_by_zero
	subq	$31, $24, $1
	cmovge	$24, $24, $1
	subq	$31, $25, $2
	cmovge	$25, $25, $2
	UDIVMOD
	xor	$24, $25, $28
	subq	$31, $3, $27
	cmovge	$28, $3, $27
EXIT __divq

ENTRY __remq
	beq	$25, __remq_by_zero
	subq	$31, $24, $1
	cmovge	$24, $24, $1
	subq	$31, $25, $2
	cmovge	$25, $25, $2
	UDIVMOD
	subq	$31, $1, $27
	cmovge	$24, $1, $27
EXIT __remq

/* 32-bit: only the low longwords of $24/$25 count; results are returned
   sign-extended (the canonical form of a longword in a register).  */
ENTRY __divlu
	zapnot	$24, 15, $1
	zapnot	$25, 15, $2
	beq	$2, __divlu_by_zero
	UDIVMOD
	addl	$3, 0, $27
EXIT __divlu

ENTRY __remlu
	zapnot	$24, 15, $1
	zapnot	$25, 15, $2
	beq	$2, __remlu_by_zero
	UDIVMOD
	addl	$1, 0, $27
EXIT __remlu

ENTRY __divl
	addl	$24, 0, $1		/* sign-extended n */
	addl	$25, 0, $2		/* sign-extended d */
	beq	$2, __divl_by_zero
	xor	$1, $2, $4		/* sign of the quotient, kept in $4 ... */
	stq	$4, 40($30)		/* ... which UDIVMOD uses: park it */
	subq	$31, $1, $28
	cmovlt	$1, $28, $1
	subq	$31, $2, $28
	cmovlt	$2, $28, $2
	UDIVMOD
	ldq	$28, 40($30)
	subq	$31, $3, $27
	cmovge	$28, $3, $27
	addl	$27, 0, $27
EXIT __divl

ENTRY __reml
	addl	$24, 0, $1
	addl	$25, 0, $2
	beq	$2, __reml_by_zero
	subq	$31, $1, $28
	cmovlt	$1, $28, $1
	subq	$31, $2, $28
	cmovlt	$2, $28, $2
	UDIVMOD
	addl	$24, 0, $28		/* sign of the dividend */
	subq	$31, $1, $27
	cmovge	$28, $1, $27
	addl	$27, 0, $27
EXIT __reml

	.section .note.GNU-stack, "", @progbits
