#include "analysis/calc/frontend/annotated_procedure.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <utility>

#include "analysis/calc/truth/culprit_scoring.h"
#include "firmware/events.h"

namespace dcpi {

using namespace calc;

namespace {

void add_letter(std::string& letters, char letter) {
  if (letters.find(letter) == std::string::npos) letters += letter;
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

void attach_truth(CalcReport& report, const GroundTruth& truth,
                  const std::vector<PalcodeLanding>& landings) {
  // PALcode's cycles sampled after a CALL_PAL (calc's `P`) beside the
  // instruction's own stalls.
  std::map<uint64_t, TruthStall> palcode;
  for (const PalcodeLanding& l : landings)
    if (const auto pal = palcode_stall(l, truth)) palcode[l.address] = *pal;
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
      if (const auto pal = palcode.find(line.address); pal != palcode.end())
        t.stalls.push_back({pal->second.cause, double(pal->second.cycles) / double(executions),
                            pal->second.culprit});
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
                    .indirect_jumps = std::move(indirect_jumps),
                    .summary = summarize_procedure(analysis, culprits, model, image_samples)};
  const StallsByInstruction stalls(analysis.cfg, culprits);
  report.blocks.reserve(analysis.cfg.blocks().size());  // CalcBlocks are large: no regrowth
  for (BlockId b = 0; b < analysis.cfg.blocks().size(); ++b) {
    const BasicBlock& block = analysis.cfg.block(b);
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
      out.instructions.push_back(
          describe(analysis, b, i, stalls.at(b, i), report.half_cycle_lines));
      out.samples += analysis.samples[b][i];
    }
    report.blocks.push_back(std::move(out));
  }

  const ClassBlocks blocks_by_class = analysis.classes.blocks_by_class();
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
