/* The counter-overflow handler's entries (DCPI §4.2.1-§4.2.3), one per
 * variant; CpuHot::handler points at one of them (DCPI §4.2: "we switch
 * dynamically among specialized versions of the interrupt handler").
 *
 * PALcode's dedicated counter delivery (palcode/pal.S pal_clock_interrupt,
 * palcode/README.md) jumps here through CpuHot::handler (quadword 0 of the
 * context registered with wrperfmon 8) in kernel mode at IPL 6, with
 *   a1 = this CPU's CpuHot,
 *   a2 = the interrupted PC,
 * the interrupted PS, PC and a0-a2 saved in CpuHot line 1 (PalSave), and
 * every other register, sp and gp included, the interrupted context's. No
 * frame was pushed and the stack was not switched: sp may be a user stack,
 * so nothing here touches it.
 *
 * dcpi_entry_cycles is the default variant in assembly: it saves its three
 * scratch registers in PalSave (a0 is free: PALcode saved it), records the
 * sample in the hash table, draws the next period with Park-Miller (Carta's
 * form) and leaves through CALL_PAL rtiperf, which reloads counter 0 and
 * returns from PalSave in one PAL entry. Semantics are those of the C++
 * cycles handler (driver/handler.cpp record() and reload()) exactly; the
 * rare case that needs C++ (an eviction into a full overflow buffer: buffer
 * switch, daemon IPI, or drop) is detected before anything is written and
 * handed to the C++ cycles handler: CALL_PAL
 * perfframe turns the delivery into a classic one (OSF/1 frame on the kernel
 * stack, observed period in a2, kernel gp), then the full-frame path.
 *
 * While the table is being flushed, CpuHot::handler is
 * dcpi_entry_cycles_flushing, which is the C++ cycles handler outright.
 *
 * dcpi_entry_value (seed 001 §3.4: interpret on every k-th interrupt) counts
 * CpuHot::value_countdown down and takes the cycles fast path on the other
 * interrupts; on the k-th it takes the full-frame path to the C++ value
 * handler, which records the sample, reloads, resets the countdown and runs
 * the interpreter on the frame. While flushing it is
 * dcpi_entry_value_flushing, the full-frame path on every interrupt.
 *
 * dcpi_entry_mux does the same with the mux rotation every kMuxEvery-th
 * interrupt (dcpi_entry_mux_flushing: the full-frame path on every one).
 *
 * The other variants (trace, chain) always take the full-frame way: perfframe,
 * then kernel/entry.S entry_counter_full saves the complete TrapFrame and
 * calls dcpi_counter_interrupt(variant, hot, observed, frame)
 * (driver/handler.cpp), which reloads with wrperfmon and returns with rti.
 *
 * No locks, no memory barriers (DCPI §4.2.3). Lines touched on a hit: the
 * two CpuHot lines (state, save area), one bucket, this CPU's
 * DriverCpuStats (at the fixed distance HOT_TO_STATS: no pointer to load).
 */
#include "driver/chain_layout.h"
#include "driver/hot_layout.h"
#include "firmware/pal_abi.h"
#include "firmware/profileme.h"
#include "firmware/trap_frame.h"

	.set	noat
	.text

#define HOT	$17	/* a1: this CPU's CpuHot */
#define PC	$18	/* a2: the sampled PC */
#define T	$16	/* a0: scratch (PAL saved it), the period for rtiperf at the end */
#define STATS(f)	(HOT_TO_STATS + (f))(HOT)	/* this CPU's DriverCpuStats field */

/* The same step with 16807 = 7^5 as five s8subq (8x - x = 7x), one cycle
 * each, instead of mulq (12 cycles on the 21164, and the multiplier busy):
 * seed < 2^31, so seed * 16807 < 2^46 and every partial product is exact.
 * ProfileMe's record (below), where the draw sits on its critical path. */
.macro	PARK_MILLER_SHIFTS seed, tmp
	.rept	5
	s8subq	\seed, \seed, \seed
	.endr
	PARK_MILLER_FOLD \seed, \tmp
.endm

.macro	CYCLES_FAST_PATH name, bail_variant, chain
	.globl	\name
	.align	4
	.ent	\name
\name:
	.frame	$30, 0, $31, 0
	.prologue 0
	stq	$0, HOT_SAVE_R0(HOT)
	stq	$1, HOT_SAVE_R1(HOT)
	stq	$2, HOT_SAVE_R2(HOT)
	rpcc	$0				/* handler cycles from here */
	/* No flushing test: while this CPU's table is being flushed (DCPI
	 * §4.2.3) CpuHot::handler is dcpi_entry_cycles_flushing instead
	 * (driver/handler.cpp select_entry). */
	ldl	$1, HOT_PID_EVENT(HOT)		/* pid | event << 16 */
	SAMPLE_BUCKET_OFFSET HOT, PC, T, $2
	ldq	$2, HOT_TABLE(HOT)
	addq	$2, T, $2			/* $2 = the bucket's way 0 */
	/* Way 0, then 1-3 out of line (firmware/sample_table.h). */
	ldq	T, ENTRY_PC($2)
	xor	T, PC, T
	bne	T, free0\@
	ldl	T, ENTRY_PID_EVENT($2)
	xor	T, $1, T
	bne	T, free0\@
hit\@:	/* $2 = the matching entry */
	SAMPLE_HIT HOT, $2, T
reload\@:	/* No interrupts count: read_stats derives it (hits + misses +
	 * flushing_samples, the last counted by the C++ path). */
	SAMPLE_PERIOD HOT, T, $1		/* a0 = the period, for rtiperf */
	.if	\chain
	br	$31, chain_capture
	.endif
	rpcc	$1
	subl	$1, $0, $1			/* RPCC counts in 32 bits: the delta, sign-extended (< 2^31) */
	ldq	$0, STATS(STATS_HANDLER_CYCLES)
	addq	$0, $1, $0
	stq	$0, STATS(STATS_HANDLER_CYCLES)
	ldq	$0, HOT_SAVE_R0(HOT)
	ldq	$1, HOT_SAVE_R1(HOT)
	ldq	$2, HOT_SAVE_R2(HOT)
	call_pal CALL_PAL_RTIPERF		/* reload counter 0, restore a0-a2/PS/PC, return */

