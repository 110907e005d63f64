#include "hostdump/row_accumulator.h"

#include <algorithm>
#include <tuple>

namespace dcpi {

void RowAccumulator::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.count == 0) continue;
    size_t i = hash(slot.pid, slot.cpu, slot.address) & mask;
    while (slots_[i].count != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

std::vector<ProfileRow> RowAccumulator::sorted_rows() const {
  std::vector<ProfileRow> rows;
  rows.reserve(used_);
  for (const Slot& slot : slots_)
    if (slot.count != 0) rows.push_back({slot.pid, slot.cpu, slot.address, slot.count});
  std::sort(rows.begin(), rows.end(), [](const ProfileRow& a, const ProfileRow& b) {
    return std::tie(a.pid, a.cpu, a.address) < std::tie(b.pid, b.cpu, b.address);
  });
  return rows;
}

}  // namespace dcpi
