// `dcpi calc --breakdown` (issue 14): DCPI Figure 4's breakdown of cycles by
// cause, for one procedure or, with --all, per procedure and for the run's
// top procedures together; with --truth FILE the truth's breakdown beside it.
#pragma once
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>

#include "analysis/calc/truth/ground_truth.h"
#include "analysis/calc/frontend/inputs.h"
#include "analysis/calc/frontend/render.h"

namespace dcpi {

struct BreakdownRequest {
  std::optional<std::string> procedure;  // nullopt: every procedure with samples (--all)
  std::optional<calc::GroundTruth> truth;
  std::string truth_path;
  size_t top = 10;  // --all: procedures in the table and the run's total
  bool json = false;
};

void print_calc_breakdown(const CalcInputs& inputs, const CalcContext& context,
                          const BreakdownRequest& request, std::ostream& out);

}  // namespace dcpi
