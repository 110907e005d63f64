// The 21164's six-entry write buffer (HRM §2.10): stores merge into an entry
// holding the same aligned 32 bytes; a store that needs a new entry while
// all six are occupied waits until the oldest retires. Entries retire in
// order, one at a time, each taking the time to write its S-cache line
// (`retire_cycles`, given per entry by the caller: longer when the line
// must first be fetched). The youngest entry is held back for merging until
// a newer one arrives or kIdleRetireCycles pass (the hardware writes when
// two entries are valid or a timer expires).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace dcpi::ev5 {

class WriteBuffer {
 public:
  static constexpr uint32_t kEntries = 6;
  static constexpr uint32_t kLineBytes = 32;
  static constexpr uint64_t kIdleRetireCycles = 64;

  // A store to `address` at `now` merges into the newest entry (the common
  // case of consecutive stores): nothing else to do.
  bool merges_into_newest(uint64_t address, uint64_t now) const {
    return count_ > 0 && at(count_ - 1).line == address / kLineBytes &&
           now < at(count_ - 1).retire_start;
  }
  // Cycles a store to `address` at `now` must wait for a free entry (0 if it
  // merges or one is free).
  uint64_t wait(uint64_t address, uint64_t now) const;
  // Enters the store at cycle `now` (after its wait); `retire_cycles` is what
  // writing this entry's line will take if it needs a new entry. Returns
  // false when it merged into a waiting entry.
  bool store(uint64_t address, uint64_t now, uint64_t retire_cycles);
  uint32_t occupied(uint64_t now) const;

 private:
  struct Entry {
    uint64_t line = 0;
    uint64_t cost = 0;
    uint64_t retire_start = 0;  // the write of the line begins: no more merging
    uint64_t retired = 0;       // the entry is free again
  };
  // The ring's k-th entry from the oldest (k < kEntries): a compare, not a
  // division by 6, at each of a store's several walks (issue 31).
  static uint32_t wrap(uint32_t slot) { return slot >= kEntries ? slot - kEntries : slot; }
  const Entry& at(uint32_t k) const { return entries_[wrap(head_ + k)]; }
  Entry& at(uint32_t k) { return entries_[wrap(head_ + k)]; }
  bool merges(uint64_t line, uint64_t now) const;
  void drop_retired(uint64_t now);

  std::array<Entry, kEntries> entries_{};  // a ring, oldest at head_
  uint32_t head_ = 0, count_ = 0;
  uint64_t last_retired_ = 0;  // of the newest entry that left the ring
};

}  // namespace dcpi::ev5
