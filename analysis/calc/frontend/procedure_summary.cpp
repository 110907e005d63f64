#include "analysis/calc/frontend/procedure_summary.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>

namespace dcpi {

using namespace calc;

char stall_letter(const StaticStall& stall) {
  if (stall.reason != StallCause::kDependency) return isa::static_letter(stall.reason);
  if (stall.operand == OperandField::kRa) return isa::static_letter(stall.reason, 0);
  if (stall.operand == OperandField::kRc) return isa::static_letter(stall.reason, 2);
  return isa::static_letter(stall.reason, 1);
}

// Two lines per cycle spent at the head of the queue beyond the first, plus
// the empty second slot when the previous instruction issued alone.
int static_half_cycles(const BlockSchedule& schedule, size_t i) {
  const uint32_t m = schedule.instructions[i].head_cycles;
  if (m == 0) return 0;
  int lines = 2 * static_cast<int>(m) - 2;
  if (i > 0) {
    const uint32_t previous_cycle = schedule.instructions[i - 1].issue_cycle;
    const bool alone = i < 2 || schedule.instructions[i - 2].issue_cycle != previous_cycle;
    if (alone) ++lines;
  }
  return lines;
}

StallsByInstruction::StallsByInstruction(const ControlFlowGraph& cfg,
                                         const CulpritReport& culprits) {
  first_.reserve(cfg.blocks().size());
  size_t count = 0;
  for (const BasicBlock& block : cfg.blocks()) {
    first_.push_back(count);
    count += block.instructions.size();
  }
  at_.assign(count, nullptr);
  for (const DynamicStall& s : culprits.stalls)
    if (s.block < first_.size() && s.instruction < cfg.block(s.block).instructions.size())
      at_[first_[s.block] + s.instruction] = &s;
}

namespace {

// Figure 4's names for the static stall reasons.
std::string_view static_name(const StaticStall& stall) {
  return isa::figure4_static_name(stall_letter(stall));
}

// The summary's totals per static stall name and per dynamic cause while
// the blocks are added: a few entries each, in flat lists instead of a
// std::map lookup (and a std::string) per instruction (issue 31). Each total
// is the same sum, in the same order from 0, as the maps' were: moved into
// the summary's (empty) maps at the end, they hold the same doubles.
struct CauseTotals {
  std::vector<std::pair<std::string_view, double>> static_stalls;
  std::vector<std::pair<StallCause, std::pair<double, double>>> dynamic;  // low, high
  std::vector<std::pair<StallCause, double>> bounds;                      // one stall's, reused

  double& static_stall(std::string_view name) {
    for (auto& [known, total] : static_stalls)
      if (known == name) return total;
    return static_stalls.emplace_back(name, 0.0).second;
  }
  std::pair<double, double>& dynamic_cause(StallCause cause) {
    for (auto& [known, totals] : dynamic)
      if (known == cause) return totals;
    return dynamic.emplace_back(cause, std::pair{0.0, 0.0}).second;
  }
  void move_into(CalcSummary& summary) const {
    for (const auto& [name, total] : static_stalls)
      summary.static_stalls[std::string(name)] = total;
    for (const auto& [cause, totals] : dynamic) summary.dynamic[cause] = totals;
  }
};

// One dynamic stall's cycles by cause: one share per cause, however many
// instructions it points at; each cause adds to its own totals, so their
// order does not matter.
void add_dynamic_stall(CalcSummary& summary, CauseTotals& totals, const DynamicStall& stall,
                       double f) {
  const double cycles = f * stall.cycles;
  summary.dynamic_total += cycles;
  if (stall.unexplained()) summary.unexplained_stall += cycles;
  std::vector<std::pair<StallCause, double>>& bounds = totals.bounds;
  bounds.clear();
  for (const CulpritCandidate& c : stall.candidates) {
    const double bound =
        c.upper_bound_cycles ? std::min(cycles, f * *c.upper_bound_cycles) : cycles;
    auto same = std::find_if(bounds.begin(), bounds.end(),
                             [&](const auto& b) { return b.first == c.cause; });
    if (same == bounds.end()) same = bounds.insert(bounds.end(), {c.cause, 0.0});
    same->second = std::max(same->second, bound);
  }
  for (const auto& [cause, bound] : bounds) {
    auto& [low, high] = totals.dynamic_cause(cause);
    high += bound;
    if (bounds.size() == 1) low += bound;
  }
}

// Figure 4's tallies for one block, in samples (cycles × F). Static stalls
// are counted as the listing draws them, half a cycle per bubble line, so a
// lost dual-issue slot costs half a cycle. Unexplained gain only where the
// machine can stall at all (§6.3); on QEMU every deviation from F·M_i is
// sampling error, and it issues one instruction at a time (no half cycles).
void add_block(CalcSummary& summary, CauseTotals& totals, const ProcedureAnalysis& analysis,
               BlockId b, const StallsByInstruction& stalls, bool dual_issue_with_stalls) {
  const std::span<const double> samples = analysis.samples[b];
  double block_samples = 0;
  for (double s : samples) block_samples += s;
  summary.samples += block_samples;
  const std::optional<double> f = analysis.block_frequency(b);
  if (!f || *f <= 0) return;
  const BlockSchedule& schedule = analysis.schedules[b];
  summary.best_case += *f * schedule.best_case_cycles;
  summary.instructions += *f * schedule.instructions.size();
  for (size_t i = 0; i < schedule.instructions.size(); ++i) {
    const int half_cycles = dual_issue_with_stalls ? static_half_cycles(schedule, i) : 0;
    if (half_cycles > 0) {
      const StaticStalls& static_stalls = schedule.instructions[i].stalls;
      const double cycles = *f * half_cycles / 2.0;
      totals.static_stall(static_stalls.empty() ? "Slotting" : static_name(static_stalls[0])) +=
          cycles;
      summary.static_total += cycles;
    }
    if (const DynamicStall* stall = stalls.at(b, i)) add_dynamic_stall(summary, totals, *stall, *f);
  }
  if (!dual_issue_with_stalls) return;
  for (size_t i = 0; i < samples.size(); ++i) {
    const double excess = samples[i] - *f * schedule.instructions[i].head_cycles;
    if (excess < 0) summary.unexplained_gain += excess;
  }
}

}  // namespace

CalcSummary summarize_procedure(const ProcedureAnalysis& analysis, const CulpritReport& culprits,
                                const ProcessorModel& model, double image_samples) {
  CalcSummary summary{.image_samples = image_samples};
  const StallsByInstruction stalls(analysis.cfg, culprits);
  CauseTotals totals;
  for (BlockId b = 0; b < analysis.cfg.blocks().size(); ++b)
    add_block(summary, totals, analysis, b, stalls, model.has_dynamic_stalls());
  totals.move_into(summary);
  summary.dynamic_total += summary.unexplained_gain;
  summary.execution = summary.best_case - summary.static_total;
  summary.net_sampling_error = summary.samples - summary.best_case - summary.dynamic_total;
  return summary;
}

}  // namespace dcpi
