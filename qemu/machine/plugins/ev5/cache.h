// A set-associative cache with LRU replacement (direct-mapped when ways = 1).
// It remembers when each line's fill completes, so an access to a line still
// being filled waits for it (the 21164's miss address file merges such loads).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dcpi::ev5 {

struct CacheAccess {
  bool hit = false;
  uint64_t ready = 0;  // cycle the line's data is there (a hit on a line being filled)
};

class Cache {
 public:
  // bytes / (ways * line_bytes) sets; all three must be powers of two except ways.
  Cache(uint32_t bytes, uint32_t ways, uint32_t line_bytes);

  // Looks `address` up at cycle `now`; a miss does not fill.
  CacheAccess lookup(uint64_t address, uint64_t now);
  // Installs the line holding `address`, its data there at `ready`.
  void fill(uint64_t address, uint64_t ready);
  void invalidate_all();
  // Drops every line within [address, address + bytes); true if one was there.
  bool invalidate(uint64_t address, uint32_t bytes);

  uint32_t line_bytes() const { return line_bytes_; }
  uint32_t sets() const { return sets_; }

 private:
  struct Line {
    uint64_t tag = 0;
    uint64_t ready = 0;
    uint64_t last_use = 0;
    bool valid = false;
  };
  Line* set_of(uint64_t line_number) { return &lines_[(line_number & (sets_ - 1)) * ways_]; }

  uint32_t ways_, line_bytes_, line_shift_, sets_;
  uint64_t use_clock_ = 0;
  std::vector<Line> lines_;
};

}  // namespace dcpi::ev5
