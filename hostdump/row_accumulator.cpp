#include "hostdump/row_accumulator.h"

#include <algorithm>
#include <stdexcept>
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

std::vector<ProfileRow> merge_sorted_rows(const std::vector<ProfileRow>& rows,
                                          const std::vector<ProfileRow>& more) {
  auto key = [](const ProfileRow& row) { return std::tie(row.pid, row.cpu, row.address); };
  std::vector<ProfileRow> merged;
  merged.reserve(rows.size() + more.size());
  size_t i = 0, j = 0;
  while (i < rows.size() || j < more.size()) {
    if (j == more.size() || (i < rows.size() && key(rows[i]) < key(more[j]))) {
      merged.push_back(rows[i++]);
    } else if (i == rows.size() || key(more[j]) < key(rows[i])) {
      merged.push_back(more[j++]);
    } else {
      ProfileRow row = rows[i++];
      if (more[j].count > UINT64_MAX - row.count)
        throw std::overflow_error("profile count overflows 64 bits");
      row.count += more[j++].count;
      merged.push_back(row);
    }
  }
  return merged;
}

}  // namespace dcpi
