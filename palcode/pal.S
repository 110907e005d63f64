/* PALcode for DCPI on QEMU's emulated Alpha (machine clipper, Typhoon).
 *
 * Written for QEMU's "emulation PALcode" model (hw_mfpr/hw_mtpr numbers of
 * DESIGN §3): OSF/1 calling conventions toward the kernel, plus the emulated
 * performance counter of DESIGN §4. The 21164's counters are hardware; QEMU
 * has none, so counter 0 is built on the per-CPU ALARM, which under
 * `-icount shift=2` fires after an exact number of instructions. See
 * palcode/README.md for every deviation from the 21164.
 *
 * Register use inside PALcode: p0-p7 are the PAL shadow registers
 * ($8-$14, $25), so nothing of the interrupted context needs saving.
 */
#include "firmware/ev5_counters.h"
#include "firmware/pal_abi.h"
#include "firmware/profileme.h"
#include "firmware/sample_table.h"

	.set	noat
	.set	nomacro
	.text

#define v0	$0
#define a0	$16
#define a1	$17
#define a2	$18
#define a3	$19
#define a4	$20
#define p0	$8
#define p1	$9
#define p2	$10
#define p3	$11
#define p4	$12
#define p5	$13
#define p6	$14
#define p7	$25

/* QEMU processor registers (DESIGN §3). */
#define prPS		0
#define prFEN		1
#define prTrapArg0	3
#define prTrapArg1	4
#define prTrapArg2	5
#define prExcAddr	6
#define prPtbr		8
#define prVptptr	9
#define prUnique	10
#define prUsp		12
#define prCounterWord	EV5_IPR_OVERFLOW /* ev5 machine: counters 1-2 overflow word (firmware/ev5_counters.h) */
#define prCounterRead	EV5_IPR_READ /* ev5 machine: counters 1-2 values, set at wrperfmon 5 */
#define prVmtime	249
#define prAlarm		251
#define prHalt		252
#define prWait		253
#define prTbis		254
#define prTbia		255

/* PAL scratch registers 40-63: this CPU's PAL state. */
#define ptEntInt	40
#define ptEntArith	41
#define ptEntMM		42
#define ptEntIF		43
#define ptEntUna	44
#define ptEntSys	45
#define ptKgp		46
#define ptKsp		47
#define ptCpu		48
#define ptPcbb		49
#define ptTickInterval	50	/* ns; 0 = scheduler tick off */
#define ptTickDeadline	51	/* absolute virtual ns; all ones = off (never earlier) */
#define ptCtrDeadline	52	/* absolute virtual ns of counter 0 overflow; 0 = counter disabled */
#define ptCtrStart	53	/* virtual ns when the current count began */
#define ptCtrValue	54	/* counter 0 while disabled (16 bits) */
#define ptCtrMux	55
#define ptMces		56
#define ptPerfCtx	57	/* wrperfmon 8: delivered in a1 with counter 0's overflow */
#define ptTimerAck	58	/* 1 << (MISC_ITINTR_SHIFT + cpu): this CPU's timer flag */
#define ptMiscAddr	59	/* physical address of the Typhoon MISC register */
#define ptAlarmStale	60	/* nonzero: ALARM not re-armed since a counter delivery */
#define ptCtrDelivered	61	/* virtual ns of the last counter-0 delivery (for perfframe) */
#define ptPmEntry	62	/* wrperfmon 12: ProfileMe's dedicated entry; 0 = classic delivery */
#define ptSampleTable	63	/* wrperfmon 13: the table PALcode records counter 0's samples in (bit 63 clear: all but the k-th); 0 = the handler does */

#define mfpr	hw_mfpr
#define mtpr	hw_mtpr
#define hw_rei	hw_ret ($31)

/* One counter-0 wrap (2^16 cycles) in virtual ns: 65536 * 4 = 0x40000. */
#define CTR0_WRAP_NS_HI	4	/* ldah: 4 << 16 */

/* Counter 0 starts now (now <- the virtual ns) and overflows `cycles`
 * cycles later (deadline <- that time); the ALARM is re-armed with the
 * earlier of that deadline and the tick's. Clobbers tick and t. */
.macro	START_COUNTER0 cycles, now, deadline, tick, t
	mfpr	\now, prVmtime
	s4addq	\cycles, \now, \deadline	/* now + cycles * 4 ns */
	mtpr	\now, ptCtrStart
	mtpr	\deadline, ptCtrDeadline
	mfpr	\tick, ptTickDeadline	/* all ones when off: never the earlier */
	cmpult	\tick, \deadline, \t
	cmovne	\t, \tick, \deadline
	mtpr	\deadline, prAlarm
.endm

/* reg <- physical address of the Typhoon CCHIP (0x801a0000000). */
.macro	CCHIP	reg
	lda	\reg, TYPHOON_CCHIP_PHYS_HI($31)
	sll	\reg, 29, \reg
.endm

/* Write 1 << (shift + this CPU) to the Typhoon MISC register: clears this
 * CPU's timer or IPI flag (write-1-to-clear). Clobbers p1-p3. */
.macro	ACK_MISC shift
	mfpr	p1, ptCpu
	lda	p2, (1 << \shift)($31)
	sll	p2, p1, p2
	CCHIP	p3
	hw_stq/p p2, TYPHOON_MISC(p3)
.endm

/* Counter 0 <-> its overflow deadline, with p0 = now (virtual ns): the
 * counter overflows after 2^16 - count cycles of 4 ns. */
.macro	CTR0_DEADLINE count, out
	lda	\out, 1($31)
	sll	\out, PERFMON_CTR0_WIDTH, \out
	subq	\out, \count, \out		/* cycles to overflow */
	s4addq	\out, p0, \out		/* now + cycles * 4 ns */
.endm

.macro	CTR0_COUNT deadline, out
	subq	\deadline, p0, \deadline	/* ns until overflow */
	srl	\deadline, 2, \deadline
	lda	\out, 1($31)
	sll	\out, PERFMON_CTR0_WIDTH, \out
	subq	\out, \deadline, \out
.endm

/* Push the OSF/1 kernel entry frame; switch to the kernel stack when the
 * interrupted context was in user mode. ps/pc are PAL registers. */
.macro	KERNEL_FRAME ps, pc, tmp
	and	\ps, PS_USER_MODE, \tmp
	beq	\tmp, 1f
	mtpr	$30, prUsp
	mfpr	$30, ptKsp
