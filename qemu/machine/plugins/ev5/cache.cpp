#include "qemu/machine/plugins/ev5/cache.h"

#include <bit>

namespace dcpi::ev5 {

Cache::Cache(uint32_t bytes, uint32_t ways, uint32_t line_bytes)
    : ways_(ways),
      line_bytes_(line_bytes),
      line_shift_(static_cast<uint32_t>(std::countr_zero(line_bytes))),
      sets_(bytes / (ways * line_bytes)),
      lines_(static_cast<std::size_t>(sets_) * ways) {}

CacheAccess Cache::lookup(uint64_t address, uint64_t now) {
  const uint64_t line_number = address >> line_shift_;
  Line* set = set_of(line_number);
  for (uint32_t w = 0; w < ways_; ++w) {
    if (set[w].valid && set[w].tag == line_number) {
      set[w].last_use = ++use_clock_;
      const uint64_t ready = set[w].arrival.of(address);
      return {.hit = true, .ready = ready > now ? ready : now, .arrival = set[w].arrival};
    }
  }
  return {.hit = false, .ready = now, .arrival = {}};
}

void Cache::fill(uint64_t address, const Arrival& arrival) {
  const uint64_t line_number = address >> line_shift_;
  Line* set = set_of(line_number);
  Line* victim = &set[0];
  for (uint32_t w = 0; w < ways_; ++w) {
    if (set[w].valid && set[w].tag == line_number) {
      victim = &set[w];
      break;
    }
    if (!set[w].valid || (victim->valid && set[w].last_use < victim->last_use)) victim = &set[w];
  }
  *victim = Line{.tag = line_number, .arrival = arrival, .last_use = ++use_clock_, .valid = true};
}

bool Cache::invalidate(uint64_t address, uint32_t bytes) {
  bool held = false;
  for (uint64_t line_number = address >> line_shift_;
       line_number <= (address + bytes - 1) >> line_shift_; ++line_number) {
    Line* set = set_of(line_number);
    for (uint32_t w = 0; w < ways_; ++w)
      if (set[w].valid && set[w].tag == line_number) {
        set[w].valid = false;
        held = true;
      }
  }
  return held;
}

void Cache::invalidate_all() {
  for (Line& line : lines_) line.valid = false;
}

}  // namespace dcpi::ev5