free0\@:	/* way 0 is another sample, or free: then so is the whole bucket */
	SAMPLE_OTHER_WAYS $2, PC, $1, T, hit\@, fill\@
	/* $1 (pid_event) serves as a scratch register and is reloaded. */
	SAMPLE_EVICT HOT, $2, T, $1, bail\@
	ldl	$1, HOT_PID_EVENT(HOT)
fill\@:	/* $2 = the way to write */
	SAMPLE_FILL HOT, $2, PC, $1, T
	br	$31, reload\@

	/* Nothing written yet: restore the scratch registers and let the C++
	 * cycles handler do this sample with the full frame. HOT is intact;
	 * perfframe reloads a0 and a2 from PalSave. */
bail\@:
	ldq	$0, HOT_SAVE_R0(HOT)
	ldq	$1, HOT_SAVE_R1(HOT)
	ldq	$2, HOT_SAVE_R2(HOT)
	call_pal CALL_PAL_PERFFRAME
	lda	$16, \bail_variant($31)
	br	$31, entry_counter_full
	.end	\name
.endm


	CYCLES_FAST_PATH dcpi_entry_cycles, VARIANT_CYCLES, 0

/* Call chains (issue 28 item 2): the cycles fast path above records the
 * sample and draws the period (a0); then the capture runs in C++ on this
 * CPU's chain stack (the interrupted sp may be a user stack), and rtiperf
 * reloads the counter and returns. Instead of perfframe, the full TrapFrame
 * (SAVE_ALL's 26 stores and loads), trap_return and rti (~250 instructions
 * a sample with the C++ record and reload, measured on the qemu machine):
 * only the registers C++ may clobber are saved (a0-a2 and $0-$2 are in
 * PalSave already; s0-s6 are callee-saved), and the TrapFrame that
 * dcpi_chain_capture reads holds what the capture needs: PS, PC, ra, fp,
 * t9 (driver/chain_sampler.cpp). A full hash-table bucket's eviction into
 * a full buffer bails out to the full-frame chain handler (bail_variant). */
	CYCLES_FAST_PATH dcpi_entry_chain, VARIANT_CHAIN, 1

#define CHAIN_FRAME_SP		(SAVE_BYTES + PAL_FRAME_SIZE)	/* the interrupted sp */
#define CHAIN_FRAME_START	(CHAIN_FRAME_SP + 8)	/* RPCC at entry */
#define CHAIN_FRAME_PERIOD	(CHAIN_FRAME_SP + 16)	/* a0 for rtiperf */
#define CHAIN_FRAME_HOT		(CHAIN_FRAME_SP + 24)
#define CHAIN_FRAME_HEAD_AT	(CHAIN_FRAME_SP + 32)	/* the fast path's head place in the ring */
#define CHAIN_FRAME_BYTES	(CHAIN_FRAME_SP + 48)	/* 16-byte aligned: the C++ capture's sp */
#define SAVE_BYTES		TRAP_FRAME_SAVE_BYTES	/* $0-$15 and $19-$28 (firmware/trap_frame.h) */
/* Where this CPU's chain stack ends: dcpi_chain_stacks follows
 * dcpi_pm_hot in .bss.dcpi_percpu (below), so it is HOT_TO_PM + ProfileMe's
 * lines past dcpi_cpu_slots, which is cpu * HOT_SIZE before HOT. */
#define SLOTS_TO_CHAIN_STACKS	(HOT_TO_PM + DCPI_MAX_CPUS * PM_SIZE)

/* The interrupted context's registers the C++ entries may clobber (PAL
 * saved a0-a2, the entries $0-$2), at their trap-frame offsets, $sp = the
 * frame; `op` stq saves, ldq restores: t2-t7, then a3-a5, t8-t11, ra, pv
 * and at, and with gp=1 gp in the slot after at (ProfileMe's entry keeps it
 * there; the chain capture, in the PAL frame). */
.macro	FRAME_T2_TO_T7 op
	.irp	n, 3,4,5,6,7,8
	\op	$\n, \n * 8($30)
	.endr
.endm
.macro	FRAME_A3_TO_AT op, gp=0
	.irp	n, 19,20,21,22,23,24,25,26,27,28
	\op	$\n, 128 + (\n - 19) * 8($30)
	.endr
	.if	\gp
	\op	$29, 128 + (29 - 19) * 8($30)
	.endif
.endm

/* $2 = `frame` bytes below the end of this CPU's chain stack: the frame of
 * the chain capture or of ProfileMe's entry, which both run on it (IPL 6:
 * it is free). Clobbers $1. */
.macro	CHAIN_STACK_FRAME frame
	ldbu	$1, HOT_CPU(HOT)
	sll	$1, HOT_SIZE_SHIFT, $2
	subq	HOT, $2, $2			/* dcpi_cpu_slots */
	addq	$1, 1, $1
	sll	$1, CHAIN_STACK_SHIFT, $1
	addq	$2, $1, $2
	lda	$2, SLOTS_TO_CHAIN_STACKS - (\frame)($2)
.endm

/* The fast path's working registers and ra (saved at their trap-frame slots, the
 * FRAME_* macros' layout), and the others the C++ capture may clobber,
 * saved only when it runs. */
.macro	CHAIN_FAST_REGS op
	.irp	n, 3,4,5,6,7,8
	\op	$\n, \n * 8($30)
	.endr
	.irp	n, 19,20,21,22,26
	\op	$\n, 128 + (\n - 19) * 8($30)
	.endr
.endm
.macro	CHAIN_SLOW_REGS op
	\op	$15, 120($30)
	.irp	n, 23,24,25,27,28
	\op	$\n, 128 + (\n - 19) * 8($30)
	.endr
.endm

/* ChainReference::index(va) in place: (va / 8) & (kWords - 1), bits 3-13
 * (an operate literal has 8 bits: no mask constant). */
