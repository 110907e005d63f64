/* The per-CPU sample table PALcode and the driver both write (DCPI §4.2.1):
 * where the fields of the driver's per-CPU context (driver/percpu.h CpuHot,
 * which static_asserts every offset here), its statistics and a table entry
 * lie, and the steps of recording one sample, as assembler macros. PALcode's
 * counter delivery records counter 0's samples itself while the driver lets
 * it (PERFMON_PAL_RECORDS, palcode/README.md); the driver's assembly fast
 * path (driver/fast_handler.S) records them for the other variants. Both
 * expand these macros, so the two cannot drift apart; driver/handler.cpp
 * record() and reload() are the same steps in C++. */
#ifndef DCPI_FIRMWARE_SAMPLE_TABLE_H
#define DCPI_FIRMWARE_SAMPLE_TABLE_H

#include "firmware/memory_map.h" /* DCPI_MAX_CPUS */

/* The context's line 0 (CpuHot). */
#define HOT_TABLE 8
#define HOT_CURSOR 16 /* the active overflow buffer's next free entry */
#define HOT_LIMIT 24  /* and its end */
#define HOT_SEED 32
#define HOT_PERIOD_BASE 36
#define HOT_PID_EVENT 40 /* pid (u16) then event (u16): one 32-bit word */
#define HOT_PE_HASH 44   /* pid_event * 0x9e3779b1, low 32 bits; same quadword */
#define HOT_PERIOD_RANGE 48
#define HOT_EVICT 55 /* the mod-4 round-robin victim (u8) */
#define HOT_VALUE_COUNTDOWN 63 /* value, mux: interrupts until the handler's (u8; 1: this one) */
#define HOT_SIZE 128 /* the context and its save line (CpuSlot) */
#define HOT_SIZE_SHIFT 7

/* The driver's statistics (DriverCpuStats, 128 bytes a CPU) follow the
 * contexts of every CPU (dcpi_cpu_slots then dcpi_driver_stats, defined in
 * that order in driver/fast_handler.S): CPU i's are at a fixed distance
 * from its context, so no pointer is loaded for them. */
#define HOT_TO_STATS (DCPI_MAX_CPUS * HOT_SIZE)
#define STATS_SHIFT 7
#define STATS_HITS 16
#define STATS_MISSES 24
#define STATS_EVICTIONS 32

/* A table entry (SampleEntry, 16 bytes); 4 a bucket, one 64-byte line. */
#define ENTRY_PC 0
#define ENTRY_COUNT 8
#define ENTRY_PID_EVENT 12
#define BUCKET_BITS 12 /* 4096 buckets */

#ifdef __ASSEMBLER__
/* clang-format off */

/* Statistic `field` of the CPU whose context is `ctx`, plus one. */
.macro	SAMPLE_STAT ctx, field, t
	ldq	\t, (HOT_TO_STATS + \field)(\ctx)
	addq	\t, 1, \t
	stq	\t, (HOT_TO_STATS + \field)(\ctx)
.endm

/* off <- 64 * the bucket of (pid_event, pc): h = (pc >> 2) + pid_event *
 * 0x9e3779b1; h ^= h >> 12; h & 4095 (driver/handler.cpp bucket_of). The
 * product is cached in the context (pe_hash, set with the PID and event);
 * only bits 0-23 of h matter, so its sign extension does not. */
.macro	SAMPLE_BUCKET_OFFSET ctx, pc, off, t
	ldl	\off, HOT_PE_HASH(\ctx)
	srl	\pc, 2, \t
	addq	\t, \off, \off
	srl	\off, 12, \t
	xor	\off, \t, \off
	sll	\off, 64 - BUCKET_BITS, \off
	srl	\off, 64 - BUCKET_BITS - 6, \off
.endm

/* Way k (1-3) of a bucket, `way` = way k-1 on entry, way k after: a hit,
 * the bucket's first free way (the ways fill in order and free only all
 * together, at a flush: the rest are free too, so a miss), or on to what
 * follows (the next way; after way 3 the full bucket's miss). */
.macro	SAMPLE_NEXT_WAY way, pc, pe, t, hit, fill
	lda	\way, 16(\way)
	ldq	\t, ENTRY_PC(\way)
	xor	\t, \pc, \t
	bne	\t, 1f
	ldl	\t, ENTRY_PID_EVENT(\way)
	xor	\t, \pe, \t
	beq	\t, \hit
