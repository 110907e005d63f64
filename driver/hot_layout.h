/* Offsets the assembly fast path (driver/fast_handler.S) uses in CpuHot,
 * DriverCpuStats and SampleEntry. Plain #defines for the assembler;
 * driver/percpu.h static_asserts every one against the C++ layout. */
#ifndef DCPI_DRIVER_HOT_LAYOUT_H
#define DCPI_DRIVER_HOT_LAYOUT_H

#define HOT_TABLE 0
#define HOT_CURSOR 8
#define HOT_LIMIT 16
#define HOT_HANDLER 24
#define HOT_SEED 32
#define HOT_BUCKET_MASK 36
#define HOT_PERIOD_BASE 40
#define HOT_PERIOD_RANGE 44
#define HOT_PID_EVENT 48 /* pid (u16) then event (u16): one 32-bit word */
#define HOT_FLUSHING 52
#define HOT_EVICT 55
#define HOT_CPU 62

#define STATS_SHIFT 7 /* sizeof(DriverCpuStats) == 128 */
#define STATS_INTERRUPTS 8
#define STATS_HITS 16
#define STATS_MISSES 24
#define STATS_EVICTIONS 32
#define STATS_HANDLER_CYCLES 96

#define ENTRY_PC 0
#define ENTRY_COUNT 8
#define ENTRY_PID_EVENT 12

/* Variant numbers (dcpi::driver::Variant) passed to the full-frame path. */
#define VARIANT_CYCLES 0
#define VARIANT_MUX 1
#define VARIANT_VALUE 2
#define VARIANT_TRACE 3

#endif