.macro	REFERENCE_INDEX reg
	sll	\reg, 50, \reg
	srl	\reg, 53, \reg
.endm
#if CB_REFERENCE_MASK != 2047
#error "REFERENCE_INDEX keeps 11 bits"
#endif

/* uint64_t dcpi_chain_user_capture(ChainBuffer* cb, uint64_t sp,
 *                                  uint64_t* ring, uint64_t room, uint64_t cpu)
 *
 * A user slice from sp up to the thread's stack base, in assembly, when
 * that slice lies in sp's page (a shallow program's stack), the page's
 * translation is cached, it fits in the `room` quadwords at `ring`, and at
 * most CHAIN_SCAN_BELOW_WORDS low quadwords go: driver/chain_sampler.cpp's
 * user_slice step by step (the limit at the stack base, stack_page_kseg's
 * hit test, ChainReference's one-run unchanged_run and take), the same
 * quadwords sent, the same reference left. Returns chain_counts(low,
 * reused, high) (the slice always ends: kChainStackEnd), and $22 = past
 * the last quadword written; or -1, having written nothing: then the C++
 * path does it. The caller checked the reference is this thread's
 * (user_pid). Compiled, that path was ~520 instructions a sample on
 * compress (issue 28's cost). C ABI (kernel gp in $29), clobbering only
 * $0-$5, $7, $8 and $16-$22: the chain fast path below keeps $6. */
#define CB	$1	/* this CPU's ChainBuffer (left there) */
#define SP_U	$3	/* the sampled thread's sp */
#define FROM	$4	/* KSEG address of SP_U */
#define BASE	$5	/* the slice's end: the thread's stack base */
#define TOP	$7
#define A	$8	/* the new slice's quadwords, from the top down */
#define B	$19	/* the reference's */
#define STOP	$20
#define LOW	$20
#define REUSED	$21
#define RING	$22	/* the next sent quadword's place in the ring */
/* $16 quadwords from A to the reference's words at B and to the ring,
 * all three pointers advanced; none when $16 = 0 (clobbers $0, $16). */
.macro	COPY_SENT_QUADWORDS
	beq	$16, $Lcopied\@
$Lcopy\@:
	ldq	$0, 0(A)
	stq	$0, 0(B)
	stq	$0, 0(RING)
	lda	A, 8(A)
	lda	B, 8(B)
	subq	$16, 1, $16
	lda	RING, 8(RING)
	bne	$16, $Lcopy\@
$Lcopied\@:
.endm
	.globl	dcpi_chain_user_capture
	.align	4
	.ent	dcpi_chain_user_capture
dcpi_chain_user_capture:
	.frame	$30, 0, $26, 0
	.prologue 0
	mov	$16, CB
	mov	$17, SP_U
	mov	$18, RING
	mov	$19, REUSED			/* room, until n is known */
	and	SP_U, 7, $0
	bne	$0, capture_none
	/* The running thread's address space and stack base (as
	 * kernel::current_user_stack; no mm: C++). */
	lda	$0, dcpi_running_processes
	ldq	$0, 0($0)
	s8addq	$20, $0, $0
	ldq	$0, 0($0)
	beq	$0, capture_none
	ldq	$16, PROCESS_MM($0)
	beq	$16, capture_none
	lda	$16, MM_SPACE($16)		/* $16 = space */
	ldq	BASE, PROCESS_USER_STACK_BASE($0)
	bic	BASE, 7, BASE			/* sp + 8n: the slice's whole quadwords */
	/* The slice [sp, base) in sp's page: base > sp, within the configured
	 * size, no further than the page's end, in the room. */
	cmpult	SP_U, BASE, $0
	beq	$0, capture_none
	subq	BASE, SP_U, $0			/* the slice's bytes */
	ldl	$18, CB_USER_PID - 4(CB)	/* stack_words (u32, just below user_pid) */
	s8addq	$18, 0, $18
	cmpule	$0, $18, $18
	beq	$18, capture_none
	lda	$18, 8191($31)
	and	SP_U, $18, $18
	addq	$18, $0, $18
	lda	$2, 8192($31)
	cmpule	$18, $2, $18
	beq	$18, capture_none
	srl	$0, 3, $0			/* n */
	cmpule	$0, REUSED, $0
	beq	$0, capture_none
	/* The stack page's translation from the cache (stack_page_kseg's hit
	 * test; a miss refills it in C++). */
	lda	$0, _ZN6kernel17page_tables_freedE
	ldq	$0, 0($0)
	mb
	ldq	$2, CB_PAGE_FREED(CB)
	cmpeq	$0, $2, $0
	beq	$0, capture_none
	ldq	$2, CB_PAGE_SPACE(CB)
	cmpeq	$16, $2, $2
	beq	$2, capture_none
	lda	$0, -8192($31)
	and	SP_U, $0, $0			/* the page */
	ldq	$2, CB_PAGE_PAGE(CB)
	cmpeq	$0, $2, $2
	beq	$2, capture_none
	ldq	$2, CB_PAGE_SLOT(CB)
	ldq	$2, 0($2)
	ldq	$16, CB_PAGE_PTE(CB)
	cmpeq	$2, $16, $2
	beq	$2, capture_none
	ldq	FROM, CB_PAGE_KSEG(CB)
	subq	SP_U, $0, $0
	addq	FROM, $0, FROM
	/* ChainReference::unchanged_run (one run): the overlap [bottom, top)
	 * with the previous slice [lo, hi), compared from the top down. */
	ldq	$0, CB_USER_LO(CB)		/* lo */
	ldq	$2, CB_USER_HI(CB)		/* hi */
	mov	BASE, TOP
	cmpult	$2, TOP, $16
	cmovne	$16, $2, TOP			/* top = min(end, hi) */
	mov	SP_U, $16
	cmpult	$16, $0, $18
	cmovne	$18, $0, $16			/* $16 = bottom = max(sp, lo) */
	mov	BASE, A				/* equal_from = end: nothing reused */
	cmpeq	$0, $2, $0
	bne	$0, capture_diffed		/* no previous slice */
	cmpule	TOP, $16, $0
	bne	$0, capture_diffed		/* no overlap */
	subq	TOP, SP_U, $0
	addq	FROM, $0, A			/* KSEG pointers: A = from + (top - sp) */
	subq	$16, SP_U, $0
	addq	FROM, $0, STOP			/* STOP = from + (bottom - sp) */
	lda	$0, -8(TOP)
	REFERENCE_INDEX $0		/* the page's quadwords lie unwrapped in words[] */
	s8addq	$0, CB, B
	lda	B, CB_USER_WORDS + 8(B)		/* B = &words[index(top - 8)] + 1 */
	/* Four at a time while all four are equal, then one by one. */
	lda	$2, 32(STOP)
	cmpult	A, $2, $0
	bne	$0, 3f
