// Scoring dcpicalc's stall analysis (DCPI §6.3) against a timed machine's
// truth (issue 14; docs/exec-counts-format.md version 2), which DCPI itself
// could not do: the paper had no per-instruction record of why the 21164
// stalled.
//
// Per instruction of an analysed procedure:
// - stall cycles: dcpicalc's dynamic stall, F × period × (C_i − M_i),
//   against the truth's cycles beyond the same best case, cycles − M_i ×
//   executions;
// - recall: the share of the truth's dynamic stall cycles whose cause (and
//   culprit PC, where both name one) is among dcpicalc's listed culprits (an
//   anonymous D-cache candidate stands for a load outside the block, where
//   dcpicalc could not see it); also over the instructions whose true
//   dynamic stall is worth at least kSeenStallSamples samples, the stalls
//   sampling can show at all (a cold miss of a few hundred cycles at an
//   instruction run once is no sample, and no estimator can explain it);
// - precision: the share of dcpicalc's listed culprits (weighted by the
//   instruction's estimated stall cycles) that the truth confirms: cycles of
//   that cause, and that culprit PC where both name one;
// - ruled out: the candidates event samples eliminated, and the truth's
//   cycles of their cause there (what was wrongly dropped).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/estimate/procedure_analysis.h"
#include "analysis/calc/truth/ground_truth.h"

namespace dcpi::calc {

// A stall sampling can see: its cycles are this many sampling periods.
inline constexpr double kSeenStallSamples = 4;

struct CauseScore {
  double true_cycles = 0;       // truth: dynamic stall cycles of this cause
  double covered_cycles = 0;    // of those, at instructions where dcpicalc listed this culprit
  double seen_true_cycles = 0;  // true_cycles at instructions stalled >= kSeenStallSamples periods
  double seen_covered_cycles = 0;
  double listed_weight = 0;  // dcpicalc's candidates of this cause, by estimated stall cycles
  double real_weight = 0;    // of those, confirmed by the truth
  // The part of each listed candidate's weight the truth's cycles of that
  // cause there cover (min of the two): a candidate the truth confirms with
  // 1 % of its stall counts 1 %, not all of it as in real_weight.
  double confirmed_weight = 0;
  uint64_t listed = 0;  // candidates listed
  uint64_t real = 0;    // of those, confirmed
  // Candidates the event samples ruled out (issue 26, DCPI §6.3): how many,
  // their instructions' estimated stall cycles, and the truth's cycles of
  // that cause (from that culprit) at them: near zero if rightly ruled out.
  uint64_t ruled_out = 0;
  double ruled_out_weight = 0;
  double ruled_out_true_cycles = 0;

  double recall() const { return true_cycles > 0 ? covered_cycles / true_cycles : 0; }
  double seen_recall() const {
    return seen_true_cycles > 0 ? seen_covered_cycles / seen_true_cycles : 0;
  }
  double precision() const { return listed_weight > 0 ? real_weight / listed_weight : 0; }
  double cycle_precision() const {
    return listed_weight > 0 ? confirmed_weight / listed_weight : 0;
  }
  void add(const CauseScore& other);
};

struct StallEstimate {
  uint64_t address = 0;
  double estimated = 0;  // dcpicalc: F × period × (C_i − M_i), 0 where it found no stall
  double exact = 0;      // truth: cycles − M_i × executions (≥ 0)
};

// A true dynamic stall whose cause dcpicalc did not list there: where to look
// first when recall drops.
struct MissedStall {
  uint64_t address = 0;
  StallCause cause = StallCause::kOther;
  std::optional<uint64_t> culprit;  // the truth's culprit PC, if it names one
  double cycles = 0;                // the truth's cycles of that cause there
  std::vector<StallCause> listed;   // the causes dcpicalc listed there instead
};

// Issue 25 item 7: "no cause with true stall cycles above 5 % of a procedure
// left at 0 % recall" -- a cause dcpicalc never names in a procedure where
// the truth says it cost a visible share of the time.
inline constexpr double kNeglectedShare = 0.05;

struct NeglectedCause {
  std::string procedure;
  StallCause cause = StallCause::kOther;
  double true_cycles = 0;       // the truth's dynamic stall cycles of the cause there
  double seen_true_cycles = 0;  // of those, at instructions sampling can show (kSeenStallSamples)
  double procedure_cycles = 0;  // the truth's cycles of the whole procedure
};

struct CulpritScores {
  std::map<StallCause, CauseScore> causes;  // dynamic causes only (not slot, dep), in enum order
  std::vector<StallEstimate> stalls;        // instructions where either side has a stall
  std::vector<MissedStall> missed;          // uncovered true stalls, in no particular order
  std::vector<NeglectedCause> neglected;    // per procedure, kNeglectedShare and 0 % recall

  CauseScore overall() const;
  // Σ |estimated − exact| / Σ exact over `stalls` (0 when nothing stalled).
  double mean_relative_error() const;
  // Share of the exact stall cycles at instructions estimated within ±percent.
  double fraction_within(double percent) const;
  // The `count` missed stalls with the most true cycles, largest first.
  std::vector<MissedStall> largest_missed(size_t count) const;
};

// PALcode's cycles sampled where PALcode returns (calc's `P`, the CALL_PAL
// the culprit): not in the truth's `stall` lines, which
// hold the instruction's own cycles, but in its `visible` ones (a sampling
// run's, version 4), which count PAL's cycles at the PC PAL returned to;
// what they hold there beyond the instruction's own cycles is PAL's (an
// expectation, as `visible` is). Nothing without visible lines.
std::optional<TruthStall> palcode_stall(const PalcodeLanding& landing, const GroundTruth& truth);

// Adds one procedure's instructions to `scores`. `period` is the mean sampling
// period F × period uses; `procedure` names it in `scores.neglected`.
void score_culprits(const std::string& procedure, const ProcedureAnalysis& analysis,
                    const CulpritReport& culprits, const GroundTruth& truth, double period,
                    CulpritScores& scores);

}  // namespace dcpi::calc
