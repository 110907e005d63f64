// The DCPI driver's per-CPU data (DCPI §4.2.1, §4.2.2; DESIGN §5). Guest only.
//
// Every variable the counter-overflow handler touches on this CPU lives in
// one 64-byte, 64-byte-aligned CpuHot line (DCPI §4.2.2: "we pack the private
// state variables and read-only copies of the global variables into a
// 64-byte-per-processor data structure"). The table and overflow buffers are
// one 512 KB block per CPU; statistics are a separate DriverCpuStats (two
// lines) written only by that CPU's handler.
#pragma once
#include <cstddef>
#include <cstdint>

#include "driver/events.h"
#include "driver/sample_log.h"
#include "driver/sampler.h"
#include "driver/transfer_ring.h"

namespace kernel {
struct TrapFrame;
}

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
// frame: the interrupted context's full TrapFrame (kernel/traps.h); only the
// value variant reads or writes it (seed 001 §2.1.2).
using Handler = void (*)(CpuHot& hot, uint64_t pc, uint64_t ps, uint64_t observed,
                         kernel::TrapFrame* frame);

// Mux list length held in the hot line (events.h has 8 events; the 21164's
// mux configuration rotated a handful of them on one counter, DCPI §4.1).
inline constexpr uint32_t kMaxMuxEvents = 4;

struct alignas(64) CpuHot {
  SampleEntry* table;                 // this CPU's hash table (kBuckets buckets)
  SampleEntry* cursor;                // next free slot of the active overflow buffer
  SampleEntry* limit;                 // end of the active overflow buffer
  Handler handler;                    // the specialized variant now in use
  uint32_t seed;                      // Park–Miller state (DCPI §4.1.1)
  uint32_t bucket_mask;               // read-only copy: kBuckets - 1
  uint32_t period_base;               // read-only copy: period = base + [0, range)
  uint32_t period_range;              //
  uint16_t pid;                       // the running process (sampler_context_switch)
  uint16_t event;                     // event counter 0 counts now (dcpi::Event)
  uint8_t flushing;                   // the table is being flushed: append to the buffer
  uint8_t active;                     // overflow buffer in use: 0 or 1
  uint8_t other_pending;              // the other buffer is still the daemon's
  uint8_t evict;                      // mod-4 round-robin eviction counter
  uint8_t mux_index;                  // position in mux_events
  uint8_t mux_count;                  // read-only copy: events in the mux list
  uint8_t mux_events[kMaxMuxEvents];  // read-only copy of the mux list
  uint8_t cpu;
  uint8_t spare;
};
static_assert(sizeof(CpuHot) == 64, "one cache line per CPU (DCPI §4.2.2)");
static_assert(alignof(CpuHot) == 64, "aligned to a cache line (DCPI §4.2.2)");

}  // namespace dcpi::driver

// Kernel symbols (host tests check their alignment and that no two CPUs
// share a line: tests/guest/layout_test.py).
extern "C" {
extern dcpi::driver::CpuHot dcpi_cpu_hot[dcpi::kMaxCpus];
extern dcpi::DriverCpuStats dcpi_driver_stats[dcpi::kMaxCpus];
extern dcpi::SampleLog dcpi_sample_logs[dcpi::kMaxCpus];
extern dcpi::SampleEntry dcpi_sample_memory[dcpi::kMaxCpus][dcpi::driver::kCpuEntries];
}