2:	ldq	$0, -8(A)
	ldq	$2, -8(B)
	ldq	$16, -16(A)
	ldq	$18, -16(B)
	xor	$0, $2, $0
	xor	$16, $18, $16
	ldq	$2, -24(A)
	ldq	$18, -24(B)
	or	$0, $16, $0
	xor	$2, $18, $2
	ldq	$16, -32(A)
	ldq	$18, -32(B)
	or	$0, $2, $0
	xor	$16, $18, $16
	or	$0, $16, $0
	bne	$0, 3f
	lda	A, -32(A)
	lda	B, -32(B)
	lda	$2, 32(STOP)
	cmpule	$2, A, $0
	bne	$0, 2b
3:	cmpeq	A, STOP, $0
	bne	$0, 4f
	ldq	$0, -8(A)
	ldq	$2, -8(B)
	cmpeq	$0, $2, $0
	beq	$0, 4f
	lda	A, -8(A)
	lda	B, -8(B)
	br	$31, 3b
4:	subq	A, FROM, $0
	addq	SP_U, $0, A			/* equal_from, as an address in the thread */
capture_diffed:	/* A = equal_from: low = (A - sp) / 8, reused = (top - A) / 8 */
	subq	A, SP_U, LOW
	srl	LOW, 3, LOW
	mov	$31, REUSED
	cmpult	A, TOP, $0			/* (without overlap A = end >= TOP) */
	beq	$0, 5f
	subq	TOP, A, REUSED
	srl	REUSED, 3, REUSED
5:	/* prefer_longer_run would scan: C++ (nothing written yet). */
	cmpule	LOW, CHAIN_SCAN_BELOW_WORDS, $0
	bne	$0, 6f
	ldq	$0, CB_USER_LO(CB)
	ldq	$2, CB_USER_HI(CB)
	cmpeq	$0, $2, $0
	beq	$0, capture_none
6:
	/* ChainReference::take: [sp, sp + 8 low) and [equal_from + 8 reused,
	 * end) into words[] and the ring. */
	mov	SP_U, $0
	REFERENCE_INDEX $0
	s8addq	$0, CB, B
	lda	B, CB_USER_WORDS(B)		/* B = &words[index(sp)] */
	mov	FROM, A
	mov	LOW, $16
	COPY_SENT_QUADWORDS
	s8addq	REUSED, A, A			/* past the reused run */
	s8addq	REUSED, B, B
	subq	BASE, SP_U, $16
	srl	$16, 3, $16
	subq	$16, LOW, $16
	subq	$16, REUSED, $16		/* $16 = high */
	mov	$16, $18
	COPY_SENT_QUADWORDS
	stq	SP_U, CB_USER_LO(CB)
	stq	BASE, CB_USER_HI(CB)
	sll	$18, 24, $0			/* chain_counts(low, reused, high) */
	sll	REUSED, 12, $2
	or	$0, $2, $0
	or	$0, LOW, $0
	ret	$31, ($26), 1
capture_none:
	lda	$0, -1($31)
	ret	$31, ($26), 1
	.end	dcpi_chain_user_capture
#undef SP_U
#undef FROM
#undef BASE
#undef TOP
#undef A
#undef B
#undef STOP
#undef LOW
#undef REUSED

/* The chain capture. A user-mode sample of the thread the reference is
 * of, whose slice dcpi_chain_user_capture takes, and that crosses no wake
 * level of the daemon (signal_daemon is C++), is done here with eleven
 * registers saved (finish_sample's head, written last, then published);
 * the 18-register save and the C++ capture (chain_slow) only for the
 * others: kernel-mode samples, a slice across pages or deep, a new thread,
 * a stack page translation to refill. */
#define BEFORE	$6	/* the ring's head: where this sample's head goes */
	.align	4
	.ent	chain_capture
chain_capture:	/* $0 = RPCC at entry, T = the period, $1 and $2 free */
	.frame	$30, 0, $31, 0
	.prologue 0
	CHAIN_STACK_FRAME CHAIN_FRAME_BYTES
	stq	$30, CHAIN_FRAME_SP($2)
	mov	$2, $30
	stq	$0, CHAIN_FRAME_START($30)
	stq	T, CHAIN_FRAME_PERIOD($30)
	stq	HOT, CHAIN_FRAME_HOT($30)
	CHAIN_FAST_REGS stq
	stq	$29, SAVE_BYTES + PAL_FRAME_GP($30)
	ldq	$0, PERF_CTX_SAVE_PS(HOT)
	and	$0, PS_USER_MODE, $0
	beq	$0, chain_slow			/* kernel-mode samples: C++ */
	br	$29, 1f
1:	ldgp	$29, 0($29)
	ldbu	$20, HOT_CPU(HOT)		/* cpu */
	lda	$16, dcpi_chain_buffers
	sll	$20, CHAIN_BUFFER_SHIFT, $0
	addq	$16, $0, $16			/* cb */
	/* The reference is of this thread (else C++ forgets it). */
	ldwu	$0, HOT_PID_EVENT(HOT)
	ldwu	$2, CB_USER_PID($16)
	cmpeq	$0, $2, $0
	beq	$0, chain_slow
	/* The ring: tail (acquire, as chain_sample) and head. Even the
	 * largest slice ends below the wake level (so no signal_daemon;
	 * room_for holds then too). */
	ldq	$0, CB_TAIL($16)
	mb
	ldq	BEFORE, CB_HEAD($16)
	subq	BEFORE, $0, $0
	lda	$2, CHAIN_RING_WORDS / 2 - 1 - 6 - CHAIN_MAX_SLICE_WORDS($31)
	cmpule	$0, $2, $0
	beq	$0, chain_slow
	lda	$0, dcpi_chain_words
	sll	$20, CHAIN_RING_SHIFT, $2
	addq	$0, $2, $0
	lda	$2, CHAIN_RING_WORDS - 1($31)
	and	BEFORE, $2, $2
	s8addq	$2, $0, $0			/* the head's place */
	stq	$0, CHAIN_FRAME_HEAD_AT($30)
	lda	$18, 48($0)			/* kChainHeadWords on: ring */
	lda	$19, CHAIN_RING_WORDS - 6($31)
	subq	$19, $2, $19			/* room: up to the ring's end */
	blt	$19, chain_slow			/* not even the head fits before it */
	ldq	$17, CHAIN_FRAME_SP($30)	/* sp */
	bsr	$26, dcpi_chain_user_capture
	blt	$0, chain_slow
	/* finish_sample: the head (chain_head_first: pid, flags kChainUser |
	 * kChainStackEnd, sequence, counts). */
	ldq	HOT, CHAIN_FRAME_HOT($30)
	sll	$0, 28, $0
	ldbu	$2, CB_SEQUENCE(CB)
	sll	$2, 20, $16
	or	$0, $16, $0
	lda	$2, 1($2)
	stb	$2, CB_SEQUENCE(CB)
	ldwu	$16, HOT_PID_EVENT(HOT)
	or	$0, $16, $0
	ldah	$16, 3($31)			/* (kChainUser | kChainStackEnd) << 16 */
	or	$0, $16, $0
	ldq	$2, CHAIN_FRAME_HEAD_AT($30)
	stq	$0, 0($2)
	ldq	$0, PERF_CTX_SAVE_PC(HOT)
	stq	$0, 8($2)
	ldq	$0, CHAIN_FRAME_SP($30)
	stq	$0, 16($2)
	ldq	$0, 128 + (26 - 19) * 8($30)	/* ra, saved with the fast registers */
	stq	$0, 24($2)
	stq	$15, 32($2)			/* fp */
	stq	$23, 40($2)			/* t9 */
	subq	RING, $2, $0
	srl	$0, 3, $0
	addq	BEFORE, $0, $0			/* the new head */
	wmb
	stq	$0, CB_HEAD(CB)
	br	$31, chain_done
#undef BEFORE
#undef CB
#undef RING

chain_slow:	/* the C++ capture: the fast registers are saved, untouched */
	ldq	HOT, CHAIN_FRAME_HOT($30)
	ldq	$29, SAVE_BYTES + PAL_FRAME_GP($30)
	CHAIN_SLOW_REGS stq
	ldq	$1, PERF_CTX_SAVE_PS(HOT)
	stq	$1, SAVE_BYTES + PAL_FRAME_PS($30)
	ldq	$1, PERF_CTX_SAVE_PC(HOT)
	stq	$1, SAVE_BYTES + PAL_FRAME_PC($30)
	br	$29, 1f
1:	ldgp	$29, 0($29)
	mov	HOT, $16
	mov	$30, $17
	ldq	$18, CHAIN_FRAME_SP($30)
	jsr	$26, dcpi_chain_capture		/* (hot, frame, interrupted sp) */
	ldq	HOT, CHAIN_FRAME_HOT($30)
	CHAIN_SLOW_REGS ldq
chain_done:
	CHAIN_FAST_REGS ldq
	ldq	$29, SAVE_BYTES + PAL_FRAME_GP($30)
	rpcc	$1
	ldq	$0, CHAIN_FRAME_START($30)
	subl	$1, $0, $1			/* as the fast path: 32-bit delta */
	ldq	$0, STATS(STATS_HANDLER_CYCLES)
	addq	$0, $1, $0
	stq	$0, STATS(STATS_HANDLER_CYCLES)
	ldq	T, CHAIN_FRAME_PERIOD($30)
	ldq	$30, CHAIN_FRAME_SP($30)
	ldq	$0, HOT_SAVE_R0(HOT)
	ldq	$1, HOT_SAVE_R1(HOT)
	ldq	$2, HOT_SAVE_R2(HOT)
	call_pal CALL_PAL_RTIPERF		/* reload counter 0, restore a0-a2/PS/PC, return */
	.end	chain_capture

/* ProfileMe's dedicated delivery (issue 27; palcode/pal.S
 * pal_profileme_delivery, firmware/profileme.h PERFMON_PROFILEME_ENTRY): a
 * record's interrupt comes here as counter 0's comes to the variants, with
 * a1 = this CPU's CpuHot, PS, PC, a0-a2 and v0, t0, t1 in PalSave, sp the
 * interrupted one, and the Profile Registers in registers: v0 = the PC
 * (0), t0 = the events (1), t1 = the latencies (2), a0 = register 9.
 *
 * The record in assembly, as the cycles fast path records a sample (no
 * C++, no frame): its entry of (PID, PC, pattern) in this CPU's ProfileMe
 * table (driver/profileme_table.h pm_record and pm_table_add, exactly), the
 * next interval from the mean's table (firmware/exponential_table.h
 * exp_table_interval, exactly) and rtiperf with a0 = 0 (counter 0
 * untouched) and a2 = the interval, which re-arms the Fetched Instruction
 * Counter (firmware/profileme.h PERFMON_PROFILEME_ENTRY). Its five more
 * scratch registers, t2-t6, are saved in this CPU's PmHot line (HOT_TO_PM
 * from HOT), which it reads right after (so the restores hit). What needs C++ goes to pm_slow before
 * anything is written: pairs, counting mode, the table being flushed
 * (PmHot::fast, CpuHot::flushing), an eviction, a count at UINT16_MAX, a
 * sum that might wrap (one at 2^31 or more). */
#define PM(f)	(HOT_TO_PM + (f))(HOT)
#define PM_FRAME_SP	(SAVE_BYTES + 8)	/* the interrupted sp */
#define PM_FRAME_HOT	(SAVE_BYTES + 16)
#define PM_FRAME_BYTES	(SAVE_BYTES + 32)	/* a multiple of 16 */
#define PM_PC	$0	/* register 0; then a new sum */
#define PM_BITS	$1	/* register 1; then a new sum */
#define PM_LAT	$2	/* register 2 */
#define PM_LAT2	$16	/* register 9; then a new sum */
#define PM_X	$18	/* the bucket, then the entry */
#define PM_PAT	$3	/* the pattern */
#define PM_STALL $4	/* slot -> issue */
#define PM_LOAD	$5	/* load -> data (0: not a load) */
#define PM_KEY	$6	/* pid | pattern << 32: the entry's quadword 1 less its count */
#define PM_T	$7
#define PM_BASE	$16	/* PM_LAT2 once the record's load is taken: the bin's base */
#define PM_WIDTH $1	/* PM_BITS once the pattern is made: the bin's width */

/* out = profileme_latency_bucket(x) + 1 = 8 - #{k in 1..7 : x < 2^k}:
 * 1 for x < 2, ..., 8 for x >= 128 (firmware/profileme.h). */
.macro	PM_BUCKET1 x, out, tmp
	cmpult	\x, 2, \out
	.irp	lim, 4, 8, 16, 32, 64, 128
	cmpult	\x, \lim, \tmp
	addq	\out, \tmp, \out
	.endr
	lda	\tmp, 8($31)
	subq	\tmp, \out, \out
.endm

/* Entry `offset` of the bucket: PC and key (its count masked off) equal? */
.macro	PM_PROBE offset, next, hit
	ldq	PM_T, \offset(PM_X)
	cmpeq	PM_T, PM_PC, PM_T
	beq	PM_T, \next
	ldq	PM_T, \offset + 8(PM_X)
	zap	PM_T, 0x0c, PM_T		/* bytes 2-3: the count */
	cmpeq	PM_T, PM_KEY, PM_T
	beq	PM_T, \next
	lda	PM_X, \offset(PM_X)
	br	$31, \hit
.endm

	.globl	dcpi_entry_profileme
	.align	4
	.ent	dcpi_entry_profileme
dcpi_entry_profileme:
	.frame	$30, 0, $31, 0
	.prologue 0
	/* The saves first, then both lines' loads together: their misses
	 * overlap instead of one after the other. */
	stq	$3, PM(PM_SAVE + 0)
	stq	$4, PM(PM_SAVE + 8)
	stq	$5, PM(PM_SAVE + 16)
	stq	$6, PM(PM_SAVE + 24)
	stq	$7, PM(PM_SAVE + 32)
	ldbu	PM_X, PM(PM_FAST)
	ldbu	PM_T, HOT_FLUSHING(HOT)
	ldwu	PM_KEY, HOT_PID_EVENT(HOT)	/* the pid */
	beq	PM_X, pm_bail
	bne	PM_T, pm_bail
	/* pm_record: the pattern, the stall, the load and their buckets. */
	lda	PM_PAT, 0x1fff($31)		/* kPmPatternBits */
	and	PM_BITS, PM_PAT, PM_PAT
	zapnot	PM_LAT, 0x0f, PM_STALL
	beq	PM_STALL, 1f
	PM_BUCKET1 PM_STALL, PM_T, PM_X
	sll	PM_T, 13, PM_T			/* kPmStallBucketShift */
	or	PM_PAT, PM_T, PM_PAT
1:	mov	$31, PM_LOAD
	srl	PM_BITS, 11, PM_T		/* PROFILEME_BIT_LOAD */
	blbc	PM_T, 2f
	zapnot	PM_LAT2, 0x0f, PM_LOAD
	PM_BUCKET1 PM_LOAD, PM_T, PM_X
	sll	PM_T, 17, PM_T			/* kPmLoadBucketShift */
	or	PM_PAT, PM_T, PM_PAT
2:	/* pm_bucket_of first, so that the bucket's miss (~50 cycles: the
	 * table is evicted between records) is under way while Park-Miller's
	 * mulq (12) and the bin's loads run: h = (pc >> 2) + ((pid << 20) ^
	 * pattern) * 0x9e3779b1; h ^= h >> 12; h & 511. Bits 0-20 of h are
	 * all it takes, so the multiplier's low 21 bits (0x1779b1) do. */
	sll	PM_KEY, 20, PM_X
	xor	PM_X, PM_PAT, PM_X
	ldah	PM_T, 0x17($31)
	lda	PM_T, 0x79b1(PM_T)
	mull	PM_X, PM_T, PM_X		/* the low 32 bits do too */
	ldq	$16, PM(PM_TABLE)		/* a0: free once the load is taken */
	sll	PM_PAT, 32, $1			/* t0: free once the pattern is made */
	or	PM_KEY, $1, PM_KEY
	srl	PM_PC, 2, PM_T
	ldl	$1, PM(PM_SEED)
	addq	PM_X, PM_T, PM_X
	srl	PM_X, 12, PM_T
	xor	PM_X, PM_T, PM_X
	sll	PM_X, 64 - PM_BUCKET_BITS, PM_X
	srl	PM_X, 64 - PM_BUCKET_BITS - PM_BUCKET_SHIFT, PM_X
	addq	$16, PM_X, PM_X			/* the bucket */
	ldq	PM_T, 0(PM_X)			/* entry 0's PC: the miss starts */
	/* exp_table_interval's first step meanwhile: the next value (stored),
	 * its bin's base in a0 and width in t0, so that the bin's line comes
	 * in while the table is updated; pm_arm finishes the draw. */
	PARK_MILLER_SHIFTS $1, $16
	stl	$1, PM(PM_SEED)
	srl	$1, 23, $16			/* kExpFractionBits: the bin */
	sll	$16, 4, $16			/* an ExpBin is 16 bytes */
	ldq	$1, PM(PM_INTERVALS)
	addq	$1, $16, $16
	ldq	PM_WIDTH, 8($16)
	ldq	PM_BASE, 0($16)
	/* Entry 0: PC and key (its count masked off) equal? */
	cmpeq	PM_T, PM_PC, PM_T
	beq	PM_T, pm_probe1
	ldq	PM_T, 8(PM_X)
	zap	PM_T, 0x0c, PM_T		/* bytes 2-3: the count */
	cmpeq	PM_T, PM_KEY, PM_T
	bne	PM_T, pm_hit
pm_probe1:	PM_PROBE 32, pm_miss, pm_hit

pm_hit:	/* PM_X = the entry: count + 1 and the sums, unless one might wrap */
	ldq	PM_PC, 8(PM_X)			/* key | count << 16 */
	extwl	PM_PC, 2, PM_T
	addq	PM_T, 1, PM_T
	srl	PM_T, 16, PM_T
	bne	PM_T, pm_bail			/* the count is UINT16_MAX: expand, in C++ */
	ldah	PM_T, 1($31)
	addq	PM_PC, PM_T, PM_PC
	ldq	PM_PAT, 16(PM_X)		/* issue | fetch << 32 */
	ldq	PM_KEY, 24(PM_X)		/* stall | load << 32 */
	/* Each sum below 2^31, the record's stall and load too (issue and
	 * fetch are below 2^16): no sum wraps, no half carries into the other.
	 * Else C++ adds exactly (or expands). */
	or	PM_PAT, PM_KEY, PM_T
	or	PM_T, PM_STALL, PM_T
	or	PM_T, PM_LOAD, PM_T
	blt	PM_T, pm_bail			/* bit 63 */
	srl	PM_T, 31, PM_T
	blbs	PM_T, pm_bail			/* bit 31 */
	stq	PM_PC, 8(PM_X)
	srl	PM_LAT, 48, PM_T		/* issue */
	addq	PM_PAT, PM_T, PM_PAT
	srl	PM_LAT, 32, PM_T
	zapnot	PM_T, 0x03, PM_T
	sll	PM_T, 32, PM_T			/* fetch << 32 */
	addq	PM_PAT, PM_T, PM_PAT
	stq	PM_PAT, 16(PM_X)
	sll	PM_LOAD, 32, PM_T
	or	PM_STALL, PM_T, PM_T
	addq	PM_KEY, PM_T, PM_KEY
	stq	PM_KEY, 24(PM_X)
	br	$31, pm_arm

pm_miss:	/* the round-robin victim; an occupied one is evicted in C++ */
	ldbu	PM_T, PM(PM_EVICT)
	sll	PM_T, PM_ENTRY_SHIFT, PM_T
	addq	PM_X, PM_T, PM_X
	ldq	PM_T, 8(PM_X)
	extwl	PM_T, 2, PM_T
	bne	PM_T, pm_bail
	ldbu	PM_T, PM(PM_EVICT)
	xor	PM_T, 1, PM_T			/* of two */
	stb	PM_T, PM(PM_EVICT)
	stq	PM_PC, 0(PM_X)
	ldah	PM_T, 1($31)			/* count 1 */
	addq	PM_KEY, PM_T, PM_KEY
	stq	PM_KEY, 8(PM_X)
	srl	PM_LAT, 48, PM_T		/* issue | fetch << 32 */
	srl	PM_LAT, 32, PM_KEY
	zapnot	PM_KEY, 0x03, PM_KEY
	sll	PM_KEY, 32, PM_KEY
	or	PM_T, PM_KEY, PM_T
	stq	PM_T, 16(PM_X)
	sll	PM_LOAD, 32, PM_T		/* stall | load << 32 */
	or	PM_STALL, PM_T, PM_T
	stq	PM_T, 24(PM_X)

pm_arm:	/* exp_table_interval: the bin (PM_BASE, PM_WIDTH) of the value drawn
	 * at the start, a point in it from the value's other 23 bits; the open
	 * last bin adds its start and draws again (rare). */
	ldl	PM_PAT, PM(PM_SEED)
	mov	PM_BASE, PM_STALL		/* carried + base */
	srl	PM_PAT, 23, PM_T
	cmpeq	PM_T, 255, PM_T
	beq	PM_T, 5f
	ldq	PM_X, PM(PM_INTERVALS)
3:	PARK_MILLER_SHIFTS PM_PAT, PM_T
	srl	PM_PAT, 23, PM_T
	sll	PM_T, 4, PM_LOAD
	addq	PM_X, PM_LOAD, PM_LOAD		/* its ExpBin */
	ldq	PM_KEY, 0(PM_LOAD)
	addq	PM_STALL, PM_KEY, PM_STALL
	cmpeq	PM_T, 255, PM_T
	bne	PM_T, 3b
	ldq	PM_WIDTH, 8(PM_LOAD)
	stl	PM_PAT, PM(PM_SEED)
5:	sll	PM_PAT, 41, PM_T
	srl	PM_T, 41, PM_T			/* the value's low 23 bits */
	mulq	PM_WIDTH, PM_T, PM_T
	/* The restores its 12 cycles need not wait for (all but t3, t6). */
	ldq	$3, PM(PM_SAVE + 0)
	ldq	$5, PM(PM_SAVE + 16)
	ldq	$6, PM(PM_SAVE + 24)
	ldq	$0, HOT_SAVE_R0(HOT)
	ldq	$1, HOT_SAVE_R1(HOT)
	ldq	$2, HOT_SAVE_R2(HOT)
	srl	PM_T, 23, PM_T
	addq	PM_STALL, PM_T, PM_T
	srl	PM_T, 8, PM_T			/* kExpFixedBits */
	addq	PM_T, 1, $18			/* a2 = the interval: rtiperf re-arms */
	ldq	$4, PM(PM_SAVE + 8)
	ldq	$7, PM(PM_SAVE + 32)
	mov	$31, T
	call_pal CALL_PAL_RTIPERF		/* a0 = 0: re-arm with a2, restore a0-a2/PS/PC */

pm_bail:	/* nothing written: the scratch registers back, then C++ */
	ldq	$3, PM(PM_SAVE + 0)
	ldq	$4, PM(PM_SAVE + 8)
	ldq	$5, PM(PM_SAVE + 16)
	ldq	$6, PM(PM_SAVE + 24)
	ldq	$7, PM(PM_SAVE + 32)
	/* The record in C++ (driver/profileme_sampler.cpp dcpi_profileme_record),
	 * run on this CPU's chain stack (free: it is used only at IPL 6, by
	 * counter 0's handler, which cannot run meanwhile) with the registers C++
	 * may clobber saved there ($0-$2 are in PalSave). */
pm_slow:
	CHAIN_STACK_FRAME PM_FRAME_BYTES
	stq	$30, PM_FRAME_SP($2)
	mov	$2, $30
	stq	HOT, PM_FRAME_HOT($30)
	FRAME_T2_TO_T7 stq
	FRAME_A3_TO_AT stq, gp=1
	br	$29, 1f
1:	ldgp	$29, 0($29)
	mov	HOT, $16
	jsr	$26, dcpi_profileme_record	/* (hot) */
	ldq	HOT, PM_FRAME_HOT($30)
	FRAME_T2_TO_T7 ldq
	FRAME_A3_TO_AT ldq, gp=1
	ldq	$30, PM_FRAME_SP($30)
	ldq	$0, HOT_SAVE_R0(HOT)
	ldq	$1, HOT_SAVE_R1(HOT)
	ldq	$2, HOT_SAVE_R2(HOT)
	mov	$31, T
	mov	$31, $18			/* C++ re-armed (or not): a2 = 0 */
	call_pal CALL_PAL_RTIPERF		/* a0 = 0: return only, restore a0-a2/PS/PC */
	.end	dcpi_entry_profileme

/* The C++ variants: the classic delivery (perfframe), the full frame, then
 * dcpi_counter_interrupt. */
.macro	FULL_FRAME_VARIANT name, variant
	.globl	\name
	.align	4
	.ent	\name
\name:
	call_pal CALL_PAL_PERFFRAME
	lda	$16, \variant($31)
	br	$31, entry_counter_full
	.end	\name
.endm
	FULL_FRAME_VARIANT dcpi_entry_cycles_flushing, VARIANT_CYCLES
	FULL_FRAME_VARIANT dcpi_entry_mux_flushing, VARIANT_MUX
	FULL_FRAME_VARIANT dcpi_entry_value_flushing, VARIANT_VALUE
	FULL_FRAME_VARIANT dcpi_entry_trace, VARIANT_TRACE
	/* Call chains while the table is being flushed: the C++ record
	 * appends to the overflow buffer, then the capture (as a bail). */
	FULL_FRAME_VARIANT dcpi_entry_chain_flushing, VARIANT_CHAIN

/* A variant that needs the frame and C++ on every k-th interrupt only,
 * counted down in CpuHot::value_countdown (1: this one): the others are
 * plain cycles samples. T (a0) is free: PAL saved it. */
.macro	COUNTDOWN_VARIANT name, variant
	.globl	\name
	.align	4
	.ent	\name
\name:
	.frame	$30, 0, $31, 0
	.prologue 0
	ldbu	T, HOT_VALUE_COUNTDOWN(HOT)
	subq	T, 1, T
	ble	T, 1f
	stb	T, HOT_VALUE_COUNTDOWN(HOT)
	br	$31, dcpi_entry_cycles
1:	call_pal CALL_PAL_PERFFRAME
	lda	$16, \variant($31)
	br	$31, entry_counter_full
	.end	\name
.endm
	/* Values (seed 001 §3.4): the k-th interrupt runs the interpreter. */
	COUNTDOWN_VARIANT dcpi_entry_value, VARIANT_VALUE
	/* Mux (DCPI §4.1): the kMuxEvery-th interrupt rotates the events; the
	 * others sample the event counter 0 counts now. The countdown byte is
	 * the value variant's (it is off under mux). */
	COUNTDOWN_VARIANT dcpi_entry_mux, VARIANT_MUX

/* The per-CPU lines (driver/percpu.h), here so that their order is fixed:
 * dcpi_driver_stats starts HOT_TO_STATS bytes after dcpi_cpu_slots. */
	.section .bss.dcpi_percpu, "aw", @nobits
	.align	6
	.globl	dcpi_cpu_slots
	.type	dcpi_cpu_slots, @object
	.size	dcpi_cpu_slots, HOT_TO_STATS
dcpi_cpu_slots:
	.skip	HOT_TO_STATS
	.globl	dcpi_driver_stats
	.type	dcpi_driver_stats, @object
	.size	dcpi_driver_stats, DCPI_MAX_CPUS << STATS_SHIFT
dcpi_driver_stats:
	.skip	DCPI_MAX_CPUS << STATS_SHIFT
	/* ProfileMe's lines (driver/profileme_table.h PmHot), HOT_TO_PM past
	 * each CpuHot. */
	.globl	dcpi_pm_hot
	.type	dcpi_pm_hot, @object
	.size	dcpi_pm_hot, DCPI_MAX_CPUS * PM_SIZE
dcpi_pm_hot:
	.skip	DCPI_MAX_CPUS * PM_SIZE
	/* Call chains: each CPU's stack for the capture's C++ (chain_capture
	 * above finds it at SLOTS_TO_CHAIN_STACKS past dcpi_cpu_slots). */
	.globl	dcpi_chain_stacks
	.type	dcpi_chain_stacks, @object
	.size	dcpi_chain_stacks, DCPI_MAX_CPUS << CHAIN_STACK_SHIFT
dcpi_chain_stacks:
	.skip	DCPI_MAX_CPUS << CHAIN_STACK_SHIFT
