// A set-associative cache with LRU replacement (direct-mapped when ways = 1).
// It remembers when each line's data arrive, so an access to a line still
// being filled waits for its part (the 21164's miss address file merges
// such loads).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dcpi::ev5 {

// When a fill's data arrive. It comes 16 bytes per data cycle of the
// 128-bit bus, the requested 16 bytes first and the rest in interleaved
// (XOR) wrap order (21164 HRM §4: 16-byte data cycles, the SSRAMs'
// interleaved burst), so another part of the line comes a few cycles later.
struct Arrival {
  static constexpr uint32_t kChunkBytes = 16;
  static constexpr uint32_t kChunks = 4;  // a 64-byte line: four data cycles
  uint64_t first = 0;                     // cycle the requested chunk is there
  // Its address / kChunkBytes, of which only the low bits (the chunk within
  // the line) matter: 32 bits keep a line's state at 16 bytes (issue 31).
  uint32_t first_chunk = 0;
  uint32_t chunk_cycles = 0;  // between data cycles; 0: all at once
  // When the chunk holding `address` is there.
  uint64_t of(uint64_t address) const {
    return first + (((address / kChunkBytes) ^ first_chunk) & (kChunks - 1)) * chunk_cycles;
  }
  uint64_t last() const { return first + (kChunks - 1) * uint64_t{chunk_cycles}; }
};

struct CacheAccess {
  bool hit = false;
  uint64_t ready = 0;  // cycle the accessed data are there (a hit on a line being filled)
  Arrival arrival;     // of the line's fill, on a hit
};

class Cache {
 public:
  // bytes / (ways * line_bytes) sets; all three must be powers of two except ways.
  Cache(uint32_t bytes, uint32_t ways, uint32_t line_bytes);

  // Looks `address` up at cycle `now`; a miss does not fill. Inline, with
  // a direct-mapped cache's one way first: the I-, D- and B-caches are
  // looked up at every fetch, load and store (issue 31).
  CacheAccess lookup(uint64_t address, uint64_t now) {
    const uint64_t line_number = address >> line_shift_;
    const size_t set = set_of(line_number);
    if (ways_ == 1) {
      if (tags_[set] != line_number + 1) return {.hit = false, .ready = now, .arrival = {}};
      return hit(states_[set], address, now);
    }
    return lookup_ways(set, line_number, address, now);
  }
  // Installs the line holding `address`, its data there at `ready`.
  void fill(uint64_t address, uint64_t ready) {
    fill(address, Arrival{ready, static_cast<uint32_t>(address / Arrival::kChunkBytes), 0});
  }
  // Installs the line holding `address`, its data arriving as `arrival` says.
  void fill(uint64_t address, const Arrival& arrival);
  void invalidate_all();
  // Drops every line within [address, address + bytes); true if one was there.
  bool invalidate(uint64_t address, uint32_t bytes);

  uint32_t line_bytes() const { return line_bytes_; }
  uint32_t sets() const { return sets_; }

 private:
  // The tags apart from the rest (issue 31): a lookup, a miss and the other
  // CPUs' invalidations touch 8 bytes a line, not 24 with the state beside
  // them (the 2 MB B-cache's tags fit in 256 KB of the host's cache).
  // A line's state is its fill's arrival (16 bytes: four lines to a host
  // cache line). `uses_` orders the ways of a set (LRU), apart from the
  // states so that choosing a victim reads the set's tags and stamps only;
  // a direct-mapped cache has one way and keeps no stamps (issue 31).
  static constexpr uint64_t kInvalid = 0;  // a tag is the line number + 1
  static CacheAccess hit(const Arrival& line, uint64_t address, uint64_t now) {
    const uint64_t ready = line.of(address);
    return {.hit = true, .ready = ready > now ? ready : now, .arrival = line};
  }
  CacheAccess lookup_ways(size_t set, uint64_t line_number, uint64_t address, uint64_t now);
  size_t set_of(uint64_t line_number) const { return (line_number & (sets_ - 1)) * ways_; }

  uint32_t ways_, line_bytes_, line_shift_, sets_;
  uint64_t use_clock_ = 0;
  std::vector<uint64_t> tags_;
  std::vector<Arrival> states_;
  std::vector<uint64_t> uses_;  // last use per way; empty when direct mapped
};

}  // namespace dcpi::ev5