1:	lda	$30, -PAL_FRAME_SIZE($30)
	stq	\ps, PAL_FRAME_PS($30)
	stq	\pc, PAL_FRAME_PC($30)
	stq	$29, PAL_FRAME_GP($30)
	stq	a0, PAL_FRAME_A0($30)
	stq	a1, PAL_FRAME_A1($30)
	stq	a2, PAL_FRAME_A2($30)
.endm

/* Enter the kernel at entry point `ent` (a scratch register number) in
 * kernel mode at interrupt level `ipl`, with the kernel's gp. */
.macro	ENTER_KERNEL ent, ipl, tmp
	lda	\tmp, \ipl($31)
	mtpr	\tmp, prPS
	mfpr	$29, ptKgp
	mfpr	\tmp, \ent
	hw_ret	(\tmp)
.endm

/* ------------------------------------------------------------------ */
/* Hardware entry points (offsets from palbr, DESIGN §3).              */
/* ------------------------------------------------------------------ */

	.org	0x0000
	.globl	pal_reset
pal_reset:
	br	$31, pal_reset_body

	.org	0x0080
pal_machine_check:
	br	$31, pal_machine_check_body

	.org	0x0100
pal_interprocessor_interrupt:
	br	$31, pal_ipi_body

	.org	PAL_VECTOR_CLOCK
/* The counter-0 overflow is the hot path (DCPI §4.1: "this path must be
 * cheap"), tested first and delivered from here by a dedicated delivery
 * (palcode/README.md): acknowledge the timer flag, save the interrupted PS,
 * PC and a0-a2 in the per-CPU context's save area (wrperfmon 8), and jump to
 * the handler entry in the context's quadword 0 at IPL 6 with a1 = the
 * context and a2 = the PC. No OSF/1 frame, no stack switch, no kernel gp,
 * no count restart: the handler either returns with rtiperf (reload and
 * return in one PAL entry) or calls perfframe, which builds the classic
 * delivery (frame, restart at the overflow time, observed period) from
 * what is saved here. The ALARM is not re-armed: no clock interrupt can be
 * taken at IPL 6, and both ways out re-arm. */
pal_clock_interrupt:
	mfpr	p0, prVmtime		/* first: the time of delivery */
	mfpr	p1, ptCtrDeadline
	beq	p1, pal_clock_body	/* counter 0 disabled */
	cmpule	p1, p0, p2
	beq	p2, pal_clock_body	/* not the counter: the tick */
	.globl	pal_counter_delivery	/* at PAL_COUNTER_DELIVERY (tests/layering/pal_offsets.py) */
pal_counter_delivery:
	mfpr	p2, ptTimerAck
	mfpr	p3, ptMiscAddr
	hw_stq/p p2, 0(p3)		/* the flag stays asserted until cleared */
	mfpr	p4, ptPerfCtx
	mfpr	p3, ptSampleTable
	blt	p3, pal_record_sample	/* PALcode records it (wrperfmon 13) */
	bne	p3, pal_record_countdown	/* or all but the k-th */
pal_counter_to_handler:			/* p0 = the delivery time, p4 = the context */
	mtpr	p0, ptCtrDelivered	/* for the observed period (perfframe) */
	mfpr	p5, prPS
	stq	a0, PERF_CTX_SAVE_A0(p4)	/* PALmode: kernel translation (KSEG) */
	stq	a1, PERF_CTX_SAVE_A1(p4)
	stq	a2, PERF_CTX_SAVE_A2(p4)
	mfpr	a2, prExcAddr		/* a2 = the interrupted PC */
	stq	p5, PERF_CTX_SAVE_PS(p4)
	stq	a2, PERF_CTX_SAVE_PC(p4)
	lda	p2, IPL_PERFCTR($31)	/* kernel mode, IPL 6 */
	mtpr	p2, prPS
	mov	p4, a1			/* a1 = the context */
	ldq	p5, PERF_CTX_ENTRY(p4)	/* the driver's variant pointer */
	hw_ret	(p5)

	.org	0x0200
pal_device_interrupt:
	mfpr	p0, prPS
	mfpr	p6, prExcAddr
	KERNEL_FRAME p0, p6, p2
	lda	a0, INT_DEVICE($31)
	mov	$31, a1
	mov	$31, a2
	ENTER_KERNEL ptEntInt, IPL_DEVICE, p2

	.org	0x0280
pal_memory_fault:
	mfpr	p0, prPS
	mfpr	p6, prExcAddr
	blbs	p6, pal_fault_in_pal
	KERNEL_FRAME p0, p6, p2
	mfpr	a0, prTrapArg0		/* faulting address */
	mfpr	a1, prTrapArg1		/* MMCSR: TNV, ACV, FOR, FOE, FOW */
	mfpr	a2, prTrapArg2		/* -1 exec, 0 read, 1 write */
	ENTER_KERNEL ptEntMM, IPL_HIGH, p2

	.org	0x0300
pal_unaligned:
	mfpr	p0, prPS
	mfpr	p6, prExcAddr
	blbs	p6, pal_fault_in_pal
	addq	p6, 4, p6		/* OSF/1: resume after the fixed-up access */
	KERNEL_FRAME p0, p6, p2
	mfpr	a0, prTrapArg0		/* address */
	mfpr	a1, prTrapArg1		/* opcode */
	mfpr	a2, prTrapArg2		/* register */
	ENTER_KERNEL ptEntUna, IPL_HIGH, p2

	.org	0x0380
pal_illegal_opcode:
	mfpr	p0, prPS
	mfpr	p6, prExcAddr
	blbs	p6, pal_fault_in_pal
	KERNEL_FRAME p0, p6, p2
	lda	a0, IF_OPCDEC($31)
	ENTER_KERNEL ptEntIF, IPL_HIGH, p2

	.org	0x0400
pal_arithmetic:
	mfpr	p0, prPS
	mfpr	p6, prExcAddr
	blbs	p6, pal_fault_in_pal
	KERNEL_FRAME p0, p6, p2
	mfpr	a0, prTrapArg0		/* exception summary */
	mfpr	a1, prTrapArg1		/* register write mask */
	ENTER_KERNEL ptEntArith, IPL_HIGH, p2

	.org	0x0480
pal_fp_disabled:
	mfpr	p0, prPS
	mfpr	p6, prExcAddr
	blbs	p6, pal_fault_in_pal
	KERNEL_FRAME p0, p6, p2
	lda	a0, IF_FEN($31)
	ENTER_KERNEL ptEntIF, IPL_HIGH, p2

