// Several CPUs under -icount's one clock (profiledb/own_cycles.h): a thread's
// sample stands for its own share of a period. An image's cycles samples are
// added weighed by their thread's share over the image's mean share, so that
// each instruction's samples × (mean period × mean share) are its own cycles
// although its threads ran beside different numbers of others (a serial
// phase and a parallel one); their total is unchanged. On one CPU every
// weight is exactly 1.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "analysis/calc/estimate/procedure_analysis.h"
#include "profiledb/own_cycles.h"

namespace dcpi {

class OwnWeighedSamples {
 public:
  void add(uint64_t epoch, uint64_t address, double count, std::optional<double> share);
  // Adds every sample to `cycles`, weighed; returns each epoch's mean share
  // of its samples (nullopt: none of them had one).
  std::map<uint64_t, std::optional<OwnCycleShare>> add_to(calc::SamplesByAddress& cycles) const;

 private:
  struct Row {
    uint64_t epoch;
    uint64_t address;
    double count;
    std::optional<double> share;
  };
  std::vector<Row> rows_;
};

}  // namespace dcpi
