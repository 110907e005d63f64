/* Program entry for DCPI user programs (Alpha, newlib).

   The kernel (and Linux, and qemu-alpha user mode) start a process at the
   ELF entry with the initial stack laid out as Linux/Alpha does:

       sp ->  argc                    (8 bytes)
              argv[0] ... argv[argc-1]
              NULL
              envp[0] ... envp[n-1]
              NULL
              auxv pairs ... AT_NULL

   Registers other than sp are undefined; in particular $27 (pv) is not the
   address of _start, so $gp is computed PC-relatively (br + ldgp).  _start
   passes argc, argv and envp to the C part, _dcpi_cstart (crt_start.c).  */

#include "firmware/pal_abi.h"

	.set	noreorder
	.set	noat
	.text
	.align	4
	.globl	_start
	.ent	_start
_start:
	.frame	$30, 0, $31, 0
	br	$29, 1f
1:	ldgp	$29, 0($29)
	.prologue 1
	mov	$31, $15		/* frame pointer: end of the call chain */
	mov	$31, $26		/* no return address (debuggers stop here) */
	ldq	$16, 0($30)		/* a0 = argc */
	lda	$17, 8($30)		/* a1 = argv */
	s8addq	$16, $17, $18		/* a2 = envp = argv + 8 * (argc + 1) */
	lda	$18, 8($18)
	bic	$30, 15, $30		/* C wants a 16-byte aligned stack */
	jsr	$26, _dcpi_cstart	/* never returns */
	call_pal CALL_PAL_BUGCHK	/* not reached */
	.end	_start

	.section .note.GNU-stack, "", @progbits