/* ------------------------------------------------------------------ */
/* Privileged CALL_PAL entries: 0x1000 + 64 * n.                        */
/* ------------------------------------------------------------------ */
/* Counters 1 and 2 (the ev5 machine only; our QEMU patch's vector): the
 * model raised their overflow at the instruction the event belongs to. */
	.org	EV5_PAL_VECTOR_COUNTER
pal_event_counter_interrupt:
	br	$31, pal_event_counter_body

/* ProfileMe's dedicated delivery (pal_event_counter_body: a record alone,
 * p5 = the driver's entry), at PAL_PROFILEME_READS: the model sets the read
 * word to Profile Registers 0, 1, 2 and 9 before each of the first four
 * mfpr's (firmware/pal_abi.h), so the entry needs no CALL_PAL per register.
 * PS, PC, a0-a2 and v0, t0, t1 into the context's save area; kernel mode
 * at IPL 6, a1 = the context, and the registers in v0 (the PC), t0 (the
 * events), t1 (the latencies), a0 (register 9), a2 the interrupted PC. The
 * entry returns with rtiperf, a0 = 0, after restoring v0, t0 and t1. */
	.org	PAL_PROFILEME_READS
	.globl	pal_profileme_delivery	/* at PAL_PROFILEME_READS (tests/guest/pal_offsets.py) */
pal_profileme_delivery:
	mfpr	p1, prCounterRead	/* register 0 */
	mfpr	p3, prCounterRead	/* 1 */
	mfpr	p6, prCounterRead	/* 2 */
	mfpr	p7, prCounterRead	/* 9 */
	mfpr	p4, ptPerfCtx
	mfpr	p0, prPS
	stq	a0, PERF_CTX_SAVE_A0(p4)	/* PALmode: kernel translation (KSEG) */
	stq	a1, PERF_CTX_SAVE_A1(p4)
	stq	a2, PERF_CTX_SAVE_A2(p4)
	stq	$0, PERF_CTX_SAVE_R0(p4)
	stq	$1, PERF_CTX_SAVE_R1(p4)
	stq	$2, PERF_CTX_SAVE_R2(p4)
	mfpr	a2, prExcAddr
	stq	p0, PERF_CTX_SAVE_PS(p4)
	stq	a2, PERF_CTX_SAVE_PC(p4)
	mov	p1, $0
	mov	p3, $1
	mov	p6, $2
	mov	p7, a0
	lda	p2, IPL_PERFCTR($31)
	mtpr	p2, prPS
	mov	p4, a1
	hw_ret	(p5)

#define CALL_PAL_PRIV(n)	.org 0x1000 + 64 * (n)
#define CALL_PAL_UNPRIV(n)	.org 0x2000 + 64 * ((n) - 0x80)

	CALL_PAL_PRIV(CALL_PAL_HALT)
pal_halt:
	mtpr	a0, prHalt		/* a0 = 0: power off; 1: reset */
	br	$31, pal_halt

	CALL_PAL_PRIV(CALL_PAL_CFLUSH)
pal_cflush:
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_DRAINA)
pal_draina:
	hw_rei				/* QEMU has no write buffer to drain */

	CALL_PAL_PRIV(CALL_PAL_CSERVE)
pal_cserve:
	br	$31, pal_cserve_body

	CALL_PAL_PRIV(CALL_PAL_WRIPIR)
pal_wripir:				/* a0 = target CPU */
	and	a0, 3, p1
	lda	p2, (1 << MISC_IPREQ_SHIFT)($31)
	sll	p2, p1, p2
	CCHIP	p3
	hw_stq/p p2, TYPHOON_MISC(p3)
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_RDMCES)
pal_rdmces:
	mfpr	v0, ptMces
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_WRMCES)
pal_wrmces:
	mtpr	a0, ptMces
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_WRFEN)
pal_wrfen:
	and	a0, 1, p1
	mtpr	p1, prFEN
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_PERFFRAME)
pal_perfframe:
	br	$31, pal_perfframe_body

	CALL_PAL_PRIV(CALL_PAL_WRVPTPTR)
pal_wrvptptr:
	mtpr	a0, prVptptr
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_SWPCTX)
pal_swpctx:
	br	$31, pal_swpctx_body

	CALL_PAL_PRIV(CALL_PAL_WRVAL)
pal_wrval:
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_RDVAL)
pal_rdval:
	mov	$31, v0
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_TBI)
pal_tbi:				/* a0: -2 tbia, -1 tbiap, 1-3 one VA in a1 */
	blt	a0, 1f
	mtpr	a1, prTbis
	hw_rei
1:	mtpr	$31, prTbia
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_WRENT)
pal_wrent:				/* a0 = entry address, a1 = class */
	br	$31, pal_wrent_body

	CALL_PAL_PRIV(CALL_PAL_SWPIPL)
pal_swpipl:
	mfpr	v0, prPS
	and	v0, PS_IPL_MASK, v0
	and	a0, PS_IPL_MASK, p1
	mtpr	p1, prPS
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_RDPS)
pal_rdps:
	mfpr	v0, prPS
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_WRKGP)
pal_wrkgp:
	mtpr	a0, ptKgp
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_WRUSP)
pal_wrusp:
	mtpr	a0, prUsp
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_WRPERFMON)
pal_wrperfmon:
	br	$31, pal_wrperfmon_body

	CALL_PAL_PRIV(CALL_PAL_RDUSP)
pal_rdusp:
	mfpr	v0, prUsp
	hw_rei

/* rtiperf (ours, palcode/README.md): the reload and the return of the
 * dedicated counter delivery in one PAL entry, for the driver's fast path.
 * a0 = cycles until counter 0's next overflow (1 .. 2^16 = 2^16 - the 21164
 * reset value); the count starts now. a1 = the context. Re-arms the ALARM
 * with the earlier deadline, then restores a0-a2, PS and PC from the save
 * area. The counter cannot have been disabled since the delivery: only this
 * CPU can disable it, and the fast path does not (so no test here).
 * a0 = 0 (ProfileMe's dedicated delivery, pal_event_counter_body): only the
 * return, counter 0 and the ALARM untouched. 16 instructions: it fits its
 * CALL_PAL slot. */
	CALL_PAL_PRIV(CALL_PAL_RTIPERF)
pal_rtiperf:
	beq	a0, 1f			/* ProfileMe's return: counter 0 untouched */
	START_COUNTER0 a0, p0, p1, p2, p3
