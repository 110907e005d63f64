// `dcpi calc --all`: every procedure of the image analysed, one line each
// for those with samples, most sampled first (rendered by
// analysis/reports/calc_output.h).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/calc/frontend/inputs.h"

namespace dcpi {

struct CalcOverviewRow {
  std::string procedure;
  double samples = 0;
  double best_case = 0, instructions = 0;
  size_t blocks = 0;
  bool missing_edges = false;
};

std::vector<CalcOverviewRow> calc_overview(const CalcInputs& inputs);

}  // namespace dcpi
