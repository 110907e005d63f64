// One CPU's memory hierarchy (21164 HRM §2.8-2.10 and the AlphaStation 500
// 5/333's board cache): 8 KB direct-mapped I- and D-caches with 32-byte
// lines (D write-through, read-allocate), the 96 KB 3-way S-cache and the
// direct-mapped B-cache with 64-byte lines, memory, the miss address file
// (at most six D-stream misses outstanding; loads to a line being filled
// wait for that fill), the memory bus (one line transfer at a time) and the
// write buffer. Times are absolute cycles of the
// CPU's own clock.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "qemu/machine/plugins/ev5/cache.h"
#include "qemu/machine/plugins/ev5/coherence.h"
#include "qemu/machine/plugins/ev5/machine.h"
#include "qemu/machine/plugins/ev5/write_buffer.h"

namespace dcpi::ev5 {

struct MemoryEvents {
  uint64_t icache_miss = 0, dcache_miss = 0, scache_miss = 0, bcache_miss = 0;
  uint64_t wbuf_full = 0;
  // Multiprocessor (coherence.h): lines this CPU lost to another's store,
  // and fills another CPU's dirty line supplied.
  uint64_t invalidated = 0, interventions = 0;
};

class MemorySystem {
 public:
  explicit MemorySystem(const Machine& machine);

  // A load issued at `now`: the cycle its data can be used (now + the
  // load-use latency on a miss; now on a D-cache hit, whose 2 cycles the
  // static schedule already counts; a pending fill's completion).
  uint64_t load(uint64_t address, uint64_t now) {
    const CacheAccess d = dcache_.lookup(address, now);
    return d.hit ? d.ready : load_miss(address, now);  // the hit inline (issue 31)
  }
  // Cycles a store issued at `now` waits for the write buffer, then enters it.
  uint64_t store(uint64_t address, uint64_t now);
  // Stall cycles of fetching the I-cache line holding `address` at `now`.
  uint64_t fetch(uint64_t address, uint64_t now);

  const MemoryEvents& events() const { return events_; }
  // Whether the last load that missed the D-cache also missed the S-cache,
  // and the B-cache (ProfileMe's level that served it).
  bool last_miss_scache() const { return last_miss_scache_; }
  bool last_miss_bcache() const { return last_miss_bcache_; }

  // On a multiprocessor: the coherence of the CPUs' caches, this CPU's number.
  void join(Coherence* coherence, size_t cpu);
  // Another CPU's store: drops the 64-byte line of `address` from every level.
  void invalidate(uint64_t address);

 private:
  uint64_t load_miss(uint64_t address, uint64_t now);
  // Bringing the 64-byte line of `address` in from beyond the L1 caches
  // (S-cache, B-cache or memory) at `now`, filling those on the way: when
  // its data arrive (cache.h).
  Arrival fill_from_beyond(uint64_t address, uint64_t now);
  // The same for a line the S-cache was just found not to hold.
  Arrival fill_missing_scache(uint64_t address, uint64_t now);
  uint64_t fill_latency(uint64_t address, uint64_t now) {
    return fill_from_beyond(address, now).of(address) - now;
  }
  // When a memory transfer asked for at `now` gets the bus (and takes it).
  uint64_t bus_start(uint64_t now);

  const Machine& machine_;
  Cache icache_, dcache_, scache_, bcache_;
  WriteBuffer write_buffer_;
  std::array<uint64_t, Machine::kMissAddressFileEntries> outstanding_{};  // fill completions
  MemoryEvents events_;
  uint64_t bus_free_ = 0;
  bool last_miss_scache_ = false, last_miss_bcache_ = false;
  Coherence* coherence_ = nullptr;
  size_t cpu_ = 0;
};

}  // namespace dcpi::ev5
