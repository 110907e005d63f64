// In-memory aggregation of (pid, cpu, address) -> count for one (image, event)
// profile: the daemon's per-image hash table of DCPI §4.3.1. Open addressing
// with linear probing, because this is the inner loop of ingestion (one
// insert per sample entry; target >= 10 M entries/s, tests/bench).
#pragma once
#include <cstdint>
#include <vector>

#include "profiledb/profile_db.h"

namespace dcpi {

class RowAccumulator {
 public:
  RowAccumulator() : slots_(kInitialSlots) {}

  void add(uint32_t pid, uint32_t cpu, uint64_t address, uint64_t count) {
    if (count == 0) return;
    if ((used_ + 1) * 2 > slots_.size()) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash(pid, cpu, address) & mask;; i = (i + 1) & mask) {
      Slot& slot = slots_[i];
      if (slot.count == 0) {
        slot = {address, pid, cpu, count};
        ++used_;
        break;
      }
      if (slot.address == address && slot.pid == pid && slot.cpu == cpu) {
        slot.count += count;
        break;
      }
    }
    total_ += count;
  }

  // Rows sorted by (pid, cpu, address), as the profile file stores them.
  std::vector<ProfileRow> sorted_rows() const;
  size_t size() const { return used_; }
  uint64_t total() const { return total_; }
  bool empty() const { return used_ == 0; }

 private:
  struct Slot {
    uint64_t address = 0;
    uint32_t pid = 0;
    uint32_t cpu = 0;
    uint64_t count = 0;  // 0 = empty slot
  };
  static constexpr size_t kInitialSlots = 256;

  static size_t hash(uint32_t pid, uint32_t cpu, uint64_t address) {
    uint64_t h = (address >> 2) * 0x9e3779b97f4a7c15ull ^ (uint64_t{pid} << 20 | cpu);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return static_cast<size_t>(h ^ (h >> 32));
  }
  void grow();

  std::vector<Slot> slots_;
  size_t used_ = 0;
  uint64_t total_ = 0;
};

}  // namespace dcpi
