/* Kernel entry points: the boot CPU's start, a secondary CPU's start, and
 * the trap/interrupt entries registered with wrent. PALcode has already
 * pushed the OSF/1 frame (PS, PC, GP, a0-a2) and loaded the kernel gp; the
 * stubs save every other integer register except sp ($30, the user's is in
 * the PAL usp register) into a full TrapFrame (kernel/traps.h), call C++,
 * and return with rti. The callee-saved s0-s6 are saved too, so that the
 * frame holds the complete user register state (new processes start from a
 * built frame; value sampling reads registers from it). */
#include "firmware/pal_abi.h"
#include "firmware/trap_frame.h"

	.set	noat
	.section .text.entry, "ax"

#define STACK_BYTES	16384
#define SAVE_BYTES	TRAP_FRAME_SAVE_BYTES	/* $0-$15 and $19-$28 (firmware/trap_frame.h) */
#define FRAME_BYTES	(SAVE_BYTES + PAL_FRAME_SIZE)	/* the whole TrapFrame */

/* Call chains (issue 28 item 2, kernel frames): the trap entries' CFI, so
 * that the host's unwinder (symbols/cfi_unwinder.h) goes from a handler
 * through the TrapFrame into the interrupted context, as a signal frame
 * ('S': the interrupted PC is where it resumes, not a return address).
 * The return column is 64, the PC PALcode saved, so that $26 can be the
 * interrupted code's own ra. The CFA is the TrapFrame's end: the
 * interrupted sp for a kernel-mode trap; a user-mode trap's sp is PALcode's
 * usp, which the driver sends with the sample (firmware/call_chains.h,
 * ChainUserPart). Offsets are from the CFA. */
.macro	TRAP_CFI_START cfa_offset
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_return_column 64
	.cfi_def_cfa $30, \cfa_offset
	.cfi_offset 64, PAL_FRAME_PC - PAL_FRAME_SIZE
	.cfi_offset 29, PAL_FRAME_GP - PAL_FRAME_SIZE
	.cfi_offset 16, PAL_FRAME_A0 - PAL_FRAME_SIZE
	.cfi_offset 17, PAL_FRAME_A1 - PAL_FRAME_SIZE
	.cfi_offset 18, PAL_FRAME_A2 - PAL_FRAME_SIZE
.endm

/* Every register SAVE_ALL stored, once they all are. */
.macro	SAVED_REGISTERS_CFI
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	.cfi_offset \n, \n * 8 - FRAME_BYTES
	.endr
	.irp	n, 19,20,21,22,23,24,25,26,27,28
	.cfi_offset \n, 128 + (\n - 19) * 8 - FRAME_BYTES
	.endr
.endm

/* Boot CPU: a0 = memory size, a1 = CPU count, a2 = 0; $27 = _start. */
	.globl	_start
	.ent	_start
_start:
	.cfi_startproc	/* outermost: no caller (a call chain ends here, complete) */
	.cfi_undefined 26
	ldgp	$29, 0($27)
	lda	$30, boot_stacks + STACK_BYTES
	jsr	$26, kernel_main
	call_pal CALL_PAL_HALT
	.cfi_endproc
	.end	_start

/* Secondary CPU (cserve START_CPU): a0 = CPU number, sp set, $27 = entry. */
	.globl	secondary_entry
	.ent	secondary_entry
secondary_entry:
	.cfi_startproc	/* outermost */
	.cfi_undefined 26
	ldgp	$29, 0($27)
	jsr	$26, secondary_main
	call_pal CALL_PAL_HALT
	.cfi_endproc
	.end	secondary_entry

.macro	SAVE_ALL
	lda	$30, -SAVE_BYTES($30)
	.cfi_adjust_cfa_offset SAVE_BYTES
	stq	$0, 0($30)
	stq	$1, 8($30)
	stq	$2, 16($30)
	stq	$3, 24($30)
	stq	$4, 32($30)
	stq	$5, 40($30)
	stq	$6, 48($30)
	stq	$7, 56($30)
	stq	$8, 64($30)
	stq	$9, 72($30)
	stq	$10, 80($30)
	stq	$11, 88($30)
	stq	$12, 96($30)
	stq	$13, 104($30)
	stq	$14, 112($30)
	stq	$15, 120($30)
	stq	$19, 128($30)
	stq	$20, 136($30)
	stq	$21, 144($30)
	stq	$22, 152($30)
	stq	$23, 160($30)
	stq	$24, 168($30)
	stq	$25, 176($30)
	stq	$26, 184($30)
	stq	$27, 192($30)
	stq	$28, 200($30)
	SAVED_REGISTERS_CFI
