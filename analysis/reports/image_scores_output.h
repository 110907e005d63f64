// `dcpi score --truth FILE` without --image: one line per sampled image
// (issue 25 item 1: the placement oracle's ratio per image, beside Figure
// 8's within 5/10/15 % for both estimators), and the images pooled by
// samples, as DCPI §6.2 reported a whole workload.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/calc/truth/culprit_scoring.h"
#include "analysis/calc/truth/placement.h"
#include "analysis/calc/truth/scoring.h"

namespace dcpi {

struct ImageScoreRow {
  std::string image;       // the guest path the database names it by
  std::string not_scored;  // why not (no ELF, no truth for it); empty: scored
  double samples = 0;      // its cycles samples in the scored procedures
  calc::PlacementScore placement;
  calc::ErrorHistogram dcpi, flow;           // Figure 8, instructions by samples
  std::optional<calc::CauseScore> culprits;  // --culprits: all causes together
};

struct ImageScores {
  std::string truth_path;
  std::string machine;              // of the truth
  std::vector<ImageScoreRow> rows;  // most samples first
  calc::ErrorHistogram pooled_dcpi, pooled_flow;
  std::optional<calc::CauseScore> pooled_culprits;
};

void print_image_scores_text(const ImageScores& scores, std::ostream& out);
void print_image_scores_json(const ImageScores& scores, std::ostream& out);

}  // namespace dcpi
