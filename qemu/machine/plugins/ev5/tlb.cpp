#include "qemu/machine/plugins/ev5/tlb.h"

#include <algorithm>
#include <bit>

namespace dcpi::ev5 {

Tlb::Tlb(uint32_t entries, uint32_t page_bytes)
    : page_shift_(static_cast<uint32_t>(std::countr_zero(page_bytes))), pages_(entries, ~0ull) {}

bool Tlb::access_other(uint64_t page) {
  recent_[1] = recent_[0];
  recent_[0] = page;
  if (std::find(pages_.begin(), pages_.end(), page) != pages_.end()) return true;
  pages_[next_victim_] = page;
  next_victim_ = (next_victim_ + 1) % static_cast<uint32_t>(pages_.size());
  return false;
}

}  // namespace dcpi::ev5
