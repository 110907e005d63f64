#include "analysis/calc/frontend/annotated_procedure.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "firmware/events.h"

namespace dcpi {

using namespace calc;

char stall_letter(const StaticStall& stall) {
  if (stall.reason != StallCause::kDependency) return isa::static_letter(stall.reason);
  if (stall.operand == OperandField::kRa) return isa::static_letter(stall.reason, 0);
  if (stall.operand == OperandField::kRc) return isa::static_letter(stall.reason, 2);
  return isa::static_letter(stall.reason, 1);
}

namespace {

// Figure 4's names for the static stall reasons.
std::string_view static_name(const StaticStall& stall) {
  return isa::figure4_static_name(stall_letter(stall));
}

void add_letter(std::string& letters, char letter) {
  if (letters.find(letter) == std::string::npos) letters += letter;
}

// Half-cycle lines before an issue point (Figure 2: "each line in the listing
// represents a half-cycle"): two per cycle spent at the head of the queue
// beyond the first, plus the empty second slot when the previous instruction
// issued alone.
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

CalcInstruction describe(const ProcedureAnalysis& analysis, BlockId b, size_t i,
                         const DynamicStall* stall, bool half_cycle_lines) {
  const BasicBlock& block = analysis.cfg.block(b);
  const InstructionRecord& insn = block.instructions[i];
  const ScheduledInstruction& scheduled = analysis.schedules[b].instructions[i];
  CalcInstruction line{.address = insn.address,
                       .encoding = insn.encoding,
                       .mode = insn.mode,
                       .samples = analysis.samples[b][i],
                       .head_cycles = scheduled.head_cycles,
                       .cpi = analysis.cycles_per_execution(b, i)};
  for (const StaticStall& s : scheduled.stalls) {
    add_letter(line.static_letters, stall_letter(s));
    if (s.culprit) line.culprits.push_back(block.instructions[*s.culprit].address);
  }
  if (half_cycle_lines) {
    line.static_half_cycles = static_half_cycles(analysis.schedules[b], i);
    if (line.static_half_cycles > 0 && line.static_letters.empty())
      line.static_letters.push_back('s');
  }
  if (stall) {
    line.dynamic_cycles = stall->cycles;
    line.unexplained = stall->unexplained();
    for (const CulpritCandidate& c : stall->candidates) {
      add_letter(line.dynamic_letters, isa::dynamic_letter(c.cause));
      if (c.instruction) line.culprits.push_back(*c.instruction);
    }
    for (const CulpritCandidate& c : stall->ruled_out)
      line.ruled_out.push_back({isa::dynamic_letter(c.cause), c.instruction, c.expected_samples});
  }
  std::sort(line.culprits.begin(), line.culprits.end());
  line.culprits.erase(std::unique(line.culprits.begin(), line.culprits.end()), line.culprits.end());
  return line;
}

std::string method_of(const ProcedureAnalysis& analysis, ClassId c) {
  if (analysis.flow_applied) return "min-cost flow";
  if (analysis.frequencies.propagated[c])
    return std::string(to_string(EstimateMethod::kPropagation));
  return std::string(to_string(analysis.class_estimates[c].method));
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

// Figure 4's tallies for one block, in samples (cycles × F). Static stalls
// are counted as the listing draws them, half a cycle per bubble line, so a
// lost dual-issue slot costs half a cycle.
void add_to_summary(CalcSummary& summary, CauseTotals& totals, const ProcedureAnalysis& analysis,
                    const CalcBlock& out, BlockId b,
                    const std::vector<const DynamicStall*>& stalls) {
  const std::optional<double> f = out.frequency;
  if (!f || *f <= 0) return;
  const BlockSchedule& schedule = analysis.schedules[b];
  summary.best_case += *f * schedule.best_case_cycles;
  summary.instructions += *f * schedule.instructions.size();
  for (size_t i = 0; i < schedule.instructions.size(); ++i) {
    const CalcInstruction& line = out.instructions[i];
    if (line.static_half_cycles > 0) {
      const StaticStall* first =
          schedule.instructions[i].stalls.empty() ? nullptr : &schedule.instructions[i].stalls[0];
      const double cycles = *f * line.static_half_cycles / 2.0;
      totals.static_stall(first ? static_name(*first) : "Slotting") += cycles;
      summary.static_total += cycles;
    }
    const DynamicStall* stall = stalls[i];
    if (!stall) continue;
    const double cycles = *f * stall->cycles;
    summary.dynamic_total += cycles;
    if (stall->unexplained()) summary.unexplained_stall += cycles;
    // One share per cause, however many instructions it points at; each
    // cause adds to its own totals, so their order does not matter.
    std::vector<std::pair<StallCause, double>>& bounds = totals.bounds;
    bounds.clear();
    for (const CulpritCandidate& c : stall->candidates) {
      const double bound =
          c.upper_bound_cycles ? std::min(cycles, *f * *c.upper_bound_cycles) : cycles;
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
}

}  // namespace

void attach_event_samples(CalcReport& report,
                          const std::map<std::string, SamplesByAddress>& events) {
  for (const char* name : kEventNames) {
    const auto found = events.find(name);
    if (found == events.end() || found->first == "cycles") continue;
    report.events.push_back(found->first);
    for (CalcBlock& block : report.blocks)
      for (CalcInstruction& line : block.instructions) {
        const auto at = found->second.find(line.address);
        line.event_samples.push_back(at == found->second.end() ? 0.0 : at->second);
      }
  }
}

void attach_truth(CalcReport& report, const GroundTruth& truth) {
  for (CalcBlock& block : report.blocks) {
    double cycles = 0;
    for (CalcInstruction& line : block.instructions) {
      cycles += double(truth.cycles(line.address));
      const uint64_t executions = truth.executions(line.address);
      if (executions == 0) continue;
      TruthLine t{.executions = executions,
                  .cpi = double(truth.cycles(line.address)) / double(executions)};
      for (const TruthStall& s : truth.stalls(line.address))
        t.stalls.push_back({s.cause, double(s.cycles) / double(executions), s.culprit});
      std::stable_sort(t.stalls.begin(), t.stalls.end(),
                       [](const auto& a, const auto& b) { return a.cycles > b.cycles; });
      line.truth = std::move(t);
    }
    const uint64_t entries = truth.executions(block.start);
    if (entries > 0) block.true_cycles = cycles / double(entries);
  }
}

CalcReport build_calc_report(const std::string& procedure, const ProcedureAnalysis& analysis,
                             const CulpritReport& culprits, const ProcessorModel& model,
                             std::vector<IndirectJump> indirect_jumps, double image_samples) {
  CalcReport report{.procedure = procedure,
                    .model = std::string(model.name()),
                    .model_has_dynamic_stalls = model.has_dynamic_stalls(),
                    .half_cycle_lines = model.has_dynamic_stalls(),
                    .no_dynamic_stalls_note = culprits.note,
                    .missing_edges = analysis.cfg.missing_edges(),
                    .indirect_jumps = std::move(indirect_jumps)};
  CalcSummary& summary = report.summary;
  summary.image_samples = image_samples;

  // The stalls by block, in the culprit report's order (a later one at the
  // same instruction wins, as before); one pass instead of one per block
  // (issue 31: quadratic in large procedures).
  CauseTotals totals;
  std::vector<std::vector<const DynamicStall*>> stalls_by_block(analysis.cfg.blocks().size());
  report.blocks.reserve(analysis.cfg.blocks().size());  // CalcBlocks are large: no regrowth
  for (const DynamicStall& s : culprits.stalls)
    if (s.block < stalls_by_block.size()) stalls_by_block[s.block].push_back(&s);
  for (BlockId b = 0; b < analysis.cfg.blocks().size(); ++b) {
    const BasicBlock& block = analysis.cfg.block(b);
    std::vector<const DynamicStall*> stalls(block.instructions.size(), nullptr);
    for (const DynamicStall* s : stalls_by_block[b]) stalls[s->instruction] = s;
    const ClassId c = analysis.classes.block_class[b];
    CalcBlock out{.start = block.start,
                  .end = block.end,
                  .padding = block.padding,
                  .frequency_class = c,
                  .frequency = analysis.block_frequency(b),
                  .confidence = analysis.block_confidence(b),
                  .method = method_of(analysis, c),
                  .best_case_cycles = analysis.schedules[b].best_case_cycles};
    out.instructions.reserve(block.instructions.size());
    for (size_t i = 0; i < block.instructions.size(); ++i) {
      out.instructions.push_back(describe(analysis, b, i, stalls[i], report.half_cycle_lines));
      out.samples += analysis.samples[b][i];
    }
    summary.samples += out.samples;
    add_to_summary(summary, totals, analysis, out, b, stalls);
    // Unexplained gain: only where the machine can stall at all (§6.3); on
    // QEMU every deviation from F·M_i is sampling error.
    if (report.model_has_dynamic_stalls && out.frequency && *out.frequency > 0) {
      for (size_t i = 0; i < block.instructions.size(); ++i) {
        const double excess = analysis.samples[b][i] -
                              *out.frequency * analysis.schedules[b].instructions[i].head_cycles;
        if (excess < 0) summary.unexplained_gain += excess;
      }
    }
    report.blocks.push_back(std::move(out));
  }
  totals.move_into(summary);
  summary.dynamic_total += summary.unexplained_gain;
  summary.execution = summary.best_case - summary.static_total;
  summary.net_sampling_error = summary.samples - summary.best_case - summary.dynamic_total;

  const std::vector<std::vector<BlockId>> blocks_by_class = analysis.classes.blocks_by_class();
  for (ClassId c = 0; c < analysis.classes.class_count; ++c) {
    CalcClass k{.id = c,
                .frequency = analysis.frequencies.frequency[c],
                .confidence = analysis.frequencies.confidence[c],
                .method = method_of(analysis, c)};
    for (BlockId b : blocks_by_class[c]) {
      k.blocks.push_back(b);
      k.samples += report.blocks[b].samples;
    }
    if (!k.blocks.empty()) report.classes.push_back(std::move(k));
  }
  return report;
}

}  // namespace dcpi