1:	ldq	p4, PERF_CTX_SAVE_PS(a1)
	ldq	p5, PERF_CTX_SAVE_PC(a1)
	ldq	a0, PERF_CTX_SAVE_A0(a1)
	ldq	a2, PERF_CTX_SAVE_A2(a1)
	ldq	a1, PERF_CTX_SAVE_A1(a1)
	mtpr	p4, prPS		/* as saved: mode and IPL (no stack was switched) */
	hw_ret	(p5)

	CALL_PAL_PRIV(CALL_PAL_WHAMI)
pal_whami:
	mfpr	v0, ptCpu
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_RETSYS)
pal_retsys:				/* back to user mode after callsys */
	ldq	p5, PAL_FRAME_PC($30)
	ldq	$29, PAL_FRAME_GP($30)
	lda	$30, PAL_FRAME_SIZE($30)
	mtpr	$30, ptKsp
	lda	p1, PS_USER_MODE($31)
	mtpr	p1, prPS
	mfpr	$30, prUsp
	hw_ret	(p5)

/* QEMU runs CALL_PAL wtint itself (target/alpha/translate.c halts the CPU
 * without entering PALcode), so the kernel measures each sleep on the
 * virtual clock and reports it through cserve CSERVE_SLEPT (a1 = ns), whose
 * body sits in wtint's slot: it stores the length at PAL_WAIT_SLEPT, where
 * the ev5 model books the sleep (a halted 21164's cycle counter counts on). */
	CALL_PAL_PRIV(CALL_PAL_WTINT)
pal_cserve_slept:
	mfpr	p1, ptCpu
	br	p3, 1f
1:	lda	p3, (pal_mailbox - 1b)(p3)
	s4addq	p1, 0, p1		/* 32 bytes a CPU */
	s8addq	p1, p3, p3
	.globl	pal_wait_slept		/* at PAL_WAIT_SLEPT (tests/guest/pal_offsets.py) */
pal_wait_slept:
	stq	a1, 24(p3)		/* the ev5 model books the sleep from this store */
	mov	$31, v0
	hw_rei

	CALL_PAL_PRIV(CALL_PAL_RTI)
pal_rti:
	mfpr	p4, ptAlarmStale
	bne	p4, pal_rti_rearm
pal_rti_frame:
	ldq	p4, PAL_FRAME_PS($30)
	ldq	p5, PAL_FRAME_PC($30)
	ldq	$29, PAL_FRAME_GP($30)
	ldq	a0, PAL_FRAME_A0($30)
	ldq	a1, PAL_FRAME_A1($30)
	ldq	a2, PAL_FRAME_A2($30)
	lda	$30, PAL_FRAME_SIZE($30)
	and	p4, PS_USER_MODE, p3
	bne	p3, pal_rti_to_user
	and	p4, PS_IPL_MASK, p4
	mtpr	p4, prPS
	hw_ret	(p5)

/* ------------------------------------------------------------------ */
/* Unprivileged CALL_PAL entries: 0x2000 + 64 * (n - 0x80).             */
/* ------------------------------------------------------------------ */

	CALL_PAL_UNPRIV(CALL_PAL_BPT)
pal_bpt:
	lda	p5, IF_BPT($31)
	br	$31, pal_instruction_fault

	CALL_PAL_UNPRIV(CALL_PAL_BUGCHK)
pal_bugchk:
	lda	p5, IF_BUGCHK($31)
	br	$31, pal_instruction_fault

	CALL_PAL_UNPRIV(CALL_PAL_CALLSYS)
pal_callsys:
	mfpr	p0, prPS
	and	p0, PS_USER_MODE, p1
	beq	p1, pal_callsys_from_kernel
	mfpr	p6, prExcAddr
	KERNEL_FRAME p0, p6, p2
	ENTER_KERNEL ptEntSys, 0, p2

	CALL_PAL_UNPRIV(CALL_PAL_IMB)
pal_imb:
	hw_rei				/* QEMU keeps translations coherent itself */

	CALL_PAL_UNPRIV(CALL_PAL_RDUNIQ)
pal_rduniq:
	mfpr	v0, prUnique
	hw_rei

	CALL_PAL_UNPRIV(CALL_PAL_WRUNIQ)
pal_wruniq:
	mtpr	a0, prUnique
	hw_rei

	CALL_PAL_UNPRIV(CALL_PAL_GENTRAP)
pal_gentrap:
	lda	p5, IF_GENTRAP($31)
	br	$31, pal_instruction_fault

/* ------------------------------------------------------------------ */
/* Bodies.                                                              */
/* ------------------------------------------------------------------ */
	.org	0x3000

/* Reset: every CPU arrives here in PALmode with palbr = pal_reset. */
pal_reset_body:
	CCHIP	p3
	hw_ldq/p p1, TYPHOON_MISC(p3)
	and	p1, 3, p1		/* MISC<1:0>: this CPU's number */
	mtpr	p1, ptCpu
	lda	p2, IPL_HIGH($31)
	mtpr	p2, prPS
	mtpr	$31, prAlarm
	mtpr	$31, ptTickInterval
	lda	p2, -1($31)
	mtpr	p2, ptTickDeadline	/* off */
	mtpr	$31, ptCtrDeadline
	mtpr	$31, ptCtrValue
	mtpr	$31, ptCtrMux
	mtpr	$31, ptMces
	mtpr	$31, ptPerfCtx
	mtpr	$31, ptPmEntry
	mtpr	$31, ptSampleTable
	mtpr	$31, ptAlarmStale
	mtpr	$31, ptCtrDelivered
	lda	p2, (1 << MISC_ITINTR_SHIFT)($31)
	sll	p2, p1, p2
	mtpr	p2, ptTimerAck
	CCHIP	p3
	lda	p3, TYPHOON_MISC(p3)
	mtpr	p3, ptMiscAddr
	bne	p1, pal_park
	/* Boot CPU: a0 = memory size, a1 = CPU count, a2 = 0 (CPU number). */
	mfpr	p0, prTrapArg1		/* kernel entry */
	beq	p0, pal_no_kernel
	mfpr	a0, prTrapArg0
	mfpr	a1, prTrapArg2
	and	a1, 0x3f, a1
	mov	$31, a2
	mov	$31, $30
	mov	p0, $27
	hw_ret	(p0)

/* Secondary CPUs wait here until the kernel starts them (cserve 1). */
pal_park:
	mtpr	$31, prWait
	bsr	p7, pal_ack_ipi
	mfpr	p1, ptCpu
	br	p3, 1f
