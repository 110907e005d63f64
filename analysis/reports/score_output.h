// `dcpi score`, rendered: the error histograms of DCPI Figures 8 and 9, the
// estimators side by side, the per-procedure table and the culprit scores,
// as text or JSON (computed by analysis/calc/frontend/estimate_scores.h).
#pragma once
#include <ostream>

#include "analysis/calc/frontend/estimate_scores.h"
#include "analysis/calc/frontend/inputs.h"

namespace dcpi {

void print_score_text(const ScoreRun& run, const CalcInputs& inputs, const CalcContext& context,
                      std::ostream& out);
void print_score_json(const ScoreRun& run, const CalcInputs& inputs, const CalcContext& context,
                      std::ostream& out);

}  // namespace dcpi
