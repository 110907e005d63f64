// The CPUs' caches kept coherent, as on a multiprocessor of 21164s (issue
// 25 item 6; the AlphaServer 4100's four 21164s, each with its own B-cache,
// on one system bus; 21164 HRM §2.10: the S- and B-caches are write-back and
// kept coherent by the system, the D-cache a subset of the S-cache).
// Write-invalidate at the granularity of a 64-byte line: a store takes the
// line out of every other CPU's D-, S- and B-cache (an invalidation); a
// CPU's fill of a line another CPU wrote last and nobody has read since is
// an intervention (the owner supplies it over the bus: the memory latency,
// plus the `intervention` tunable, 0 by default: no published figure for the
// AlphaServer 4100's dirty read is cited here).
//
// Lines are the model's cache addresses (MemorySystem): user addresses
// tagged with their address space (VcpuModel), so processes that share
// virtual addresses share no lines. The last writer of each line is kept in
// a direct-mapped table of 2^20 entries (a collision forgets a writer: an
// intervention missed, never an invalidation). Under -icount QEMU runs the
// vCPUs round-robin on one thread, so the table needs no lock.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dcpi::ev5 {

class MemorySystem;

class Coherence {
 public:
  Coherence();
  // The memory systems of the machine's CPUs, by CPU number.
  void attach(size_t cpu, MemorySystem* memory);

  // CPU `cpu` stores into the line of `address`.
  void store(size_t cpu, uint64_t address);
  // CPU `cpu` fills the line of `address` from beyond its caches: true if
  // another CPU holds it dirty (an intervention).
  bool fill(size_t cpu, uint64_t address);

 private:
  static constexpr uint32_t kLineShift = 6;  // 64-byte lines (S- and B-cache)
  static constexpr uint32_t kTableBits = 20;
  struct Writer {
    uint64_t line = ~0ull;
    int16_t cpu = -1;
    bool read_since = true;  // read by another CPU since the write: shared
  };
  Writer& writer_of(uint64_t line) { return table_[line & ((1u << kTableBits) - 1)]; }

  std::vector<MemorySystem*> cpus_;
  std::vector<Writer> table_;
};

}  // namespace dcpi::ev5