1:	lda	p3, (pal_mailbox - 1b)(p3)
	s4addq	p1, 0, p2		/* 32 bytes a CPU */
	s8addq	p2, p3, p3
	ldq	p0, 0(p3)		/* entry pc */
	beq	p0, pal_park
	ldq	$30, 8(p3)
	ldq	a0, 16(p3)
	stq	$31, 0(p3)
	mov	p0, $27
	hw_ret	(p0)

/* No -kernel given: say so on COM1 (COM1_KSEG) and power off. */
.if (-1 << 42) != KSEG_BASE
.error "pal_no_kernel builds KSEG_BASE as -1 << 42"
.endif
.if (-1 << 42) + (0x101f << 28) + (0xc00 << 16) + 0x3f8 != COM1_KSEG
.error "pal_no_kernel builds COM1_KSEG from KSEG_BASE"
.endif
pal_no_kernel:
	br	p4, 1f
1:	lda	p4, (pal_no_kernel_message - 1b)(p4)
	lda	p3, -1($31)
	sll	p3, 42, p3		/* KSEG_BASE (firmware/memory_map.h), checked above */
	lda	p5, 0x101f($31)
	sll	p5, 28, p5
	addq	p3, p5, p3
	ldah	p3, 0xc00(p3)
	lda	p3, 0x3f8(p3)
2:	ldbu	p1, 0(p4)
	beq	p1, 3f
	stb	p1, 0(p3)
	addq	p4, 1, p4
	br	$31, 2b
3:	mtpr	$31, prHalt
	br	$31, 3b

/* p7 = return: clear this CPU's interprocessor-interrupt flag. */
pal_ack_ipi:
	ACK_MISC MISC_IPINTR_SHIFT
	ret	$31, (p7)

pal_ipi_body:
	bsr	p7, pal_ack_ipi
	mfpr	p0, prPS
	mfpr	p6, prExcAddr
	KERNEL_FRAME p0, p6, p2
	lda	a0, INT_IPI($31)
	mov	$31, a1
	mov	$31, a2
	ENTER_KERNEL ptEntInt, IPL_IPI, p2

pal_machine_check_body:
	mfpr	p6, prExcAddr
	blbs	p6, pal_fault_in_pal
	mfpr	p1, ptEntInt
	beq	p1, pal_fault_in_pal
	mfpr	p0, prPS
	KERNEL_FRAME p0, p6, p2
	lda	a0, INT_MCHK($31)
	mov	$31, a1
	mov	$31, a2
	ENTER_KERNEL ptEntInt, IPL_HIGH, p2

/* A fault inside PALcode is a PALcode bug: power off rather than loop. */
pal_fault_in_pal:
	lda	p1, 0($31)
	mtpr	p1, prHalt
	br	$31, pal_fault_in_pal

/* p7 = return. Arm ALARM with the earlier of the two logical timers'
 * deadlines (DESIGN §4). Clobbers p1-p3. A deadline already past makes
 * QEMU raise the clock interrupt again as soon as it can be taken. */
pal_rearm_alarm:
	mfpr	p1, ptCtrDeadline	/* 0 = counter off */
	mfpr	p2, ptTickDeadline	/* all ones = tick off */
	bne	p1, 1f
	mov	p2, p1
1:	cmpult	p2, p1, p3
	cmovne	p3, p2, p1
	addq	p1, 1, p3		/* both off: ALARM 0 (off), not all ones (QEMU: the past) */
	cmoveq	p3, $31, p1
	mtpr	p1, prAlarm
	mtpr	$31, ptAlarmStale
	ret	$31, (p7)

/* The ALARM fired and counter 0 is not due (pal_clock_interrupt delivers it
 * first, at the higher IPL): p0 = virtual time at delivery. Acknowledge the
 * Typhoon timer flag, then deliver the tick if it expired. If both expired,
 * the counter went first and the re-arm at its rti/rtiperf sets the ALARM in
 * the past, so the tick follows as soon as the IPL drops. */
pal_clock_body:
	ACK_MISC MISC_ITINTR_SHIFT
	mfpr	p1, ptTickDeadline
	cmpule	p1, p0, p2		/* all ones (off) is never due */
	beq	p2, pal_spurious_clock
	mfpr	p3, ptTickInterval
	addq	p1, p3, p1		/* next tick; skip ticks missed at high IPL */
	cmpule	p1, p0, p2
	addq	p0, p3, p4
	cmovne	p2, p4, p1
	mtpr	p1, ptTickDeadline
	bsr	p7, pal_rearm_alarm
	mfpr	p0, prPS
	mfpr	p6, prExcAddr
	KERNEL_FRAME p0, p6, p2
	lda	a0, INT_CLOCK($31)
	mov	$31, a1
	mov	$31, a2
	ENTER_KERNEL ptEntInt, IPL_CLOCK, p2

pal_spurious_clock:
	bsr	p7, pal_rearm_alarm
	hw_rei

/* Counters 1 and 2 overflowed (mfpr 248, bits 1 and 2) or a ProfileMe
 * record is complete (bit 3, firmware/profileme.h): the classic OSF/1
 * delivery, a0 = INT_PERFCTR, a1 = the overflow bits (never a context:
 * counter 0 comes through its dedicated delivery), a2 = 0, at IPL 6. The
 * bits delivered are cleared; one raised meanwhile interrupts again. */
pal_event_counter_body:
	mfpr	p1, prCounterWord
	and	p1, EV5_OVERFLOW_DELIVERED, p1
	beq	p1, pal_perfmon_done	/* nothing (already delivered): back */
	mtpr	p1, prCounterWord
	/* A ProfileMe record alone, with the driver's entry registered
	 * (wrperfmon 12): counter 0's dedicated delivery (pal_clock_interrupt),
	 * without the timer acknowledgement: PS, PC, a0-a2 into the context's
	 * save area, kernel mode at IPL 6, a1 = the context, a2 = the PC. The
	 * entry returns with rtiperf, a0 = 0. */
	cmpeq	p1, EV5_OVERFLOW_PROFILEME, p2
	beq	p2, 1f
	mfpr	p5, ptPmEntry
	bne	p5, pal_profileme_delivery
1:
	mfpr	p0, prPS
	mfpr	p6, prExcAddr
	KERNEL_FRAME p0, p6, p2
	lda	a0, INT_PERFCTR($31)
	mov	p1, a1
	mov	$31, a2
	ENTER_KERNEL ptEntInt, IPL_PERFCTR, p2

