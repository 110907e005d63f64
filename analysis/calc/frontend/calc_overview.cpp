#include "analysis/calc/frontend/calc_overview.h"

#include <algorithm>
#include <optional>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/frontend/annotated_procedure.h"
#include "analysis/calc/frontend/parallel_procedures.h"
#include "symbols/demangle.h"

namespace dcpi {

std::vector<CalcOverviewRow> calc_overview(const CalcInputs& inputs) {
  const std::vector<ProcedureRange>& procedures = inputs.code.procedures();
  // A procedure without samples gets no row (its report's samples are 0):
  // it is not analysed at all (issue 31), and the others are analysed on
  // several threads, each into its own slot, so the rows are the same.
  std::vector<std::optional<CalcOverviewRow>> slots(procedures.size());
  for_each_procedure(procedures.size(), default_analysis_threads(), [&](size_t i) {
    const ProcedureRange& procedure = procedures[i];
    if (samples_in(inputs.samples.cycles, procedure.start, procedure.end) <= 0) return;
    AnalyzedProcedure result = analyze_code(inputs.code, procedure, *inputs.model,
                                            inputs.samples.cycles, inputs.estimator);
    const calc::CulpritReport culprits =
        calc::find_culprits(result.analysis, *inputs.model, inputs.culprits);
    const CalcReport report =
        build_calc_report(procedure.name, result.analysis, culprits, *inputs.model,
                          std::move(result.code.indirect_jumps), inputs.samples.total);
    if (report.summary.samples <= 0) return;
    slots[i] = CalcOverviewRow{.procedure = demangle(procedure.name),
                               .samples = report.summary.samples,
                               .best_case = report.summary.best_case,
                               .instructions = report.summary.instructions,
                               .blocks = report.blocks.size(),
                               .missing_edges = report.missing_edges};
  });
  std::vector<CalcOverviewRow> rows;
  for (std::optional<CalcOverviewRow>& row : slots)
    if (row) rows.push_back(std::move(*row));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.samples > b.samples; });
  return rows;
}

}  // namespace dcpi
