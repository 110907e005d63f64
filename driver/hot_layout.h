/* Offsets the assembly fast path (driver/fast_handler.S) uses in CpuHot,
 * DriverCpuStats and SampleEntry beyond those PALcode shares
 * (firmware/sample_table.h). Plain #defines for the assembler;
 * driver/percpu.h static_asserts every one against the C++ layout. */
#ifndef DCPI_DRIVER_HOT_LAYOUT_H
#define DCPI_DRIVER_HOT_LAYOUT_H

#include "firmware/sample_table.h" /* what PALcode reads too */

/* Line 0: the handler's state (DCPI §4.2.2). handler is quadword 0: the
 * PAL delivery jumps through it (firmware/pal_abi.h PERF_CTX_ENTRY). */
#define HOT_HANDLER 0
#define HOT_FLUSHING 52
#define HOT_CPU 62
/* Line 1: the save area of the PAL delivery (PS, PC, a0-a2 at
 * PERF_CTX_SAVE_*) and the fast path's three scratch registers. */
#define HOT_SAVE_R0 104
#define HOT_SAVE_R1 112
#define HOT_SAVE_R2 120

#define STATS_HANDLER_CYCLES 96

/* ProfileMe's per-CPU lines (driver/profileme_table.h PmHot), after the
 * statistics at the same stride, HOT_TO_PM bytes from this CPU's CpuHot:
 * line 0 the fast path's state and its scratch registers' save area. */
#define HOT_TO_PM (HOT_TO_STATS + (DCPI_MAX_CPUS << STATS_SHIFT))
#define PM_TABLE 0     /* this CPU's PmEntry table */
#define PM_INTERVALS 8 /* the ExpTable of the mean in use */
#define PM_SEED 16     /* uint32_t: the Fetched Instruction Counter's draws */
#define PM_EVICT 20    /* uint8_t: the round-robin victim */
#define PM_FAST 21     /* uint8_t: 1 when the assembly record may run */
#define PM_SAVE 24     /* t2-t6 while it runs, in the same line */
#define PM_SIZE 128
/* PmEntry (driver/profileme_table.h) as the fast path reads it. */
#define PM_ENTRY_SHIFT 5  /* 32 bytes */
#define PM_BUCKET_SHIFT 6 /* two entries: a line */
#define PM_BUCKET_BITS 9  /* 512 buckets */

/* Variant numbers (dcpi::driver::Variant) passed to the full-frame path. */
#define VARIANT_CYCLES 0
#define VARIANT_MUX 1
#define VARIANT_VALUE 2
#define VARIANT_TRACE 3
#define VARIANT_CHAIN 4

/* Call chains: each CPU's stack for the capture's C++ (fast_handler.S
 * chain_capture), 8 KB: the capture's deepest call needs under 1 KB. */
#define CHAIN_STACK_SHIFT 13

#endif