/* perfframe (ours): a1 = the context of a dedicated counter delivery not
 * yet returned from. Does what a classic delivery does: restart the count at
 * the overflow time (the counter wraps and keeps counting), push the OSF/1
 * frame of the interrupted context (switching to the kernel stack from user
 * mode), and return to the caller with a0 = INT_PERFCTR, a1 = the context,
 * a2 = the observed period in cycles (larger than the programmed one when
 * the overflow was held back in PALmode or at high IPL: DCPI's blind spots),
 * gp = the kernel's. The caller's sp, gp, a0 and a2 must be the interrupted
 * ones except as saved in the context. The ALARM stays stale until the
 * handler's wrperfmon write or rti re-arms it. */
pal_perfframe_body:
	mfpr	p0, ptCtrDelivered
	mfpr	p1, ptCtrDeadline
	mfpr	p3, ptCtrStart
	mtpr	p1, ptCtrStart		/* the counter wraps and keeps counting */
	subq	p0, p3, p4		/* ns from the start of the count to delivery */
	ldah	p3, CTR0_WRAP_NS_HI(p1)
	mtpr	p3, ptCtrDeadline
	mtpr	p3, ptAlarmStale
	mov	a1, p7
	ldq	p0, PERF_CTX_SAVE_PS(p7)
	ldq	p6, PERF_CTX_SAVE_PC(p7)
	ldq	a0, PERF_CTX_SAVE_A0(p7)
	ldq	a1, PERF_CTX_SAVE_A1(p7)
	ldq	a2, PERF_CTX_SAVE_A2(p7)
	KERNEL_FRAME p0, p6, p2
	lda	a0, INT_PERFCTR($31)
	mov	p7, a1
	srl	p4, 2, a2		/* ns -> cycles: icount shift=2 */
	mfpr	$29, ptKgp
	hw_rei

/* rti after a counter delivery whose handler did not reload: re-arm. */
pal_rti_rearm:
	bsr	p7, pal_rearm_alarm
	br	$31, pal_rti_frame

pal_rti_to_user:
	mtpr	p3, prPS		/* user mode, IPL 0 */
	mtpr	$30, ptKsp
	mfpr	$30, prUsp
	hw_ret	(p5)

/* bpt, bugchk, gentrap: p5 = instruction-fault type. */
pal_instruction_fault:
	mfpr	p0, prPS
	mfpr	p6, prExcAddr
	KERNEL_FRAME p0, p6, p2
	mov	p5, a0
	ENTER_KERNEL ptEntIF, IPL_HIGH, p2

pal_callsys_from_kernel:		/* OSF/1: callsys is for user mode only */
	mfpr	p6, prExcAddr
	KERNEL_FRAME p0, p6, p2
	lda	a0, IF_OPCDEC($31)
	ENTER_KERNEL ptEntIF, IPL_HIGH, p2

pal_wrent_body:
	cmpule	a1, ENT_SYS, p1
	beq	p1, 9f
	br	p2, 1f
1:	s4addq	a1, 0, p1		/* 16 bytes (4 instructions) a class */
	s4addq	p1, p2, p2
	lda	p2, (2f - 1b)(p2)
	jmp	$31, (p2)
2:	mtpr	a0, ptEntInt
	hw_rei
	nop
	nop
	mtpr	a0, ptEntArith
	hw_rei
	nop
	nop
	mtpr	a0, ptEntMM
	hw_rei
	nop
	nop
	mtpr	a0, ptEntIF
	hw_rei
	nop
	nop
	mtpr	a0, ptEntUna
	hw_rei
	nop
	nop
	mtpr	a0, ptEntSys
	hw_rei
9:	hw_rei

/* swpctx: a0 = KSEG address of the new process control block (OSF/1
 * layout: ksp, usp, ptbr, pcc/asn, unique, fen). v0 = the old one. */
pal_swpctx_body:
	mfpr	v0, ptPcbb
	beq	v0, 1f
	stq	$30, 0(v0)
	mfpr	p1, prUsp
	stq	p1, 8(v0)
	mfpr	p1, prUnique
	stq	p1, 32(v0)
1:	mtpr	a0, ptPcbb
	ldq	$30, 0(a0)
	ldq	p1, 8(a0)
	mtpr	p1, prUsp
	ldq	p1, 16(a0)
	mfpr	p2, prPtbr
	mtpr	p1, prPtbr
	cmpeq	p1, p2, p2
	bne	p2, 2f
	mtpr	$31, prTbia		/* new address space: no ASNs yet */
2:	ldq	p1, 32(a0)
	mtpr	p1, prUnique
	ldq	p1, 40(a0)
	and	p1, 1, p1
	mtpr	p1, prFEN
	hw_rei

/* cserve: platform services (firmware/pal_abi.h). */
pal_cserve_body:
	cmpeq	a0, CSERVE_START_CPU, p1
	bne	p1, pal_start_cpu
	cmpeq	a0, CSERVE_SET_TICK, p1
	bne	p1, pal_set_tick
	cmpeq	a0, CSERVE_VMTIME, p1
	bne	p1, pal_read_vmtime
	cmpeq	a0, CSERVE_PAL_IMAGE, p1
	bne	p1, pal_read_image
	cmpeq	a0, CSERVE_SLEPT, p1
	bne	p1, pal_cserve_slept
	lda	v0, -1($31)
	hw_rei

pal_read_image:
	br	v0, 1f
1:	lda	v0, (pal_image_info - 1b)(v0)
	hw_rei

pal_read_vmtime:
	mfpr	v0, prVmtime
	hw_rei

/* a1 = CPU, a2 = entry, a3 = stack, a4 = argument (in a0 at entry). */
pal_start_cpu:
	and	a1, 3, p1
	br	p3, 1f
1:	lda	p3, (pal_mailbox - 1b)(p3)
	s4addq	p1, 0, p2
	s8addq	p2, p3, p3
	stq	a3, 8(p3)
	stq	a4, 16(p3)
	stq	a2, 0(p3)		/* the entry last: it releases the CPU */
	lda	p2, (1 << MISC_IPREQ_SHIFT)($31)
	sll	p2, p1, p2
	CCHIP	p3
	hw_stq/p p2, TYPHOON_MISC(p3)
	mov	$31, v0
	hw_rei

/* a1 = tick interval in ns; 0 stops the tick. */
pal_set_tick:
	mtpr	a1, ptTickInterval
	lda	p1, -1($31)		/* off */
	beq	a1, 1f
	mfpr	p1, prVmtime
	addq	p1, a1, p1
1:	mtpr	p1, ptTickDeadline
	bsr	p7, pal_rearm_alarm
	mov	$31, v0
	hw_rei

