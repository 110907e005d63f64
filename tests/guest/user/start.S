/* _start for the freestanding test programs: the Linux/Alpha initial stack
 * (argc at sp, argv after it); gp from our own address. */
#include "firmware/syscalls.h"

	.text
	.globl	_start
	.ent	_start
_start:
	br	$29, 1f
1:	ldgp	$29, 0($29)
	ldq	$16, 0($30)
	lda	$17, 8($30)
	jsr	$26, main
	ldgp	$29, 0($26)
	mov	$0, $16
	lda	$0, SYS_exit($31)
	callsys
	.end	_start
