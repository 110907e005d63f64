#include "analysis/calc/frontend/cycle_breakdown.h"

#include <algorithm>
#include <optional>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/frontend/parallel_procedures.h"
#include "analysis/calc/truth/culprit_scoring.h"
#include "symbols/demangle.h"

namespace dcpi {

using calc::StallCause;

void CycleBreakdown::add(const CycleBreakdown& o) {
  total += o.total;
  execution += o.execution;
  slotting += o.slotting;
  dependency += o.dependency;
  functional_unit += o.functional_unit;
  for (const auto& [cause, value] : o.dynamic) {
    dynamic[cause].first += value.first;
    dynamic[cause].second += value.second;
  }
  dynamic_stall += o.dynamic_stall;
  other += o.other;
  unexplained_stall += o.unexplained_stall;
  unexplained_gain += o.unexplained_gain;
  net_sampling_error += o.net_sampling_error;
}

CycleBreakdown breakdown_from_summary(const CalcSummary& s, double period) {
  CycleBreakdown b{.total = s.samples * period, .execution = s.execution * period};
  for (const auto& [name, samples] : s.static_stalls) {
    if (name == "Slotting")
      b.slotting += samples * period;
    else if (name == "FU dependency")
      b.functional_unit += samples * period;
    else
      b.dependency += samples * period;
  }
  for (const auto& [cause, value] : s.dynamic)
    b.dynamic[cause] = {value.first * period, value.second * period};
  b.dynamic_stall = (s.dynamic_total - s.unexplained_gain) * period;
  b.unexplained_stall = s.unexplained_stall * period;
  b.unexplained_gain = s.unexplained_gain * period;
  b.net_sampling_error = s.net_sampling_error * period;
  return b;
}

CycleBreakdown breakdown_from_truth(const calc::GroundTruth& truth, uint64_t start, uint64_t end) {
  CycleBreakdown b;
  for (const auto& [pc, executions] : truth.instructions())
    if (pc >= start && pc < end) b.total += double(truth.cycles(pc));
  double stalls = 0;
  for (const auto& [pc, list] : truth.all_stalls()) {
    if (pc < start || pc >= end) continue;
    for (const calc::TruthStall& s : list) {
      const double cycles = double(s.cycles);
      stalls += cycles;
      if (s.cause == StallCause::kSlotting) {
        b.slotting += cycles;
        continue;
      }
      if (s.cause == StallCause::kDependency) {
        b.dependency += cycles;
        continue;
      }
      b.dynamic_stall += cycles;
      if (isa::is_dynamic(s.cause)) {
        b.dynamic[s.cause].first += cycles;
        b.dynamic[s.cause].second += cycles;
      } else {
        b.other += cycles;
      }
    }
  }
  b.execution = b.total - stalls;
  return b;
}

namespace {

// PALcode's cycles sampled after the procedure's CALL_PALs (calc's `P`):
// they are in the samples, so the truth's side counts them too.
void add_palcode_cycles(const calc::GroundTruth& truth,
                        const std::vector<calc::PalcodeLanding>& landings, CycleBreakdown& b) {
  for (const calc::PalcodeLanding& l : landings) {
    const auto pal = calc::palcode_stall(l, truth);
    if (!pal) continue;
    const double cycles = double(pal->cycles);
    b.total += cycles;
    b.dynamic_stall += cycles;
    b.dynamic[StallCause::kPalcode].first += cycles;
    b.dynamic[StallCause::kPalcode].second += cycles;
  }
}

ProcedureBreakdown breakdown_of(const CalcInputs& inputs, const ProcedureRange& procedure,
                                const std::optional<calc::GroundTruth>& truth) {
  AnalyzedProcedure result =
      analyze_code(inputs.code, procedure, *inputs.model, inputs.samples.cycles, inputs.estimator);
  const calc::CulpritReport culprits =
      calc::find_culprits(result.analysis, *inputs.model, inputs.culprits);
  const CalcSummary summary =
      summarize_procedure(result.analysis, culprits, *inputs.model, inputs.samples.total);
  ProcedureBreakdown b{.row = {.procedure = demangle(procedure.name),
                               .calc = breakdown_from_summary(summary, inputs.period)},
                       .samples = summary.samples};
  if (truth) {
    b.row.truth = breakdown_from_truth(*truth, procedure.start, procedure.end);
    add_palcode_cycles(*truth, result.analysis.palcode_landings, *b.row.truth);
  }
  return b;
}

// The run's top procedures by samples.
std::vector<ProcedureBreakdown> top_procedures(const CalcInputs& inputs,
                                               const BreakdownRequest& request) {
  // The sampled procedures, analysed on several threads into their own
  // slots (issue 31), then in image order as before.
  std::vector<const ProcedureRange*> sampled;
  for (const ProcedureRange& procedure : inputs.code.procedures())
    if (samples_in(inputs.samples.cycles, procedure.start, procedure.end) > 0)
      sampled.push_back(&procedure);
  std::vector<std::optional<ProcedureBreakdown>> slots(sampled.size());
  for_each_procedure(sampled.size(), default_analysis_threads(), [&](size_t i) {
    slots[i] = breakdown_of(inputs, *sampled[i], request.truth);
  });
  std::vector<ProcedureBreakdown> all;
  for (std::optional<ProcedureBreakdown>& b : slots) all.push_back(std::move(*b));
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.samples > b.samples; });
  if (all.size() > request.top) all.resize(request.top);
  return all;
}

}  // namespace

CalcBreakdown calc_breakdown(const CalcInputs& inputs, const BreakdownRequest& request) {
  CalcBreakdown result{.run = {.procedure = "the run's top procedures"}};
  if (request.procedure)
    result.procedures.push_back(breakdown_of(
        inputs, select_code_procedure(inputs.code, *request.procedure, &inputs.samples.cycles),
        request.truth));
  else
    result.procedures = top_procedures(inputs, request);
  if (request.truth) result.run.truth.emplace();
  for (const ProcedureBreakdown& p : result.procedures) {
    result.run.calc.add(p.row.calc);
    if (result.run.truth) result.run.truth->add(*p.row.truth);
    result.samples += p.samples;
  }
  return result;
}

}  // namespace dcpi
