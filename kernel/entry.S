/* Kernel entry points: the boot CPU's start, a secondary CPU's start, and
 * the trap/interrupt entries registered with wrent. PALcode has already
 * pushed the OSF/1 frame (PS, PC, GP, a0-a2) and loaded the kernel gp; the
 * stubs save the other caller-saved registers, call C++, and return with
 * rti. Callee-saved registers are preserved by the C++ code itself. */
#include "firmware/pal_abi.h"

	.set	noat
	.section .text.entry, "ax"

#define STACK_BYTES	16384
#define SAVE_BYTES	160	/* $0-$8 and $19-$28, 16-byte aligned */

/* Boot CPU: a0 = memory size, a1 = CPU count, a2 = 0; $27 = _start. */
	.globl	_start
	.ent	_start
_start:
	ldgp	$29, 0($27)
	lda	$30, boot_stacks + STACK_BYTES
	jsr	$26, kernel_main
	call_pal 0x00
	.end	_start

/* Secondary CPU (cserve START_CPU): a0 = CPU number, sp set, $27 = entry. */
	.globl	secondary_entry
	.ent	secondary_entry
secondary_entry:
	ldgp	$29, 0($27)
	jsr	$26, secondary_main
	call_pal 0x00
	.end	secondary_entry

.macro	SAVE_CALLER_SAVED
	lda	$30, -SAVE_BYTES($30)
	stq	$0, 0($30)
	stq	$1, 8($30)
	stq	$2, 16($30)
	stq	$3, 24($30)
	stq	$4, 32($30)
	stq	$5, 40($30)
	stq	$6, 48($30)
	stq	$7, 56($30)
	stq	$8, 64($30)
	stq	$19, 72($30)
	stq	$20, 80($30)
	stq	$21, 88($30)
	stq	$22, 96($30)
	stq	$23, 104($30)
	stq	$24, 112($30)
	stq	$25, 120($30)
	stq	$26, 128($30)
	stq	$27, 136($30)
	stq	$28, 144($30)
.endm

.macro	RESTORE_CALLER_SAVED
	ldq	$0, 0($30)
	ldq	$1, 8($30)
	ldq	$2, 16($30)
	ldq	$3, 24($30)
	ldq	$4, 32($30)
	ldq	$5, 40($30)
	ldq	$6, 48($30)
	ldq	$7, 56($30)
	ldq	$8, 64($30)
	ldq	$19, 72($30)
	ldq	$20, 80($30)
	ldq	$21, 88($30)
	ldq	$22, 96($30)
	ldq	$23, 104($30)
	ldq	$24, 112($30)
	ldq	$25, 120($30)
	ldq	$26, 128($30)
	ldq	$27, 136($30)
	ldq	$28, 144($30)
	lda	$30, SAVE_BYTES($30)
.endm

/* handler(a0, a1, a2, TrapFrame*) then rti. */
.macro	TRAP_ENTRY name, handler
	.globl	\name
	.align	4
	.ent	\name
\name:
	SAVE_CALLER_SAVED
	mov	$30, $19
	jsr	$26, \handler
	RESTORE_CALLER_SAVED
	call_pal 0x3f
	.end	\name
.endm

	.text
	TRAP_ENTRY entry_interrupt, handle_interrupt
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
