#include "qemu/machine/plugins/ev5/write_buffer.h"

#include <algorithm>

namespace dcpi::ev5 {

bool WriteBuffer::merges(uint64_t line, uint64_t now) const {
  for (uint32_t k = 0; k < count_; ++k)
    if (at(k).line == line && now < at(k).retire_start) return true;
  return false;
}

uint32_t WriteBuffer::occupied(uint64_t now) const {
  uint32_t n = 0;
  for (uint32_t k = 0; k < count_; ++k)
    if (at(k).retired > now) ++n;
  return n;
}

uint64_t WriteBuffer::wait(uint64_t address, uint64_t now) const {
  // Fewer entries than the ring holds: none can be full (issue 31: the
  // common case without walking the ring twice).
  if (count_ < kEntries) return 0;
  if (merges(address / kLineBytes, now) || occupied(now) < kEntries) return 0;
  // Full: the oldest entry still occupied frees the first slot.
  for (uint32_t k = 0; k < count_; ++k)
    if (at(k).retired > now) return at(k).retired - now;
  return 0;
}

void WriteBuffer::drop_retired(uint64_t now) {
  while (count_ > 0 && at(0).retired <= now) {
    last_retired_ = at(0).retired;
    head_ = wrap(head_ + 1);
    --count_;
  }
}

bool WriteBuffer::store(uint64_t address, uint64_t now, uint64_t retire_cycles) {
  drop_retired(now);
  const uint64_t line = address / kLineBytes;
  if (merges(line, now)) return false;
  if (count_ == kEntries) {  // the caller did not wait: the oldest goes now
    last_retired_ = at(0).retired;
    head_ = wrap(head_ + 1);
    --count_;
  }
  uint64_t previous_end = last_retired_;
  if (count_ > 0) {
    // A newer entry arrived: the youngest stops waiting for merges.
    Entry& youngest = at(count_ - 1);
    const uint64_t before = count_ > 1 ? at(count_ - 2).retired : last_retired_;
    if (youngest.retire_start > now) {
      youngest.retire_start = std::max(before, now);
      youngest.retired = youngest.retire_start + youngest.cost;
    }
    previous_end = youngest.retired;
  }
  const uint64_t start = std::max(previous_end, now + kIdleRetireCycles);
  at(count_) = Entry{
      .line = line, .cost = retire_cycles, .retire_start = start, .retired = start + retire_cycles};
  ++count_;
  return true;
}

}  // namespace dcpi::ev5
