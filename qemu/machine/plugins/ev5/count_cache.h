// Counters in a map with a small direct-mapped cache of pointers to them in
// front: the truth's per-(PC, cause, culprit) stalls and per-edge counts are
// bumped on the hot path, mostly for the same few keys again and again.
// std::unordered_map never moves its values, so the cached pointers stay
// valid.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace dcpi::ev5 {

template <typename Key, typename Hash>
class CountMap {
 public:
  uint64_t& operator[](const Key& key) {
    const size_t h = Hash()(key);
    Slot& slot = cache_[(h ^ (h >> 17)) % kSlots];
    if (slot.count && slot.key == key) return *slot.count;
    uint64_t& count = counts_[key];
    slot = Slot{key, &count};
    return count;
  }
  auto begin() const { return counts_.begin(); }
  auto end() const { return counts_.end(); }
  bool empty() const { return counts_.empty(); }
  const uint64_t& at(const Key& key) const { return counts_.at(key); }
  auto find(const Key& key) const { return counts_.find(key); }

 private:
  static constexpr size_t kSlots = 256;
  struct Slot {
    Key key{};
    uint64_t* count = nullptr;
  };
  std::array<Slot, kSlots> cache_{};
  std::unordered_map<Key, uint64_t, Hash> counts_;
};

}  // namespace dcpi::ev5
