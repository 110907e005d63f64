#include "analysis/values/concise_sample.h"

#include <algorithm>
#include <stdexcept>

namespace dcpi::values {

ConciseSample::ConciseSample(uint64_t seed, uint32_t capacity, double shrink_factor)
    : capacity_(capacity), shrink_factor_(shrink_factor), random_(seed) {
  if (capacity == 0) throw std::invalid_argument("hotlist capacity must be at least 1");
  if (!(shrink_factor > 1.0)) throw std::invalid_argument("hotlist shrink factor must exceed 1");
  entries_.reserve(capacity + 1);
}

ConciseSample::Entry* ConciseSample::find(uint64_t value) {
  for (Entry& e : entries_)
    if (e.value == value) return &e;
  return nullptr;
}

void ConciseSample::add(uint64_t value) {
  ++seen_;
  if (probability_ < 1.0 && std::bernoulli_distribution(probability_)(random_) == false) return;
  if (Entry* e = find(value)) {
    ++e->count;
    return;
  }
  entries_.push_back(Entry{value, 1});
  if (entries_.size() > capacity_) shrink_until_fits();
}

// Seed 001 §2.2: "p is reduced to p/f, and each value instance recorded in C
// is retained with probability 1/f", repeated until NZ(C) <= N.
void ConciseSample::shrink_until_fits() {
  while (entries_.size() > capacity_) {
    probability_ /= shrink_factor_;
    for (Entry& e : entries_)
      e.count = std::binomial_distribution<uint64_t>(e.count, 1.0 / shrink_factor_)(random_);
    std::erase_if(entries_, [](const Entry& e) { return e.count == 0; });
  }
}

std::vector<HotValue> ConciseSample::hotlist() const {
  std::vector<HotValue> list;
  list.reserve(entries_.size());
  for (const Entry& e : entries_)
    list.push_back(HotValue{e.value, e.count, static_cast<double>(e.count) / probability_});
  std::sort(list.begin(), list.end(), [](const HotValue& a, const HotValue& b) {
    return a.count != b.count ? a.count > b.count : a.value < b.value;
  });
  return list;
}

}  // namespace dcpi::values
