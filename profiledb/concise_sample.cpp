#include "profiledb/concise_sample.h"

#include <algorithm>
#include <stdexcept>

namespace dcpi::values {

uint64_t hotlist_seed(uint64_t address, const std::string& kind, uint64_t epoch) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a over the kind name
  for (char c : kind) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h ^ (address * 0x9e3779b97f4a7c15ull) ^ (epoch << 48);
}

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

ConciseSample ConciseSample::restore(uint64_t seed, double probability, uint64_t seen,
                                     const std::vector<HotValue>& values, uint32_t capacity,
                                     double shrink_factor) {
  ConciseSample sample(seed, capacity, shrink_factor);
  if (!(probability > 0.0 && probability <= 1.0))
    throw std::invalid_argument("hotlist probability outside (0, 1]");
  if (values.size() > capacity) throw std::invalid_argument("hotlist longer than its capacity");
  uint64_t total = 0;
  for (const HotValue& h : values) {
    if (h.count == 0) throw std::invalid_argument("hotlist value with a zero count");
    if (sample.find(h.value)) throw std::invalid_argument("hotlist value listed twice");
    if (h.count > seen - std::min(seen, total))
      throw std::invalid_argument("hotlist counts exceed the occurrences seen");
    total += h.count;
    sample.entries_.push_back(Entry{h.value, h.count});
  }
  sample.probability_ = probability;
  sample.seen_ = seen;
  return sample;
}

void ConciseSample::merge(const ConciseSample& other) {
  const double p = std::min(probability_, other.probability_);
  auto thin = [&](uint64_t count, double from) {
    if (from <= p) return count;
    return std::binomial_distribution<uint64_t>(count, p / from)(random_);
  };
  for (Entry& e : entries_) e.count = thin(e.count, probability_);
  for (const Entry& o : other.entries_) {
    const uint64_t kept = thin(o.count, other.probability_);
    if (kept == 0) continue;
    if (Entry* e = find(o.value))
      e->count += kept;
    else
      entries_.push_back(Entry{o.value, kept});
  }
  std::erase_if(entries_, [](const Entry& e) { return e.count == 0; });
  probability_ = p;
  seen_ += other.seen_;
  if (entries_.size() > capacity_) shrink_until_fits();
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
