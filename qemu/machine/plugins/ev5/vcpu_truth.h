// What one vCPU's run-time model observed, for the truth file: dynamic stall
// cycles by (charged PC, cause, culprit), cycle corrections from exact exits,
// which of them a sample could see,
// control transfers between blocks, and event counts. Touched only by its
// own vCPU while the guest runs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>

#include "qemu/machine/plugins/ev5/block_timing.h"
#include "qemu/machine/plugins/ev5/count_cache.h"
#include "qemu/machine/plugins/ev5/perf_counters.h"
#include "qemu/machine/plugins/ev5/sample_visibility.h"

namespace dcpi::ev5 {

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    return std::hash<uint64_t>()(p.first * 0x9e3779b97f4a7c15ull ^ p.second);
  }
};

using StallKey = std::tuple<uint64_t, StallCause, uint64_t>;  // (pc, cause, culprit)

struct StallKeyHash {
  size_t operator()(const StallKey& k) const {
    return std::hash<uint64_t>()(std::get<0>(k) * 0x9e3779b97f4a7c15ull ^ std::get<2>(k) * 31 ^
                                 static_cast<uint64_t>(std::get<1>(k)));
  }
};

struct VcpuTruth {
  CountMap<StallKey, StallKeyHash> stalls;
  std::map<uint64_t, int64_t> cycle_corrections;  // pc -> cycles
  CountMap<std::pair<uint64_t, uint64_t>, PairHash> edges;
  uint64_t itb_miss = 0, dtb_miss = 0, mispredict = 0, exact_exits = 0;
  // Which of the cycles booked here a sample can land on.
  SampleVisibility visibility;

  void stall(uint64_t pc, StallCause cause, uint64_t culprit, uint64_t cycles) {
    if (!cycles) return;
    stalls[{pc, cause, culprit}] += cycles;
    visibility.book(pc, static_cast<int64_t>(cycles));
  }
  // Events per PC, where the model counts them for counters 1 and 2
  // (loads and stores are the executions of their instructions, not kept).
  CountMap<std::pair<uint64_t, uint64_t>, PairHash> events;  // (pc, ModelEvent)
  void event(uint64_t pc, ModelEvent e) { ++events[{pc, static_cast<uint64_t>(e)}]; }
  void correct(uint64_t pc, int64_t cycles) {
    cycle_corrections[pc] += cycles;
    visibility.book(pc, cycles);
  }
};

}  // namespace dcpi::ev5
