#include "qemu/machine/plugins/ev5/cache.h"

#include <algorithm>
#include <bit>

namespace dcpi::ev5 {

Cache::Cache(uint32_t bytes, uint32_t ways, uint32_t line_bytes)
    : ways_(ways),
      line_bytes_(line_bytes),
      line_shift_(static_cast<uint32_t>(std::countr_zero(line_bytes))),
      sets_(bytes / (ways * line_bytes)),
      tags_(static_cast<std::size_t>(sets_) * ways, kInvalid),
      states_(static_cast<std::size_t>(sets_) * ways),
      uses_(ways > 1 ? static_cast<std::size_t>(sets_) * ways : 0) {}

static_assert(sizeof(Arrival) == 16, "four line states to a host cache line");

CacheAccess Cache::lookup_ways(size_t set, uint64_t line_number, uint64_t address, uint64_t now) {
  for (uint32_t w = 0; w < ways_; ++w) {
    if (tags_[set + w] == line_number + 1) {
      uses_[set + w] = ++use_clock_;
      return hit(states_[set + w], address, now);
    }
  }
  return {.hit = false, .ready = now, .arrival = {}};
}

void Cache::fill(uint64_t address, const Arrival& arrival) {
  const uint64_t line_number = address >> line_shift_;
  const size_t set = set_of(line_number);
  if (ways_ == 1) {  // no ways to order
    tags_[set] = line_number + 1;
    states_[set] = arrival;
    return;
  }
  size_t victim = set;
  for (uint32_t w = 0; w < ways_; ++w) {
    const size_t way = set + w;
    if (tags_[way] == line_number + 1) {
      victim = way;
      break;
    }
    if (tags_[way] == kInvalid || (tags_[victim] != kInvalid && uses_[way] < uses_[victim]))
      victim = way;
  }
  tags_[victim] = line_number + 1;
  states_[victim] = arrival;
  uses_[victim] = ++use_clock_;
}

bool Cache::invalidate(uint64_t address, uint32_t bytes) {
  bool held = false;
  for (uint64_t line_number = address >> line_shift_;
       line_number <= (address + bytes - 1) >> line_shift_; ++line_number) {
    const size_t set = set_of(line_number);
    for (uint32_t w = 0; w < ways_; ++w)
      if (tags_[set + w] == line_number + 1) {
        tags_[set + w] = kInvalid;
        held = true;
      }
  }
  return held;
}

void Cache::invalidate_all() { std::fill(tags_.begin(), tags_.end(), kInvalid); }

}  // namespace dcpi::ev5