.endm

.macro	RESTORE_ALL
	ldq	$0, 0($30)
	ldq	$1, 8($30)
	ldq	$2, 16($30)
	ldq	$3, 24($30)
	ldq	$4, 32($30)
	ldq	$5, 40($30)
	ldq	$6, 48($30)
	ldq	$7, 56($30)
	ldq	$8, 64($30)
	ldq	$9, 72($30)
	ldq	$10, 80($30)
	ldq	$11, 88($30)
	ldq	$12, 96($30)
	ldq	$13, 104($30)
	ldq	$14, 112($30)
	ldq	$15, 120($30)
	ldq	$19, 128($30)
	ldq	$20, 136($30)
	ldq	$21, 144($30)
	ldq	$22, 152($30)
	ldq	$23, 160($30)
	ldq	$24, 168($30)
	ldq	$25, 176($30)
	ldq	$26, 184($30)
	ldq	$27, 192($30)
	ldq	$28, 200($30)
	lda	$30, SAVE_BYTES($30)
	.cfi_adjust_cfa_offset -SAVE_BYTES
	.irp	n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,19,20,21,22,23,24,25,26,27,28
	.cfi_same_value \n
	.endr
.endm

/* handler(a0, a1, a2, TrapFrame*) then rti. */
.macro	TRAP_ENTRY name, handler
	.globl	\name
	.align	4
	.type	\name, @function
\name:
	TRAP_CFI_START PAL_FRAME_SIZE
	SAVE_ALL
	mov	$30, $19
	jsr	$26, \handler
	br	$31, trap_return
	.cfi_endproc
	.size	\name, . - \name
.endm

	.text
/* Unwinds a TrapFrame at sp and returns from the trap (to user mode if the
 * frame says so). New user processes start here (kernel/switch.S). */
	.globl	trap_return
	.align	4
	.type	trap_return, @function
trap_return:
	TRAP_CFI_START FRAME_BYTES
	SAVED_REGISTERS_CFI
	RESTORE_ALL
	call_pal CALL_PAL_RTI
	.cfi_endproc
	.size	trap_return, . - trap_return

/* Interrupts. The performance counter never comes here: PALcode's dedicated
 * counter delivery jumps straight to the driver's handler entry that the
 * per-CPU context names (wrperfmon 8; driver/fast_handler.S). */
	.globl	entry_interrupt
	.align	4
	.type	entry_interrupt, @function
entry_interrupt:
	TRAP_CFI_START PAL_FRAME_SIZE
	SAVE_ALL
	mov	$30, $19
	jsr	$26, handle_interrupt
	br	$31, trap_return
	.cfi_endproc
	.size	entry_interrupt, . - entry_interrupt

/* The counter interrupt with the full TrapFrame, for the C++ variants (and
 * the cycles fast path's rare cases), after CALL_PAL perfframe has pushed
 * the OSF/1 frame: a0 = variant, a1 = CpuHot, a2 = observed period. Calls
 * dcpi_counter_interrupt(variant, hot, observed, frame) (driver/handler.cpp);
 * value sampling reads the interrupted registers from the frame. */
	.globl	entry_counter_full
	.align	4
	.type	entry_counter_full, @function
entry_counter_full:
	TRAP_CFI_START PAL_FRAME_SIZE
	br	$29, 1f
1:	ldgp	$29, 0($29)
	SAVE_ALL
	mov	$30, $19
	jsr	$26, dcpi_counter_interrupt
	br	$31, trap_return
	.cfi_endproc
	.size	entry_counter_full, . - entry_counter_full

	TRAP_ENTRY entry_arithmetic, handle_arithmetic_trap
	TRAP_ENTRY entry_memory_fault, handle_memory_fault
	TRAP_ENTRY entry_instruction_fault, handle_instruction_fault
	TRAP_ENTRY entry_unaligned, handle_unaligned
	TRAP_ENTRY entry_system_call, handle_system_call

	.bss
	.align	6
	.globl	boot_stacks
boot_stacks:
	.skip	STACK_BYTES * 4