/* p2 <- 1 when the machine has counters 1 and 2 (the ev5 model: mfpr 248
 * bit 63), else 0 (plain QEMU reads an unknown IPR as 0). */
.macro	HAS_EVENT_COUNTERS out
	mfpr	\out, prCounterWord
	srl	\out, EV5_HAS_EVENT_COUNTERS_SHIFT, \out
.endm

/* wrperfmon: a0 = function, a1 = argument (EV5/OSF function codes).
 * PALcode's counter 0 counts cycles (= instructions under icount); on ev5
 * the model has counters 1 and 2, and counter 0 when it counts issues. */
pal_wrperfmon_body:
	mov	$31, v0
	mfpr	p0, prVmtime
	cmpeq	a0, PERFMON_WRITE, p1	/* the hot path: DCPI writes on every interrupt */
	bne	p1, pal_perfmon_write
	/* ProfileMe's: three or four reads and a re-arm per record (issue
	 * 27), next so that each skips the rest of the chain (~20
	 * instructions a call). */
	cmpeq	a0, PERFMON_PROFILEME_READ, p1
	bne	p1, pal_perfmon_profileme_read
	cmpeq	a0, PERFMON_PROFILEME_ARM, p1	/* the re-arm, once a record */
	bne	p1, pal_perfmon_write_events
	cmpeq	a0, PERFMON_READ, p1
	bne	p1, pal_perfmon_read
	cmpeq	a0, PERFMON_ENABLE, p1
	bne	p1, pal_perfmon_enable
	cmpeq	a0, PERFMON_ENABLE_CLEAR, p1
	bne	p1, pal_perfmon_enable_clear
	cmpeq	a0, PERFMON_DISABLE, p1
	bne	p1, pal_perfmon_disable
	cmpeq	a0, PERFMON_MUX, p1
	bne	p1, pal_perfmon_mux
	cmpeq	a0, PERFMON_OPTIONS, p1
	bne	p1, pal_perfmon_options
	cmpeq	a0, PERFMON_FREQ, p1
	bne	p1, pal_perfmon_freq
	cmpeq	a0, PERFMON_SET_CONTEXT, p1
	bne	p1, pal_perfmon_set_context
	cmpeq	a0, PERFMON_WRITE_EVENTS, p1
	bne	p1, pal_perfmon_write_events
	cmpeq	a0, PERFMON_PROFILEME_ENTRY, p1
	bne	p1, pal_perfmon_profileme_entry
	cmpeq	a0, PERFMON_PAL_RECORDS, p1
	bne	p1, pal_perfmon_pal_records
pal_perfmon_refuse:
	lda	v0, PERFMON_REFUSED($31)
	hw_rei

/* Counter 0 <- a1<63:48>: it overflows after 2^16 - value cycles. */
pal_perfmon_write:
	srl	a1, PERFMON_CTR0_SHIFT, p1
	mfpr	p2, ptCtrDeadline
	beq	p2, 1f
	CTR0_DEADLINE p1, p2
	mtpr	p0, ptCtrStart
	mtpr	p2, ptCtrDeadline
	bsr	p7, pal_rearm_alarm
	hw_rei
1:	mtpr	p1, ptCtrValue
	hw_rei

pal_perfmon_read:
	mfpr	p2, ptCtrDeadline
	mfpr	v0, ptCtrValue
	beq	p2, 1f
	CTR0_COUNT p2, v0
1:	zapnot	v0, 3, v0
	sll	v0, PERFMON_CTR0_SHIFT, v0
	/* ev5: counters 1 and 2 live in the model, which set their fields
	 * (47:32, 29:16) in mfpr 247 at this call_pal (issue 26 item 4). */
	mfpr	p2, prCounterWord	/* bit 63: the machine has counters 1-2 */
	bge	p2, 2f
	mfpr	p3, ptCtrMux		/* SEL0 = issues: counter 0 is the model's too */
	srl	p3, 31, p3
	cmovlbs	p3, $31, v0
	mfpr	p2, prCounterRead
	or	v0, p2, v0
2:	hw_rei

pal_perfmon_enable_clear:
	blbc	a1, pal_perfmon_done
	mtpr	$31, ptCtrValue
	mtpr	$31, ptCtrDeadline
	/* fall through */
pal_perfmon_enable:
	blbc	a1, pal_perfmon_done
	HAS_EVENT_COUNTERS p2		/* ev5 with SEL0 = issues: the model counts */
	mfpr	p3, ptCtrMux
	srl	p3, 31, p3
	and	p2, p3, p2
	bne	p2, pal_perfmon_done
	mfpr	p0, prVmtime		/* now again: the count starts as before the test */
	mfpr	p2, ptCtrDeadline
	bne	p2, pal_perfmon_done	/* already counting */
	mfpr	p1, ptCtrValue
	CTR0_DEADLINE p1, p2
	mtpr	p0, ptCtrStart
	mtpr	p2, ptCtrDeadline
	bsr	p7, pal_rearm_alarm
	hw_rei

pal_perfmon_disable:
	blbc	a1, pal_perfmon_done
	mfpr	p2, ptCtrDeadline
	beq	p2, pal_perfmon_done
	CTR0_COUNT p2, p1
	zapnot	p1, 3, p1
	mtpr	p1, ptCtrValue
	mtpr	$31, ptCtrDeadline
	bsr	p7, pal_rearm_alarm
pal_perfmon_done:
	hw_rei

/* Mux: SEL0 in bit 31 (counter 0: cycles, or issues: = instructions under
 * icount on the `qemu` machine, the model's count on ev5, where PALcode's
 * clock then leaves counter 0 alone), SEL1 and SEL2 in bits 7:0 (ev5 only;
 * the model checks the selections). */
pal_perfmon_mux:
	HAS_EVENT_COUNTERS p2
	srl	a1, 32, p1
	bne	p1, pal_perfmon_refuse
	sll	a1, 33, p1		/* bits 30:8 must be 0 */
	srl	p1, 41, p1
	bne	p1, pal_perfmon_refuse
	and	a1, EV5_MUX_COUNTERS_1_2, p1
	beq	p1, 1f			/* SEL1/SEL2 given: only with counters 1 and 2 */
	beq	p2, pal_perfmon_refuse
1:	mtpr	a1, ptCtrMux
	hw_rei

/* Options: the kill bits, for counters 1 and 2 (ev5 only). Counter 0 is the
 * virtual clock and counts in every mode (palcode/README.md). */
