/* setjmp/longjmp for Alpha (newlib has no libc/machine/alpha).
   toolchain/build-newlib.sh assembles this file and adds it to libc.a.

   jmp_buf layout (17 quadwords, _JBLEN in machine/setjmp.h):
     0..6   $9-$15 (s0-s5, fp)     7  $26 (ra)     8  $30 (sp)
     9..16  $f2-$f9
   The caller's $gp is restored by the ldgp that follows every call.  */

	.set	noreorder
	.set	noat
	.text

	.align	4
	.globl	setjmp
	.ent	setjmp
setjmp:
	.frame	$30, 0, $26, 0
	.prologue 0
	stq	$9,    0($16)
	stq	$10,   8($16)
	stq	$11,  16($16)
	stq	$12,  24($16)
	stq	$13,  32($16)
	stq	$14,  40($16)
	stq	$15,  48($16)
	stq	$26,  56($16)
	stq	$30,  64($16)
	stt	$f2,  72($16)
	stt	$f3,  80($16)
	stt	$f4,  88($16)
	stt	$f5,  96($16)
	stt	$f6, 104($16)
	stt	$f7, 112($16)
	stt	$f8, 120($16)
	stt	$f9, 128($16)
	mov	$31, $0
	ret	$31, ($26), 1
	.end	setjmp

	.align	4
	.globl	longjmp
	.ent	longjmp
longjmp:
	.frame	$30, 0, $26, 0
	.prologue 0
	ldq	$9,    0($16)
	ldq	$10,   8($16)
	ldq	$11,  16($16)
	ldq	$12,  24($16)
	ldq	$13,  32($16)
	ldq	$14,  40($16)
	ldq	$15,  48($16)
	ldq	$26,  56($16)
	ldq	$30,  64($16)
	ldt	$f2,  72($16)
	ldt	$f3,  80($16)
	ldt	$f4,  88($16)
	ldt	$f5,  96($16)
	ldt	$f6, 104($16)
	ldt	$f7, 112($16)
	ldt	$f8, 120($16)
	ldt	$f9, 128($16)
	mov	$17, $0
	cmoveq	$0, 1, $0		/* longjmp(env, 0) returns 1 */
	ret	$31, ($26), 1
	.end	longjmp

	.section .note.GNU-stack, "", @progbits
