// Rendering `dcpi calc` reports (computed by analysis/calc/frontend/): the
// text listing of Figure 2 (per block best-case and actual CPI, one line per
// instruction, stall bubbles on half-cycle lines) followed by the procedure
// summary of Figure 4; or the same facts as JSON; and the --all overview.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/calc/frontend/annotated_procedure.h"
#include "analysis/calc/frontend/calc_overview.h"
#include "analysis/calc/frontend/inputs.h"

namespace dcpi {

void print_calc_header(const CalcContext& context, const std::string& model, std::ostream& out);
void print_calc_text(const CalcReport& report, const CalcContext& context, std::ostream& out);
// Figure 4 only.
void print_calc_summary(const CalcReport& report, std::ostream& out);
void print_calc_json(const CalcReport& report, const CalcContext& context, std::ostream& out);

// One line per procedure for `dcpi calc --all`.
// `analysed`: procedures analysed, with samples or not.
void print_calc_overview(const std::vector<CalcOverviewRow>& rows, const CalcContext& context,
                         const std::string& model, size_t analysed, std::ostream& out);
void print_calc_overview_json(const std::vector<CalcOverviewRow>& rows, const CalcContext& context,
                              size_t analysed, std::ostream& out);

}  // namespace dcpi
