// A value hotlist: Gibbons and Matias' concise samples, as used by value
// sampling (Burrows et al., seed 001 §2.2): keep at most N distinct values,
// add each occurrence with probability p, and when the table overflows lower
// p by a factor f and thin every counter binomially with probability 1/f.
// C[v] / p is then an unbiased estimate of how often v occurred.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

namespace dcpi::values {

// Seed 001 §2.2: "N = 16 and f = 16/15" per (PC, value kind).
inline constexpr uint32_t kHotlistCapacity = 16;
inline constexpr double kHotlistShrinkFactor = 16.0 / 15.0;

struct HotValue {
  uint64_t value;
  uint64_t count;   // C[v]: occurrences retained
  double estimate;  // C[v] / p: unbiased estimate of occurrences seen
};

class ConciseSample {
 public:
  explicit ConciseSample(uint64_t seed, uint32_t capacity = kHotlistCapacity,
                         double shrink_factor = kHotlistShrinkFactor);

  void add(uint64_t value);
  // Occurrences offered so far (exact: every add counts here).
  uint64_t seen() const { return seen_; }
  // The current sampling probability p (the paper's "thld" column).
  double probability() const { return probability_; }
  uint32_t distinct() const { return static_cast<uint32_t>(entries_.size()); }
  // Values sorted by decreasing count, ties by value.
  std::vector<HotValue> hotlist() const;

 private:
  struct Entry {
    uint64_t value;
    uint64_t count;
  };
  void shrink_until_fits();
  Entry* find(uint64_t value);

  uint32_t capacity_;
  double shrink_factor_;
  double probability_ = 1.0;
  uint64_t seen_ = 0;
  std::vector<Entry> entries_;  // at most capacity_ entries between calls
  std::mt19937_64 random_;
};

}  // namespace dcpi::values
