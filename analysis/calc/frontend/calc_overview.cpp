#include "analysis/calc/frontend/calc_overview.h"

#include <algorithm>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/frontend/annotated_procedure.h"
#include "symbols/demangle.h"

namespace dcpi {

std::vector<CalcOverviewRow> calc_overview(const CalcInputs& inputs) {
  std::vector<CalcOverviewRow> rows;
  for (const ProcedureRange& procedure : inputs.code.procedures()) {
    AnalyzedProcedure result = analyze_code(inputs.code, procedure, *inputs.model,
                                            inputs.samples.cycles, inputs.estimator);
    const calc::CulpritReport culprits =
        calc::find_culprits(result.analysis, *inputs.model, inputs.culprits);
    const CalcReport report =
        build_calc_report(procedure.name, result.analysis, culprits, *inputs.model,
                          std::move(result.code.indirect_jumps), inputs.samples.total);
    if (report.summary.samples <= 0) continue;
    rows.push_back({.procedure = demangle(procedure.name),
                    .samples = report.summary.samples,
                    .best_case = report.summary.best_case,
                    .instructions = report.summary.instructions,
                    .blocks = report.blocks.size(),
                    .missing_edges = report.missing_edges});
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.samples > b.samples; });
  return rows;
}

}  // namespace dcpi
