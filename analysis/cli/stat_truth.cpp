#include "analysis/cli/stat_truth.h"

#include <map>
#include <stdexcept>

#include "analysis/calc/truth/ground_truth.h"

namespace dcpi {
namespace {

using CauseCycles = std::map<isa::StallCause, uint64_t>;

// Stall cycles per cause of each process (the truth's space pid is the
// thread group: the process), every generation (fork, exec) summed.
std::map<uint32_t, CauseCycles> stalls_by_process(const calc::GroundTruth& truth) {
  std::map<uint32_t, CauseCycles> per;
  for (const auto& [id, space] : truth.spaces) {
    CauseCycles& mine = per[id.pid];
    for (const auto& [pc, stalls] : space->all_stalls())
      for (const calc::TruthStall& stall : stalls) mine[stall.cause] += stall.cycles;
  }
  return per;
}

}  // namespace

std::optional<isa::StallCause> stall_cause_of_event(const std::string& event) {
  if (event == "imiss") return isa::StallCause::kICacheMiss;
  if (event == "dmiss") return isa::StallCause::kDCacheMiss;
  if (event == "itbmiss") return isa::StallCause::kItbMiss;
  if (event == "dtbmiss") return isa::StallCause::kDtbMiss;
  if (event == "branchmp") return isa::StallCause::kBranchMispredict;
  return std::nullopt;
}

void add_truth_stalls(const std::string& truth_path, std::vector<StatRow>& rows) {
  calc::GroundTruth truth;
  std::string error;
  if (!calc::read_ground_truth_file(truth_path, truth, error)) throw std::runtime_error(error);
  if (!truth.timed() || !truth.has_spaces())
    throw std::runtime_error(truth_path +
                             ": no stall cycles per address space (an ev5 truth, version 5 "
                             "or later, is needed)");
  const std::map<uint32_t, CauseCycles> per = stalls_by_process(truth);
  for (StatRow& row : rows) {
    for (StatEvent& e : row.events) {
      const std::optional<isa::StallCause> cause = stall_cause_of_event(e.name);
      if (!cause) continue;
      uint64_t cycles = 0;
      for (const uint32_t pid : row.pids) {
        const auto found = per.find(pid);
        if (found == per.end()) continue;
        const auto c = found->second.find(*cause);
        if (c != found->second.end()) cycles += c->second;
      }
      e.truth_stall_cycles = cycles;
    }
  }
}

}  // namespace dcpi
