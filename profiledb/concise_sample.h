// A value hotlist: Gibbons and Matias' concise samples, as used by value
// sampling (Burrows et al., seed 001 §2.2): keep at most N distinct values,
// add each occurrence with probability p, and when the table overflows lower
// p by a factor f and thin every counter binomially with probability 1/f.
// C[v] / p is then an unbiased estimate of how often v occurred.
//
// It lives in profiledb/ because the database stores these hotlists (.vals
// files) and merges two of them with ConciseSample::merge (docs/profile-db.md,
// "Value files"): the merge rule is part of the format. hostdump's value
// reducer fills them; the reports read them.
#pragma once
#include <cstdint>
#include <random>
#include <string>
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

// A small deterministic generator (SplitMix64): the per-PC hotlists of a
// profile are many, so each carries 8 bytes of state, not a Mersenne twister.
class SplitMix64 {
 public:
  using result_type = uint64_t;
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return UINT64_MAX; }
  result_type operator()() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

class ConciseSample {
 public:
  explicit ConciseSample(uint64_t seed, uint32_t capacity = kHotlistCapacity,
                         double shrink_factor = kHotlistShrinkFactor);

  // A hotlist as stored in the profile database (values with their retained
  // counts C[v], the probability p, and the occurrences seen). Throws
  // std::invalid_argument if it is inconsistent (p outside (0, 1], a zero
  // count, counts above `seen`, duplicate values, more than `capacity`).
  static ConciseSample restore(uint64_t seed, double probability, uint64_t seen,
                               const std::vector<HotValue>& values,
                               uint32_t capacity = kHotlistCapacity,
                               double shrink_factor = kHotlistShrinkFactor);

  // Folds `other` (the same stream kind, e.g. a later update of the same PC)
  // into this sample. Rule (docs/profile-db.md, "Value files"): let
  // p = min(p_this, p_other); thin each side's counts binomially with
  // probability p / p_side, so every occurrence of either stream is retained
  // independently with probability p; add the counts per value; add `seen`;
  // then shrink by f as in add() until at most N values remain. C[v] / p stays
  // an unbiased estimate of the merged stream's occurrences of v.
  void merge(const ConciseSample& other);

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
  SplitMix64 random_;
};

// The deterministic RNG seed of one hotlist (so a run reduces, and a
// database merges, the same way every time): a hash of the address, the kind
// name and the epoch.
uint64_t hotlist_seed(uint64_t address, const std::string& kind, uint64_t epoch);

}  // namespace dcpi::values
