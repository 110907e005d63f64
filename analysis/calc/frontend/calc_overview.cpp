#include "analysis/calc/frontend/calc_overview.h"

#include <algorithm>
#include <optional>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/frontend/parallel_procedures.h"
#include "analysis/calc/frontend/procedure_summary.h"
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
    // Its summary only: the rows print no listing (issue 31).
    const CalcSummary summary =
        summarize_procedure(result.analysis, culprits, *inputs.model, inputs.samples.total);
    if (summary.samples <= 0) return;
    slots[i] = CalcOverviewRow{.procedure = demangle(procedure.name),
                               .samples = summary.samples,
                               .best_case = summary.best_case,
                               .instructions = summary.instructions,
                               .blocks = result.analysis.cfg.blocks().size(),
                               .missing_edges = result.analysis.cfg.missing_edges()};
  });
  std::vector<CalcOverviewRow> rows;
  for (std::optional<CalcOverviewRow>& row : slots)
    if (row) rows.push_back(std::move(*row));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.samples > b.samples; });
  return rows;
}

}  // namespace dcpi
