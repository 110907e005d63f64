// The modelled machine: an AlphaStation 500 5/333 (21164 at 333 MHz, 2 MB
// B-cache), the machine of the DCPI paper's Figure 2. Every number and its
// source is in docs/ev5-machine.md; the tunable ones can be changed with
// plugin arguments (machine_options.h).
#pragma once
#include <cstddef>
#include <cstdint>

namespace dcpi::ev5 {

struct Machine {
  // Caches (21164 HRM §2.8-2.9): geometry is fixed, not tunable.
  static constexpr uint32_t kIcacheBytes = 8 * 1024, kIcacheWays = 1, kL1LineBytes = 32;
  static constexpr uint32_t kDcacheBytes = 8 * 1024, kDcacheWays = 1;
  static constexpr uint32_t kScacheBytes = 96 * 1024, kScacheWays = 3, kL2LineBytes = 64;
  static constexpr uint32_t kPageBytes = 8 * 1024;
  static constexpr uint32_t kWriteBufferEntries = 6, kWriteBufferLineBytes = 32;
  static constexpr uint32_t kMissAddressFileEntries = 6;
  static constexpr uint32_t kBranchHistoryEntries = 2048;

  uint32_t bcache_bytes = 2 * 1024 * 1024;  // direct-mapped, 64-byte lines
  uint32_t itb_entries = 48;
  uint32_t dtb_entries = 64;
  // Load-use latencies in cycles (the D-cache hit's 2 is in the static schedule).
  uint32_t scache_latency = 8;
  uint32_t bcache_latency = 15;
  uint32_t memory_latency = 100;
  // Cycles one 64-byte line transfer occupies the memory bus: fills wait for
  // it, and a line the write buffer allocates costs a second transfer for
  // its later write-back.
  // 80: calibrated on the one measurement of this machine we have, the DCPI
  // paper's Figure 2 copy loop, which the bus bounds (docs/ev5-machine.md);
  // memory_bus=0 for infinite bandwidth.
  uint32_t memory_bus_cycles = 80;
  // CPU cycles per 16-byte data cycle of a fill from memory (the system
  // clock's ratio to the CPU's): a 64-byte line's later chunks arrive this
  // much apart after the requested one (cache.h). 0: all at once.
  uint32_t fill_chunk_cycles = 10;
  // Extra cycles of a fill another CPU's dirty line supplies (coherence.h),
  // beyond the memory access it replaces.
  uint32_t intervention = 0;
  uint32_t itb_refill = 25;  // PALcode ITB miss handler
  uint32_t dtb_refill = 25;  // PALcode DTB miss handler
  uint32_t mispredict_penalty = 5;
  // A mispredicted jump target (jump_predictor.h): resolved in pipe E1 as
  // a conditional branch is (both issue to E1, 21164 HRM §2.3): assumed the same restart.
  uint32_t pc_mispredict_penalty = 5;
  // A load issued one cycle after a store to the same address replays
  // (21164PC HRM p. 2-33 "Write Buffer and the WMB Instruction": "costs seven
  // cycles"); two cycles after, it is issue-stalled for one.
  uint32_t replay_penalty = 7;
  // Cycles one write-buffer entry takes to retire into an S-cache line that is
  // present (a missing line first comes from the B-cache or memory).
  uint32_t wbuf_retire = 5;
  // Cycles from a counter 1/2 event to its overflow interrupt (the skid).
  // The 21164 delivers them about six cycles late, so a sample lands on the
  // instruction in progress then (seed 004 §2.2: "the seventh instruction
  // after the load"); 0 (the default) puts it on the event's own
  // instruction, which is what the placement checks score.
  uint32_t counter_skid = 0;
  // Several vCPUs: each round-robin turn lasts [rr_slice, 2 rr_slice)
  // cycles drawn independently of the timer deadlines (our QEMU patch's
  // qemu_plugin_icount_random_slices; 0: QEMU's turns, a share of the time
  // to the next deadline, which end where a sampling overflow will fall and
  // bias where samples land: docs/ev5-machine.md "SMP").
  uint32_t rr_slice = 2000;
};

}  // namespace dcpi::ev5
