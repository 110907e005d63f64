// `dcpi score`, computed: DCPI §6.2's evaluation of the frequency estimates
// (F × mean period) against a truth file's exact counts, per estimator, for
// instructions (Figure 8, weighted by CYCLES samples) and edges (Figure 9),
// per procedure, and (--culprits, issue 14) dcpicalc's stall culprits
// against a timed machine's. analysis/reports/score_output.h renders it.
#pragma once
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/calc/frontend/inputs.h"
#include "analysis/calc/truth/culprit_scoring.h"
#include "analysis/calc/truth/ground_truth.h"
#include "analysis/calc/truth/placement.h"
#include "analysis/calc/truth/profileme_scoring.h"
#include "analysis/calc/truth/scoring.h"

namespace dcpi {

// What one estimator's estimates score over a set of procedures, and per
// procedure.
struct EstimatorScores {
  std::vector<calc::ScoredCount> instructions, edges;
};

struct ProcedureScore {
  std::string name;
  double samples = 0;
  bool missing_edges = false;
  double missing_edge_executions = 0;  // transfers over edges the CFG lacks
  calc::ErrorHistogram dcpi_instructions, flow_instructions, edges;
};

// Everything one `dcpi score` computed, for the JSON or the text.
struct ScoreRun {
  std::string truth_path;
  calc::GroundTruth truth;
  size_t procedures = 0;
  size_t missing = 0;  // procedures with missing edges
  std::map<calc::FrequencyEstimator, EstimatorScores> all;
  std::vector<ProcedureScore> rows;
  bool culprits_wanted = false;
  std::optional<calc::CulpritScores> culprits;  // only on a timed machine's truth
  // The same from the CYCLES samples alone, when the culprits weighed event
  // samples (issue 26): what the events changed.
  std::optional<calc::CulpritScores> culprits_without_events;
  // Issue 25's oracle over the scored procedures: the first number to look
  // at when the machine changes.
  calc::PlacementScore placement;
  // The instructions PALcode returns to after a CALL_PAL in the scored
  // procedures (ProcedureAnalysis::palcode_landings): left out of the placement when
  // the truth has no visible lines.
  std::vector<uint64_t> palcode_landings;
  // The same oracle per event (issue 26): each event's samples against the
  // truth's count of it per PC (version 6), for every event the profile and
  // the truth both have.
  std::map<std::string, calc::PlacementScore> event_placement;
  // When the truth says where each event's samples can land (`visible_`
  // lines, firmware/truth_format.h), event_placement holds the samples
  // against that and this against the events themselves: the blind spots'
  // share of the distance.
  std::map<std::string, calc::PlacementScore> event_placement_against_events;
  // ProfileMe's records against the truth (issue 27), when the profile has
  // them: Figure 3's convergence and each procedure's cycles.
  std::optional<calc::ProfileMeScore> profileme;
};

// Scores --procedure's procedure (nullopt: every one with samples) against
// `run.truth`, filling the rest of `run`; culprits too when `run.culprits` is set.
void score_estimates(const CalcInputs& inputs, const std::optional<std::string>& procedure,
                     ScoreRun& run);

}  // namespace dcpi
