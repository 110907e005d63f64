// `dcpi score --culprits` (issue 14): the text table and JSON of how
// dcpicalc's stall cycles and culprit lists (DCPI §6.3) compare with a timed
// machine's truth (analysis/calc/truth/culprit_scoring.h).
#pragma once
#include <ostream>
#include <string>

#include "analysis/calc/truth/culprit_scoring.h"
#include "analysis/reports/json_writer.h"

namespace dcpi {

void print_culprit_scores(const calc::CulpritScores& scores, std::ostream& out);
void write_culprit_scores(JsonWriter& json, const calc::CulpritScores& scores);
// Issue 26: what the event samples changed (recall and precision per cause
// with and without them) and what they ruled out, against the truth.
void print_event_effect(const calc::CulpritScores& with, const calc::CulpritScores& without,
                        std::ostream& out);

}  // namespace dcpi
