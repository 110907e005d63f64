/* Hand-written kernel loops whose every instruction the guest self-tests
 * know: the precision test (samples must spread over all of spread_loop)
 * and the PALcode blind-spot test (callpal_loop). */
#include "firmware/pal_abi.h"

	.set	noat
	.text

/* a0 = iterations. Eight instructions per iteration. */
	.align	4
	.globl	spread_loop, spread_loop_body, spread_loop_end
	.ent	spread_loop
spread_loop:
spread_loop_body:
	addq	$1, 1, $1
	addq	$2, 2, $2
	xor	$3, $1, $3
	addq	$4, $3, $4
	subq	$5, 1, $5
	bis	$6, $2, $6
	subq	$16, 1, $16
	bne	$16, spread_loop_body
spread_loop_end:
	ret	$31, ($26)
	.end	spread_loop

/* a0 = iterations. Six instructions per iteration, one of them a CALL_PAL
 * whose PALcode path the blind-spot test measures: rdmces (0x10), which
 * QEMU does not short-cut in its translator (rduniq, swpipl, whami and
 * others never enter PALcode on QEMU; see palcode/README.md). */
	.align	4
	.globl	callpal_loop, callpal_loop_body, callpal_loop_end
	.ent	callpal_loop
callpal_loop:
callpal_loop_body:
	addq	$1, 1, $1
	call_pal CALL_PAL_RDMCES
	.globl	callpal_loop_after_pal
callpal_loop_after_pal:
	addq	$2, 1, $2
	addq	$3, 1, $3
	subq	$16, 1, $16
	bne	$16, callpal_loop_body
callpal_loop_end:
	ret	$31, ($26)
	.end	callpal_loop

/* One trapping instruction each, for the trap-delivery self-test. Each
 * label marks the instruction that traps; the kernel's handlers, in
 * self-test mode, record what PALcode delivered and resume. */
	.align	4
	.globl	trap_bpt, trap_opcdec, trap_arith, trap_fen
	.globl	trigger_traps
	.ent	trigger_traps
trigger_traps:
trap_bpt:
	call_pal CALL_PAL_BPT
trap_opcdec:
	.long	0x04000000		/* opcode 0x01: reserved */
	lda	$3, -1($31)
	srl	$3, 1, $3		/* INT64_MAX */
trap_arith:
	addqv	$3, $3, $4		/* overflow trap */
	trapb
	mov	0, $16
	call_pal CALL_PAL_WRFEN	/* 0 */
trap_fen:
	cpys	$f31, $f31, $f1		/* FP is disabled: FEN trap */
	mov	1, $16
	call_pal CALL_PAL_WRFEN	/* 1 */
	ret	$31, ($26)
	.end	trigger_traps
