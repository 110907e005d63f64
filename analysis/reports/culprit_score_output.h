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

}  // namespace dcpi
