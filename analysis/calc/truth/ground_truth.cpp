#include "analysis/calc/truth/ground_truth.h"

#include "firmware/truth_format.h"

namespace dcpi::calc {

std::optional<StallCause> parse_truth_cause(std::string_view word) {
  for (const isa::StallCauseInfo& c : isa::kStallCauses)
    if (c.booked_as == c.cause && word == c.truth_name) return c.cause;
  return std::nullopt;
}

void GroundTruth::add_edge(uint64_t from, uint64_t to, uint64_t count) {
  edges_[{from, to}] += count;
  recorded_out_[from] += count;
}

void GroundTruth::add_stall(uint64_t pc, const TruthStall& stall) {
  std::vector<TruthStall>& at = stalls_[pc];
  for (TruthStall& s : at)
    if (s.cause == stall.cause && s.culprit == stall.culprit) {
      s.cycles += stall.cycles;
      return;
    }
  at.push_back(stall);
}

uint64_t GroundTruth::executions(uint64_t pc) const {
  const auto found = instructions_.find(pc);
  return found == instructions_.end() ? 0 : found->second;
}

uint64_t GroundTruth::cycles(uint64_t pc) const {
  if (!timed()) return executions(pc);
  const auto found = cycles_.find(pc);
  return found == cycles_.end() ? 0 : found->second;
}

bool GroundTruth::knows_visibility() const {
  return events_.contains(DCPI_TRUTH_VISIBLE_CYCLES_EVENT);
}

uint64_t GroundTruth::visible_cycles(uint64_t pc) const {
  if (!knows_visibility()) return cycles(pc);
  const auto found = visible_.find(pc);
  return found == visible_.end() ? 0 : found->second;
}

const std::vector<TruthStall>& GroundTruth::stalls(uint64_t pc) const {
  static const std::vector<TruthStall> kNone;
  const auto found = stalls_.find(pc);
  return found == stalls_.end() ? kNone : found->second;
}

uint64_t GroundTruth::transfers(uint64_t from, uint64_t to) const {
  const auto found = edges_.find({from, to});
  uint64_t count = found == edges_.end() ? 0 : found->second;
  if (to == from + 4) {
    const auto out = recorded_out_.find(from);
    const uint64_t recorded = out == recorded_out_.end() ? 0 : out->second;
    const uint64_t executed = executions(from);
    // The last instruction a CPU ran has no successor: at most one per CPU.
    if (executed > recorded) count += executed - recorded;
  }
  return count;
}

}  // namespace dcpi::calc
