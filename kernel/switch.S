/* Context switch and thread start-up (kernel/scheduler.cpp).
 *
 * A thread that is not running has, on its kernel stack, a 64-byte switch
 * frame (s0-s6, ra) below whatever it was doing; its PCB's ksp points at the
 * frame. swpctx (PALcode) stores sp, usp and unique into the current PCB and
 * loads the next one's, including ptbr and FEN. */
#include "firmware/pal_abi.h"

	.set	noat
	.text

#define SWITCH_BYTES	64

/* void switch_context(Pcb* next) */
	.globl	switch_context
	.align	4
	.ent	switch_context
switch_context:
	lda	$30, -SWITCH_BYTES($30)
	stq	$9, 0($30)
	stq	$10, 8($30)
	stq	$11, 16($30)
	stq	$12, 24($30)
	stq	$13, 32($30)
	stq	$14, 40($30)
	stq	$15, 48($30)
	stq	$26, 56($30)
	call_pal CALL_PAL_SWPCTX	/* a0 = next PCB */
	ldq	$9, 0($30)
	ldq	$10, 8($30)
	ldq	$11, 16($30)
	ldq	$12, 24($30)
	ldq	$13, 32($30)
	ldq	$14, 40($30)
	ldq	$15, 48($30)
	ldq	$26, 56($30)
	lda	$30, SWITCH_BYTES($30)
	ret	$31, ($26)
	.end	switch_context

/* void adopt_context(Pcb* self): makes the running boot context the CPU's
 * first PCB (PALcode has none yet, so nothing is saved). */
	.globl	adopt_context
	.align	4
	.ent	adopt_context
adopt_context:
	stq	$30, 0($16)
	call_pal CALL_PAL_SWPCTX
	ret	$31, ($26)
	.end	adopt_context

/* First run of a kernel thread: s0 = function, s1 = argument. */
	.globl	kernel_thread_start
	.align	4
	.ent	kernel_thread_start
kernel_thread_start:
	.cfi_startproc	/* a kernel thread's outermost frame (call chains end here, complete) */
	.cfi_undefined 26
	mov	$9, $16
	mov	$10, $17
	jsr	$26, kernel_thread_main		/* never returns */
	call_pal CALL_PAL_HALT
	.cfi_endproc
	.end	kernel_thread_start

/* First run of a user process: a TrapFrame sits right above the switch
 * frame; finish the switch, then "return" from that trap into user mode. */
	.globl	user_thread_start
	.align	4
	.ent	user_thread_start
user_thread_start:
	jsr	$26, user_thread_first_run
	br	$31, trap_return
	.end	user_thread_start

/* FP state of a user process: f0-f31 then the FPCR (33 quadwords). Only
 * called while FEN is on (the process's PCB enables it). */
	.globl	fp_save
	.align	4
	.ent	fp_save
fp_save:
	stt	$f0, 0($16)
	stt	$f1, 8($16)
	stt	$f2, 16($16)
	stt	$f3, 24($16)
	stt	$f4, 32($16)
	stt	$f5, 40($16)
	stt	$f6, 48($16)
	stt	$f7, 56($16)
	stt	$f8, 64($16)
	stt	$f9, 72($16)
	stt	$f10, 80($16)
	stt	$f11, 88($16)
	stt	$f12, 96($16)
	stt	$f13, 104($16)
	stt	$f14, 112($16)
	stt	$f15, 120($16)
	stt	$f16, 128($16)
	stt	$f17, 136($16)
	stt	$f18, 144($16)
	stt	$f19, 152($16)
	stt	$f20, 160($16)
	stt	$f21, 168($16)
	stt	$f22, 176($16)
	stt	$f23, 184($16)
	stt	$f24, 192($16)
	stt	$f25, 200($16)
	stt	$f26, 208($16)
	stt	$f27, 216($16)
	stt	$f28, 224($16)
	stt	$f29, 232($16)
	stt	$f30, 240($16)
	mf_fpcr	$f0
	stt	$f0, 256($16)
	ret	$31, ($26)
	.end	fp_save

	.globl	fp_restore
	.align	4
	.ent	fp_restore
fp_restore:
	ldt	$f0, 256($16)
	mt_fpcr	$f0
	ldt	$f0, 0($16)
	ldt	$f1, 8($16)
	ldt	$f2, 16($16)
	ldt	$f3, 24($16)
	ldt	$f4, 32($16)
	ldt	$f5, 40($16)
	ldt	$f6, 48($16)
	ldt	$f7, 56($16)
	ldt	$f8, 64($16)
	ldt	$f9, 72($16)
	ldt	$f10, 80($16)
	ldt	$f11, 88($16)
	ldt	$f12, 96($16)
	ldt	$f13, 104($16)
	ldt	$f14, 112($16)
	ldt	$f15, 120($16)
	ldt	$f16, 128($16)
	ldt	$f17, 136($16)
	ldt	$f18, 144($16)
	ldt	$f19, 152($16)
	ldt	$f20, 160($16)
	ldt	$f21, 168($16)
	ldt	$f22, 176($16)
	ldt	$f23, 184($16)
	ldt	$f24, 192($16)
	ldt	$f25, 200($16)
	ldt	$f26, 208($16)
	ldt	$f27, 216($16)
	ldt	$f28, 224($16)
	ldt	$f29, 232($16)
	ldt	$f30, 240($16)
	ret	$31, ($26)
	.end	fp_restore

/* What fp_save changed, put back: f0 (it read the FPCR through f0), for a
 * caller that changed no other FP state since (the value sampler's runs
 * that touched none). */
	.globl	fp_restore_f0
	.align	4
	.ent	fp_restore_f0
fp_restore_f0:
	ldt	$f0, 0($16)
	ret	$31, ($26)
	.end	fp_restore_f0
