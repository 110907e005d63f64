// Counters in a map with a small direct-mapped cache of pointers to them in
// front: the truth's per-(PC, cause, culprit) stalls and per-edge counts, and
// the visible cycles per PC (sample_visibility.h, doubles), are bumped on the
// hot path, mostly for the same few keys again and again.
// std::unordered_map never moves its values, so the cached pointers stay
// valid.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

namespace dcpi::ev5 {

template <typename Key, typename Hash, typename Value = uint64_t>
class CountMap {
 public:
  CountMap() = default;
  // A copy's cached pointers would point into the original: it starts cold.
  CountMap(const CountMap& other) : counts_(other.counts_) {}
  CountMap& operator=(const CountMap& other) {
    counts_ = other.counts_;
    cache_ = {};
    return *this;
  }
  // A move keeps the map's nodes, so the cached pointers stay valid.
  CountMap(CountMap&&) = default;
  CountMap& operator=(CountMap&&) = default;

  Value& operator[](const Key& key) {
    const size_t h = Hash()(key);
    Slot& slot = cache_[(h ^ (h >> 17)) % kSlots];
    if (slot.count && slot.key == key) return *slot.count;
    Value& count = counts_[key];
    slot = Slot{key, &count};
    return count;
  }
  auto begin() const { return counts_.begin(); }
  auto end() const { return counts_.end(); }
  bool empty() const { return counts_.empty(); }
  const Value& at(const Key& key) const { return counts_.at(key); }
  size_t count(const Key& key) const { return counts_.count(key); }
  auto find(const Key& key) const { return counts_.find(key); }

 private:
  static constexpr size_t kSlots = 256;
  struct Slot {
    Key key{};
    Value* count = nullptr;
  };
  std::array<Slot, kSlots> cache_{};
  std::unordered_map<Key, Value, Hash> counts_;
};

}  // namespace dcpi::ev5
