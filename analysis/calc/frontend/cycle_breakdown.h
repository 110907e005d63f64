// Figure 4 of the DCPI paper (§3.3): where a procedure's cycles went —
// execution (issue), static stalls by kind, dynamic stalls by cause,
// unexplained — from the samples through dcpicalc (procedure_summary.h) and,
// when a timed machine's truth file is given (issue 14), from the truth,
// side by side. All values in cycles; analysis/reports/breakdown_output.h
// prints them as shares of each side's total.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/calc/frontend/inputs.h"
#include "analysis/calc/frontend/procedure_summary.h"
#include "analysis/calc/truth/ground_truth.h"

namespace dcpi {

struct CycleBreakdown {
  double total = 0;       // calc: samples × period; truth: Σ cycles
  double execution = 0;   // issue cycles: best case minus static stalls; truth: cycles − stalls
  double slotting = 0;    // static: slotting (truth: slot)
  double dependency = 0;  // static: Ra/Rb/Rc dependencies (truth: dep)
  double functional_unit = 0;  // static: busy unit within the block (calc only)
  // Dynamic by §6.3 cause: calc's [low, high] range; the truth's exact value in both.
  std::map<calc::StallCause, std::pair<double, double>, isa::DynamicCauseOrder> dynamic;
  double dynamic_stall = 0;       // all dynamic stall cycles (unexplained included, gain not)
  double other = 0;               // truth: `other` (no §6.3 cause)
  double unexplained_stall = 0;   // calc only
  double unexplained_gain = 0;    // calc only (≤ 0)
  double net_sampling_error = 0;  // calc only

  void add(const CycleBreakdown& other);
};

// From dcpicalc's Figure 4 summary (in samples) at the mean sampling period.
CycleBreakdown breakdown_from_summary(const CalcSummary& summary, double period);
// From the truth's cycles and stalls at the PCs in [start, end).
CycleBreakdown breakdown_from_truth(const calc::GroundTruth& truth, uint64_t start, uint64_t end);

// One procedure's breakdown (or the run's sum): calc's and the truth's.
struct BreakdownRow {
  std::string procedure;
  CycleBreakdown calc;
  std::optional<CycleBreakdown> truth;
};

// `dcpi calc --breakdown` (issue 14): one procedure or, with --all, the run's
// top procedures by samples and their sum; with --truth FILE the truth's
// breakdown beside calc's.
struct BreakdownRequest {
  std::optional<std::string> procedure;  // nullopt: every procedure with samples (--all)
  std::optional<calc::GroundTruth> truth;
  std::string truth_path;
  size_t top = 10;  // --all: procedures in the table and the run's total
};

struct ProcedureBreakdown {
  BreakdownRow row;
  double samples = 0;
};

struct CalcBreakdown {
  std::vector<ProcedureBreakdown> procedures;  // the one, or the top ones by samples
  BreakdownRow run;                            // their sum
  double samples = 0;                          // their samples
};

CalcBreakdown calc_breakdown(const CalcInputs& inputs, const BreakdownRequest& request);

}  // namespace dcpi