pal_perfmon_options:
	beq	a1, pal_perfmon_done
	HAS_EVENT_COUNTERS p2
	beq	p2, pal_perfmon_refuse	/* per-mode counting: not on a virtual clock */
	ldah	p3, (EV5_KILL_USER >> 16)($31)
	lda	p3, (EV5_KILL_PAL | EV5_KILL_KERNEL)(p3)
	bic	a1, p3, p1
	bne	p1, pal_perfmon_refuse
	hw_rei

/* Frequency: CTL1 and CTL2 (ev5 only); CTL0 may only say "interrupt when
 * the 16 bits wrap" (counter 0 has no 256-event mode here). */
pal_perfmon_freq:
	beq	a1, pal_perfmon_done
	HAS_EVENT_COUNTERS p2
	beq	p2, pal_perfmon_refuse	/* only the full 16-bit counter */
	lda	p3, ((EV5_CTL_WRAP << EV5_CTL0_SHIFT) | EV5_CTL_COUNTERS_1_2)($31)
	bic	a1, p3, p1
	bne	p1, pal_perfmon_refuse
	hw_rei

/* Counters 1 and 2's values (ours, wrperfmon 9): the model takes them. */
pal_perfmon_write_events:
	HAS_EVENT_COUNTERS p2
	beq	p2, pal_perfmon_refuse
	hw_rei

/* ProfileMe (ours, firmware/profileme.h): the model set the register a1
 * names in mfpr 247 at this call_pal; the ev5 machine only. */
pal_perfmon_profileme_read:
	HAS_EVENT_COUNTERS p2
	beq	p2, pal_perfmon_refuse
	mfpr	v0, prCounterRead
	hw_rei

pal_perfmon_set_context:		/* ours: a1 is delivered in a1 on overflow */
	mtpr	a1, ptPerfCtx
	hw_rei

pal_perfmon_profileme_entry:		/* ours: ProfileMe's dedicated delivery jumps to a1 */
	mtpr	a1, ptPmEntry
	hw_rei

pal_perfmon_pal_records:		/* ours: counter 0's samples recorded in a1's table here */
	mtpr	a1, ptSampleTable
	hw_rei

/* Counter 0's sample recorded in PALcode (wrperfmon 13, DCPI §4.2.1-§4.2.2
 * with the handler's design unchanged: this CPU's context line and table,
 * no locks, a fresh pseudo-random period, a 4-way bucket, the overflow
 * buffer pair; the steps are firmware/sample_table.h's, which the driver's
 * assembly fast path expands too). The delivery branches here instead of
 * saving PS, PC and a0-a2 and jumping to the handler, which would return
 * with rtiperf: in PALmode the shadow registers p0-p7 are the only ones
 * used, so nothing is saved or restored, and the PS is never changed. An
 * eviction into a full overflow buffer (a switch or a drop, the driver's
 * C++) goes to the handler before anything is written; while the table is
 * flushed, or for the other variants, the driver sets no table here.
 * pal_record_hit and the draw come first so that pal_counter_reload sits
 * at the fixed PAL_COUNTER_RELOAD (pal_record_hit + 23 instructions), where
 * the ev5 model reads the period (tests/guest/pal_offsets.py). */
	.org	PAL_COUNTER_RELOAD - 23 * 4
pal_record_hit:				/* p3 = the matching entry */
	SAMPLE_HIT p4, p3, p1
pal_record_draw:
	SAMPLE_PERIOD p4, p1, p2
	.globl	pal_counter_reload	/* at PAL_COUNTER_RELOAD */
pal_counter_reload:			/* p1 = the period: counter 0 starts now */
	START_COUNTER0 p1, p0, p2, p3, p5
	hw_rei				/* to the interrupted PC, PS untouched */

pal_record_sample:			/* p0 = the delivery time, p3 = the table, p4 = the context */
	mfpr	p5, prExcAddr		/* the sampled PC */
	SAMPLE_BUCKET_OFFSET p4, p5, p1, p2
	addq	p3, p1, p3		/* the bucket's way 0 */
	ldl	p6, HOT_PID_EVENT(p4)
	ldq	p1, ENTRY_PC(p3)
	xor	p1, p5, p1
	bne	p1, pal_record_free0
	ldl	p1, ENTRY_PID_EVENT(p3)
	xor	p1, p6, p1
	beq	p1, pal_record_hit
pal_record_free0:			/* way 0 is another sample, or free: then so is the bucket */
	SAMPLE_OTHER_WAYS p3, p5, p6, p1, pal_record_hit, pal_record_fill
	SAMPLE_EVICT p4, p3, p1, p2, pal_record_full
pal_record_fill:
	SAMPLE_FILL p4, p3, p5, p6, p1
	br	$31, pal_record_draw

/* The value and mux variants (the table with bit 63 clear): PALcode
 * records every sample but the k-th, counting the context's countdown
 * byte down as the driver's countdown entries do (driver/fast_handler.S
 * COUNTDOWN_VARIANT); the k-th (the byte at 1) is the handler's, which
 * interprets or rotates and resets the byte. */
pal_record_countdown:
	ldbu	p1, HOT_VALUE_COUNTDOWN(p4)
	subq	p1, 1, p1
	ble	p1, pal_counter_to_handler
	stb	p1, HOT_VALUE_COUNTDOWN(p4)
	sll	p3, 1, p3		/* the table's KSEG address again */
	sra	p3, 1, p3
	br	$31, pal_record_sample

/* An eviction into a full overflow buffer: the handler's, nothing written;
 * a countdown step is taken back first, since the handler's entry takes it
 * again. */
pal_record_full:
	mfpr	p3, ptSampleTable
	blt	p3, pal_counter_to_handler
	ldbu	p1, HOT_VALUE_COUNTDOWN(p4)
	addq	p1, 1, p1
	stb	p1, HOT_VALUE_COUNTDOWN(p4)
	br	$31, pal_counter_to_handler

pal_no_kernel_message:
	.asciz	"palcode: no kernel (-kernel) given; powering off\r\n"

/* For the kernel's load map (cserve CSERVE_PAL_IMAGE): this image's KSEG
 * extent and its NT_GNU_BUILD_ID note (palcode/palcode.ld). */
	.align	3
pal_image_info:
	.quad	pal_reset, pal_image_end, pal_build_id_start, pal_build_id_end

/* Start-up mailboxes for the secondary CPUs: entry, stack, argument. */
	.align	6
pal_mailbox:				/* per CPU: entry, stack, argument, last sleep */
	.skip	32 * 4

	.globl	pal_end
pal_end:
