// The DCPI driver's per-CPU data (DCPI §4.2.1, §4.2.2; DESIGN §5). Guest only.
//
// Every variable the counter-overflow handler touches on this CPU lives in
// one 64-byte, 64-byte-aligned line, line 0 of CpuHot (DCPI §4.2.2: "we pack
// the private state variables and read-only copies of the global variables
// into a 64-byte-per-processor data structure"). Line 1 is the interrupt's
// save area, which PALcode's dedicated counter delivery fills instead of an
// OSF/1 frame on the stack (palcode/README.md). The table and overflow buffers are
// one 512 KB block per CPU; statistics are a separate DriverCpuStats (two
// lines) written only by that CPU's handler.
#pragma once
#include <cstddef>
#include <cstdint>

#include "driver/driver.h"
#include "driver/hot_layout.h"
#include "firmware/events.h"
#include "firmware/memory_map.h"
#include "firmware/pal_abi.h"
#include "firmware/transfer_ring.h"
#include "firmware/trap_frame.h"

namespace dcpi::driver {

// DCPI §4.2.1: 16K-entry hash table of 4-entry, 64-byte buckets; two overflow
// buffers of 8K entries; 512 KB per CPU in all (DESIGN §5).
inline constexpr uint32_t kTableEntries = 16 * 1024;
inline constexpr uint32_t kBucketEntries = 4;
inline constexpr uint32_t kBuckets = kTableEntries / kBucketEntries;
inline constexpr uint32_t kBufferEntries = 8 * 1024;
inline constexpr uint32_t kCpuEntries = kTableEntries + 2 * kBufferEntries;
inline constexpr uint64_t kCacheLine = 64;
static_assert(kBucketEntries * sizeof(SampleEntry) == kCacheLine);
static_assert(kCpuEntries * sizeof(SampleEntry) == 512 * 1024);
static_assert((kBuckets & (kBuckets - 1)) == 0, "bucket index is hash & mask");

struct CpuHot;
// A C++ handler variant, called from the full-frame path (kernel/entry.S
// entry_counter_full) with the interrupted context's complete TrapFrame
// (firmware/trap_frame.h; value sampling reads registers from it).
using Handler = void (*)(CpuHot& hot, uint64_t pc, uint64_t ps, uint64_t observed,
                         TrapFrame* frame);
// What CpuHot::handler points at: an assembly entry (driver/fast_handler.S)
// that the kernel's interrupt entry jumps to with a1 = &CpuHot.
using HandlerEntry = void (*)();

// Mux list length held in the hot line (events.h has 8 events; the 21164's
// mux configuration rotated a handful of them on one counter, DCPI §4.1).
inline constexpr uint32_t kMaxMuxEvents = 4;
// The mux variant rotates the events on every kMuxEvery-th counter-0
// interrupt (about 4 x 62K cycles: still "a very fine grain", DCPI §4.1).
inline constexpr uint32_t kMuxEvery = 4;

// The line after each CpuHot (CpuSlot::save): written by PALcode at delivery (PS, PC, a0-a2: the
// interrupted values, restored by rtiperf or copied into the OSF/1 frame by
// perfframe) and by the fast path (its three scratch registers).
struct PalSave {
  uint64_t ps, pc, a0, a1, a2;
  uint64_t r0, r1, r2;
};

struct alignas(64) CpuHot {
  // Line 0: the handler's state.
  HandlerEntry handler;               // the specialized variant now in use (PAL jumps to it)
  SampleEntry* table;                 // this CPU's hash table (kBuckets buckets)
  SampleEntry* cursor;                // next free slot of the active overflow buffer
  SampleEntry* limit;                 // end of the active overflow buffer
  uint32_t seed;                      // Park–Miller state (DCPI §4.1.1)
  uint32_t period_base;               // read-only copy: period = base + [0, range)
  uint16_t pid;                       // the running process (sampler_context_switch)
  uint16_t event;                     // event counter 0 counts now (dcpi::Event)
  uint32_t pe_hash;                   // (pid | event << 16) * kHashMultiplier (set_pid_event)
  uint32_t period_range;              // read-only copy
  uint8_t flushing;                   // the table is being flushed: append to the buffer
  uint8_t active;                     // overflow buffer in use: 0 or 1
  uint8_t other_pending;              // the other buffer is still the daemon's
  uint8_t evict;                      // mod-4 round-robin eviction counter
  uint8_t mux_index;                  // position in mux_events
  uint8_t mux_count;                  // read-only copy: events in the mux list
  uint8_t mux_events[kMaxMuxEvents];  // read-only copy of the mux list
  uint8_t cpu;
  uint8_t value_countdown;  // value/mux variants: interrupts until the next interpretation/rotation
                            // (1: this one)
};
static_assert(sizeof(CpuHot) == 64, "the handler's state: one line (DCPI §4.2.2)");
static_assert(alignof(CpuHot) == 64, "aligned to a cache line (DCPI §4.2.2)");

// Per CPU, the DCPI state line and, right after it, the line PALcode saves
// the interrupted PS, PC and a0-a2 in at delivery: what the OSF/1 frame on
// the kernel stack was for the 21164's handler, a private line per CPU.
struct alignas(64) CpuSlot {
  CpuHot hot;
  PalSave save;
};
static_assert(sizeof(CpuSlot) == HOT_SIZE && HOT_SIZE == 1u << HOT_SIZE_SHIFT);
static_assert(offsetof(CpuSlot, save) == 64);
// The PAL delivery's view (firmware/pal_abi.h).
static_assert(offsetof(CpuHot, handler) == PERF_CTX_ENTRY);
static_assert(offsetof(CpuSlot, save) + offsetof(PalSave, ps) == PERF_CTX_SAVE_PS &&
              offsetof(CpuSlot, save) + offsetof(PalSave, pc) == PERF_CTX_SAVE_PC &&
              offsetof(CpuSlot, save) + offsetof(PalSave, a0) == PERF_CTX_SAVE_A0 &&
              offsetof(CpuSlot, save) + offsetof(PalSave, a1) == PERF_CTX_SAVE_A1 &&
              offsetof(CpuSlot, save) + offsetof(PalSave, a2) == PERF_CTX_SAVE_A2);
// The assembly fast path's view (driver/hot_layout.h).
static_assert(offsetof(CpuHot, handler) == HOT_HANDLER);
static_assert(offsetof(CpuHot, table) == HOT_TABLE);
static_assert(offsetof(CpuHot, cursor) == HOT_CURSOR);
static_assert(offsetof(CpuHot, limit) == HOT_LIMIT);
static_assert(offsetof(CpuHot, seed) == HOT_SEED);
static_assert(offsetof(CpuHot, pe_hash) == HOT_PE_HASH);
static_assert(offsetof(CpuHot, period_base) == HOT_PERIOD_BASE);
static_assert(offsetof(CpuHot, period_range) == HOT_PERIOD_RANGE);
static_assert(offsetof(CpuHot, pid) == HOT_PID_EVENT &&
              offsetof(CpuHot, event) == HOT_PID_EVENT + 2);
static_assert(offsetof(CpuHot, flushing) == HOT_FLUSHING);
static_assert(offsetof(CpuHot, evict) == HOT_EVICT);
static_assert(offsetof(CpuHot, cpu) == HOT_CPU);
static_assert(offsetof(CpuHot, value_countdown) == HOT_VALUE_COUNTDOWN);
static_assert(offsetof(CpuSlot, save) + offsetof(PalSave, r0) == HOT_SAVE_R0 &&
              offsetof(CpuSlot, save) + offsetof(PalSave, r1) == HOT_SAVE_R1 &&
              offsetof(CpuSlot, save) + offsetof(PalSave, r2) == HOT_SAVE_R2);
// ProfileMe's PAL delivery saves v0, t0 and t1 there too (firmware/pal_abi.h).
static_assert(HOT_SAVE_R0 == PERF_CTX_SAVE_R0 && HOT_SAVE_R1 == PERF_CTX_SAVE_R1 &&
              HOT_SAVE_R2 == PERF_CTX_SAVE_R2);
static_assert(HOT_TO_STATS == kMaxCpus * sizeof(CpuSlot), "stats follow the slots");
static_assert(kBuckets == 1u << BUCKET_BITS, "the fast path's bucket index is 12 bits");

// The odd multiplier that spreads PIDs and events over the buckets.
inline constexpr uint32_t kHashMultiplier = 0x9e3779b1u;
// Sets the running process and event, and the hash of the pair the fast
// path adds to the PC (so it needs no multiply).
// One 64-bit store, so a counter interrupt never sees a PID without its hash.
inline void set_pid_event(CpuHot& hot, uint16_t pid, uint16_t event) {
  const uint32_t pid_event = pid | uint32_t{event} << 16;
  const uint64_t word = pid_event | uint64_t{pid_event * kHashMultiplier} << 32;
  static_assert(HOT_PE_HASH == HOT_PID_EVENT + 4 && HOT_PID_EVENT % 8 == 0);
  __builtin_memcpy(&hot.pid, &word, sizeof word);
}
static_assert(sizeof(DriverCpuStats) == 1u << STATS_SHIFT);
static_assert(offsetof(DriverCpuStats, hits) == STATS_HITS);
static_assert(offsetof(DriverCpuStats, misses) == STATS_MISSES);
static_assert(offsetof(DriverCpuStats, evictions) == STATS_EVICTIONS);
static_assert(offsetof(DriverCpuStats, handler_cycles) == STATS_HANDLER_CYCLES);
static_assert(offsetof(SampleEntry, pc) == ENTRY_PC && offsetof(SampleEntry, count) == ENTRY_COUNT);
static_assert(offsetof(SampleEntry, pid) == ENTRY_PID_EVENT &&
              offsetof(SampleEntry, event) == ENTRY_PID_EVENT + 2);
static_assert(static_cast<uint32_t>(Variant::kCycles) == VARIANT_CYCLES &&
              static_cast<uint32_t>(Variant::kMux) == VARIANT_MUX &&
              static_cast<uint32_t>(Variant::kValue) == VARIANT_VALUE &&
              static_cast<uint32_t>(Variant::kTrace) == VARIANT_TRACE &&
              static_cast<uint32_t>(Variant::kChain) == VARIANT_CHAIN);

}  // namespace dcpi::driver

// Kernel symbols (host tests check their alignment and that no two CPUs
// share a line: tests/guest/guest_tests.py case_layout).
extern "C" {
extern dcpi::driver::CpuSlot dcpi_cpu_slots[dcpi::kMaxCpus];
extern dcpi::DriverCpuStats dcpi_driver_stats[dcpi::kMaxCpus];
extern dcpi::SampleEntry dcpi_sample_memory[dcpi::kMaxCpus][dcpi::driver::kCpuEntries];
}

namespace dcpi::driver {

// Counter interrupts handled on `cpu` so far: hits + misses +
// flushing_samples (the fast path keeps no separate count; driver/README.md).
// Any CPU may call it; inline, so that polling loops (tests/guest/selftest)
// add few instructions outside the code they sample.
inline uint64_t interrupts_of(uint32_t cpu) {
  const DriverCpuStats& s = dcpi_driver_stats[cpu];
  return __atomic_load_n(&s.hits, __ATOMIC_RELAXED) + __atomic_load_n(&s.misses, __ATOMIC_RELAXED) +
         __atomic_load_n(&s.flushing_samples, __ATOMIC_RELAXED);
}

}  // namespace dcpi::driver

namespace dcpi::driver {
// This CPU's DCPI state line.
inline CpuHot& cpu_hot(uint32_t cpu) { return dcpi_cpu_slots[cpu].hot; }
}  // namespace dcpi::driver
