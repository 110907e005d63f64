/* The counter-overflow handler's entries (DCPI §4.2.1-§4.2.3), one per
 * variant; CpuHot::handler points at one of them (DCPI §4.2: "we switch
 * dynamically among specialized versions of the interrupt handler").
 *
 * The kernel's interrupt entry (kernel/entry.S entry_interrupt) jumps here
 * for a0 == INT_PERFCTR, before saving anything, with the OSF/1 frame that
 * PALcode pushed at sp (PS, PC, GP, a0-a2) and
 *   a1 = this CPU's CpuHot line (registered with wrperfmon 8),
 *   a2 = the observed period in cycles,
 *   a0, gp: free (the frame holds the interrupted values; rti restores them).
 *
 * dcpi_entry_cycles is the default variant in assembly: it saves only the
 * four registers it needs besides a0-a2 and gp, records the sample in the
 * hash table, draws the next period with Park-Miller (Carta's form) and
 * leaves through CALL_PAL rtiperf, which reloads counter 0 and returns from
 * the frame in one PAL entry (palcode/README.md). Semantics are those of the
 * C++ cycles handler (driver/handler.cpp record() and reload()) exactly;
 * the rare cases that need C++ (the flushing flag set, or an eviction into a
 * full overflow buffer: buffer switch, daemon IPI, or drop) are detected
 * before anything is written and handed to the C++ cycles handler through
 * the full-frame path, which then does all of the work for that sample.
 *
 * The other variants (mux, value, trace) always take the full-frame path:
 * kernel/entry.S entry_counter_full saves the complete TrapFrame and calls
 * dcpi_counter_interrupt(variant, hot, observed, frame) (driver/handler.cpp).
 *
 * No locks, no memory barriers (DCPI §4.2.3). Lines touched on a hit: the
 * CpuHot line, one bucket, this CPU's DriverCpuStats.
 */
#include "driver/hot_layout.h"
#include "firmware/pal_abi.h"

	.set	noat
	.text

#define HOT	$17	/* a1: this CPU's CpuHot */
#define PC	$18	/* a2: the sampled PC (the observed period is not used here) */
#define STATS	$29	/* gp: this CPU's DriverCpuStats */
#define SAVED	32	/* $0-$3 below the PAL frame */

/* Park-Miller "minimal standard" (16807, 2^31 - 1) in Carta's form, as
 * driver/park_miller.h: p = 16807 s; sum = (p & M) + (p >> 31); then
 * sum = (sum + (sum >> 31)) & M. sum < 2^31 + 16807, so the fold is exact. */
.macro	PARK_MILLER seed, tmp
	lda	\tmp, 16807($31)
	mulq	\seed, \tmp, \seed
	srl	\seed, 31, \tmp
	sll	\seed, 33, \seed
	srl	\seed, 33, \seed
	addq	\seed, \tmp, \seed
	srl	\seed, 31, \tmp
	addq	\seed, \tmp, \seed
	sll	\seed, 33, \seed
	srl	\seed, 33, \seed
.endm

	.globl	dcpi_entry_cycles
	.align	4
	.ent	dcpi_entry_cycles
dcpi_entry_cycles:
	.frame	$30, SAVED + PAL_FRAME_SIZE, $31, 0
	.prologue 0
	lda	$30, -SAVED($30)
	stq	$0, 0($30)
	stq	$1, 8($30)
	stq	$2, 16($30)
	stq	$3, 24($30)
	rpcc	$0				/* handler cycles from here */
	ldbu	$2, HOT_FLUSHING(HOT)
	bne	$2, bail			/* DCPI §4.2.3: the C++ path appends to the buffer */
	ldq	PC, SAVED + PAL_FRAME_PC($30)
	ldl	$1, HOT_PID_EVENT(HOT)		/* pid | event << 16 */
	/* Bucket of (PID, PC, EVENT), as driver/handler.cpp bucket_of:
	 * h = (pc >> 2) + pid_event * 0x9e3779b1; h ^= h >> 12; h & mask.
	 * The multiplier is sign-extended here; only bits 0-23 of h matter. */
	ldah	$2, -25033($31)			/* 0x9e37 - 0x10000 */
	lda	$2, 0x79b1($2)
	mulq	$1, $2, $2
	srl	PC, 2, $3
	addq	$3, $2, $2
	srl	$2, 12, $3
	xor	$2, $3, $2
	ldl	$3, HOT_BUCKET_MASK(HOT)
	and	$2, $3, $2
	ldq	$3, HOT_TABLE(HOT)
	sll	$2, 6, $2
	addq	$3, $2, $2			/* $2 = the 64-byte bucket */
	ldbu	$3, HOT_CPU(HOT)
	lda	STATS, dcpi_driver_stats
	sll	$3, STATS_SHIFT, $3
	addq	STATS, $3, STATS
	/* Entry 0, then 1-3 out of line. */
	ldq	$3, ENTRY_PC($2)
	xor	$3, PC, $3
	bne	$3, probe1
	ldl	$3, ENTRY_PID_EVENT($2)
	xor	$3, $1, $3
	bne	$3, probe1
hit:	/* $2 = the matching entry */
	ldl	$3, ENTRY_COUNT($2)
	addl	$3, 1, $3
	stl	$3, ENTRY_COUNT($2)
	ldq	$3, STATS_HITS(STATS)
	addq	$3, 1, $3
	stq	$3, STATS_HITS(STATS)
reload:
	ldq	$3, STATS_INTERRUPTS(STATS)
	addq	$3, 1, $3
	stq	$3, STATS_INTERRUPTS(STATS)
	/* DCPI §4.1.1: a fresh period, base + (seed * range) >> 31. */
	ldl	$1, HOT_SEED(HOT)
	PARK_MILLER $1, $3
	stl	$1, HOT_SEED(HOT)
	ldl	$3, HOT_PERIOD_RANGE(HOT)
	mulq	$1, $3, $1
	srl	$1, 31, $1
	ldl	$3, HOT_PERIOD_BASE(HOT)
	addq	$1, $3, $16			/* a0 = the period, for rtiperf */
	rpcc	$3
	subq	$3, $0, $3
	zapnot	$3, 0x0f, $3			/* RPCC counts in 32 bits: a wrap-safe delta */
	ldq	$1, STATS_HANDLER_CYCLES(STATS)
	addq	$1, $3, $1
	stq	$1, STATS_HANDLER_CYCLES(STATS)
	ldq	$0, 0($30)
	ldq	$1, 8($30)
	ldq	$2, 16($30)
	ldq	$3, 24($30)
	lda	$30, SAVED($30)
	call_pal CALL_PAL_RTIPERF		/* reload counter 0, restore a0-a2/gp, return */

.macro	PROBE offset, next
	ldq	$3, ENTRY_PC + \offset($2)
	xor	$3, PC, $3
	bne	$3, \next
	ldl	$3, ENTRY_PID_EVENT + \offset($2)
	xor	$3, $1, $3
	bne	$3, \next
	lda	$2, \offset($2)
	br	$31, hit
.endm
probe1:	PROBE	16, probe2
probe2:	PROBE	32, probe3
probe3:	PROBE	48, miss

	/* Miss: the mod-4 round-robin counter picks the victim (DCPI §4.2.1). */
miss:
	ldbu	$16, HOT_EVICT(HOT)
	sll	$16, 4, $3
	addq	$2, $3, $2			/* $2 = the victim */
	ldl	$3, ENTRY_COUNT($2)
	beq	$3, fill			/* an empty slot: nothing to evict */
	ldq	$3, HOT_CURSOR(HOT)
	ldq	$16, HOT_LIMIT(HOT)
	cmpeq	$3, $16, $16
	bne	$16, bail			/* buffer full: switch or drop, in C++ */
	ldq	$16, 0($2)			/* append the victim to the overflow buffer */
	stq	$16, 0($3)
	ldq	$16, 8($2)
	stq	$16, 8($3)
	lda	$3, 16($3)
	stq	$3, HOT_CURSOR(HOT)
	ldq	$3, STATS_EVICTIONS(STATS)
	addq	$3, 1, $3
	stq	$3, STATS_EVICTIONS(STATS)
	ldbu	$16, HOT_EVICT(HOT)
fill:	/* $16 = the eviction counter */
	addq	$16, 1, $16
	and	$16, 3, $16
	stb	$16, HOT_EVICT(HOT)
	stq	PC, ENTRY_PC($2)		/* {pc, count 1, pid, event} */
	sll	$1, 32, $3
	addq	$3, 1, $3
	stq	$3, ENTRY_COUNT($2)
	ldq	$3, STATS_MISSES(STATS)
	addq	$3, 1, $3
	stq	$3, STATS_MISSES(STATS)
	br	$31, reload

	/* Nothing written yet: undo the saves and let the C++ cycles handler
	 * do this sample with the full frame. HOT is intact. */
bail:
	ldq	$0, 0($30)
	ldq	$1, 8($30)
	ldq	$2, 16($30)
	ldq	$3, 24($30)
	lda	$30, SAVED($30)
	lda	$16, VARIANT_CYCLES($31)
	mov	$31, $18			/* the cycles handler ignores the observed period */
	br	$31, entry_counter_full
	.end	dcpi_entry_cycles

/* The C++ variants: the full frame, then dcpi_counter_interrupt. */
.macro	FULL_FRAME_VARIANT name, variant
	.globl	\name
	.align	4
	.ent	\name
\name:
	lda	$16, \variant($31)
	br	$31, entry_counter_full
	.end	\name
.endm
	FULL_FRAME_VARIANT dcpi_entry_mux, VARIANT_MUX
	FULL_FRAME_VARIANT dcpi_entry_value, VARIANT_VALUE
	FULL_FRAME_VARIANT dcpi_entry_trace, VARIANT_TRACE
