#include "analysis/calc/frontend/own_weighed_samples.h"

namespace dcpi {

void OwnWeighedSamples::add(uint64_t epoch, uint64_t address, double count,
                            std::optional<double> share) {
  rows_.push_back({epoch, address, count, share});
}

std::map<uint64_t, std::optional<OwnCycleShare>> OwnWeighedSamples::add_to(
    calc::SamplesByAddress& cycles) const {
  std::map<uint64_t, OwnShareSum> per_epoch;
  OwnShareSum all;
  for (const Row& row : rows_) {
    per_epoch[row.epoch].add(row.count, row.share);
    all.add(row.count, row.share);
  }
  // The mean the period is scaled by (choose_mean_period weighs the epochs'
  // means by their samples: the same mean).
  const std::optional<OwnCycleShare> mean = all.result();
  for (const Row& row : rows_)
    cycles[row.address] += mean ? row.count * row.share.value_or(1.0) / mean->share : row.count;
  std::map<uint64_t, std::optional<OwnCycleShare>> shares;
  for (const auto& [epoch, sum] : per_epoch) shares[epoch] = sum.result();
  return shares;
}

}  // namespace dcpi