1:	ldl	\t, ENTRY_COUNT(\way)
	beq	\t, \fill
.endm

/* Way 0 (`way`) held another sample or none: a free way 0 makes the whole
 * bucket free (a miss: `fill`); else ways 1-3, leaving `way` at way 3 when
 * none matches and none is free (the full bucket's miss follows). */
.macro	SAMPLE_OTHER_WAYS way, pc, pe, t, hit, fill
	ldl	\t, ENTRY_COUNT(\way)
	beq	\t, \fill
	SAMPLE_NEXT_WAY \way, \pc, \pe, \t, \hit, \fill
	SAMPLE_NEXT_WAY \way, \pc, \pe, \t, \hit, \fill
	SAMPLE_NEXT_WAY \way, \pc, \pe, \t, \hit, \fill
.endm

/* A miss in a full bucket (`way` = its way 3): the mod-4 round-robin
 * counter, advanced on each eviction, picks the victim (DCPI §4.2.1),
 * which goes to the active overflow buffer; `way` <- the victim. A full
 * buffer (switch or drop: the C++ path's) goes to `full` before anything
 * is written. */
.macro	SAMPLE_EVICT ctx, way, cur, t, full
	ldq	\cur, HOT_CURSOR(\ctx)
	ldq	\t, HOT_LIMIT(\ctx)
	cmpeq	\cur, \t, \t
	bne	\t, \full
	ldbu	\t, HOT_EVICT(\ctx)
	sll	\t, 4, \t
	lda	\way, -48(\way)
	addq	\way, \t, \way
	ldq	\t, 0(\way)
	stq	\t, 0(\cur)
	ldq	\t, 8(\way)
	stq	\t, 8(\cur)
	lda	\cur, 16(\cur)
	stq	\cur, HOT_CURSOR(\ctx)
	SAMPLE_STAT \ctx, STATS_EVICTIONS, \t
	ldbu	\t, HOT_EVICT(\ctx)
	addq	\t, 1, \t
	and	\t, 3, \t
	stb	\t, HOT_EVICT(\ctx)
.endm

/* A new entry {pc, count 1, pid_event} in `way`, a miss. */
.macro	SAMPLE_FILL ctx, way, pc, pe, t
	stq	\pc, ENTRY_PC(\way)
	sll	\pe, 32, \t
	addq	\t, 1, \t
	stq	\t, ENTRY_COUNT(\way)
	SAMPLE_STAT \ctx, STATS_MISSES, \t
.endm

/* The matching entry `way` counts one more, a hit. */
.macro	SAMPLE_HIT ctx, way, t
	ldl	\t, ENTRY_COUNT(\way)
	addl	\t, 1, \t
	stl	\t, ENTRY_COUNT(\way)
	SAMPLE_STAT \ctx, STATS_HITS, \t
.endm

/* Park-Miller "minimal standard" (16807, 2^31 - 1) in Carta's form, as
 * firmware/park_miller.h: p = 16807 s; sum = (p & M) + (p >> 31); then
 * sum = (sum + (sum >> 31)) & M. sum < 2^31 + 16807, so the fold is exact. */
.macro	PARK_MILLER_FOLD seed, tmp
	srl	\seed, 31, \tmp
	sll	\seed, 33, \seed
	srl	\seed, 33, \seed
	addq	\seed, \tmp, \seed
	srl	\seed, 31, \tmp
	addq	\seed, \tmp, \seed
	sll	\seed, 33, \seed
	srl	\seed, 33, \seed
.endm

.macro	PARK_MILLER seed, tmp
	lda	\tmp, 16807($31)
	mulq	\seed, \tmp, \seed
	PARK_MILLER_FOLD \seed, \tmp
.endm

/* DCPI §4.1.1: period <- a fresh one, base + (seed * range) >> 31, the seed
 * stepped (driver/handler.cpp reload()). */
.macro	SAMPLE_PERIOD ctx, period, t
	ldl	\period, HOT_SEED(\ctx)
	PARK_MILLER \period, \t
	stl	\period, HOT_SEED(\ctx)
	ldl	\t, HOT_PERIOD_RANGE(\ctx)
	mulq	\period, \t, \period
	srl	\period, 31, \period
	ldl	\t, HOT_PERIOD_BASE(\ctx)
	addq	\period, \t, \period
.endm

/* clang-format on */
#endif /* __ASSEMBLER__ */

#endif
