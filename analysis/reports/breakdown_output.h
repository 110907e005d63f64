// `dcpi calc --breakdown` (issue 14), rendered: DCPI Figure 4's breakdown of
// cycles by cause (computed by analysis/calc/frontend/cycle_breakdown.h), for
// one procedure or, with --all, per procedure and for the run's top
// procedures together, the truth's beside it; as text or JSON.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/calc/frontend/cycle_breakdown.h"
#include "analysis/calc/frontend/inputs.h"
#include "analysis/reports/calc_output.h"

namespace dcpi {

void print_calc_breakdown(const CalcBreakdown& breakdown, const CalcInputs& inputs,
                          const CalcContext& context, const BreakdownRequest& request,
                          std::ostream& out);
void print_calc_breakdown_json(const CalcBreakdown& breakdown, const CalcInputs& inputs,
                               const CalcContext& context, const BreakdownRequest& request,
                               std::ostream& out);

// One table: a row per category, columns calc and (if given) truth, each as
// a share of its total.
void print_breakdown(const std::string& title, const CycleBreakdown& calc,
                     const std::optional<CycleBreakdown>& truth, std::ostream& out);
// One line per procedure: its share of the run's cycles and the main parts.
void print_breakdown_rows(const std::vector<BreakdownRow>& rows, std::ostream& out);

}  // namespace dcpi
