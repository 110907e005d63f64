/* Loops for the DCPI driver's guest self-tests (tests/guest/selftest/driver_selftest.cpp).
 *
 * ipl_loop: the IPL blind spot (DCPI §4.1.3). Each iteration raises the IPL
 * to 6 with swpipl, runs four instructions, lowers it to 0, and runs three
 * more. QEMU executes swpipl inline (palcode/README.md), so the section at
 * IPL 6 is exactly the instructions between the two swpipl's plus the
 * lowering swpipl itself; counter overflows that fall there are delivered
 * when the IPL drops, on the instruction after the lowering swpipl. */
#include "firmware/pal_abi.h"

	.set	noat
	.text

/* a0 = iterations. Eleven instructions per iteration. */
	.align	4
	.globl	ipl_loop, ipl_loop_body, ipl_loop_end
	.ent	ipl_loop
ipl_loop:
	mov	$16, $17
ipl_loop_body:
	lda	$16, 6($31)
	call_pal CALL_PAL_SWPIPL	/* 6 */
	addq	$1, 1, $1
	addq	$2, 1, $2
	addq	$3, 1, $3
	addq	$4, 1, $4
	lda	$16, 0($31)
	call_pal CALL_PAL_SWPIPL	/* 0 */
	addq	$5, 1, $5
	subq	$17, 1, $17
	bne	$17, ipl_loop_body
ipl_loop_end:
	ret	$31, ($26)
	.end	ipl_loop
