// Figure 4 of the DCPI paper (§3.3) for one procedure: where its samples
// went (best case, static stalls by kind, dynamic stalls by cause). It is
// what `dcpi calc --all`, `--breakdown` and bench-calc print, so they get it
// without the listing's per-instruction lines (annotated_procedure.h's
// CalcReport, which carries it too): building every line of every
// procedure was a sixth of a whole-image analysis (issue 31).
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/estimate/procedure_analysis.h"
#include "isa/stall_causes.h"

namespace dcpi {

// Figure 4, in samples (cycles / sampling period). Ranges are [min, max]:
// a stall with one remaining candidate counts in both, one with several only
// in the max of each.
struct CalcSummary {
  double samples = 0;        // in the procedure
  double image_samples = 0;  // in the whole image (for "% of all samples")
  double best_case = 0;      // Σ F·M_i
  double instructions = 0;   // Σ F·n (executed instructions per period)
  std::map<calc::StallCause, std::pair<double, double>, isa::DynamicCauseOrder> dynamic;
  double unexplained_stall = 0;
  double unexplained_gain = 0;                  // samples below F·M_i (≤ 0)
  double dynamic_total = 0;                     // stalls + gain
  std::map<std::string, double> static_stalls;  // "Slotting", "Ra dependency", ...
  double static_total = 0;
  double execution = 0;           // best case minus static stalls
  double net_sampling_error = 0;  // samples − best case − dynamic
};

// The letter of a static stall's bubble (Figure 2; isa/stall_causes.h): s
// slotting, a/b/c the Ra/Rb/Rc dependency, f a busy functional unit. A
// dynamic one's is isa::dynamic_letter.
char stall_letter(const calc::StaticStall& stall);

// Half-cycle lines before instruction i's issue point (Figure 2: "each line
// in the listing represents a half-cycle"), on a dual-issue machine.
int static_half_cycles(const calc::BlockSchedule& schedule, size_t i);

// Each instruction's dynamic stall (none: nullptr) in one flat array, by
// block and index in it; a later stall at the same instruction wins, in the
// culprit report's order.
class StallsByInstruction {
 public:
  StallsByInstruction(const calc::ControlFlowGraph& cfg, const calc::CulpritReport& culprits);
  const calc::DynamicStall* at(calc::BlockId b, size_t i) const { return at_[first_[b] + i]; }

 private:
  std::vector<size_t> first_;  // per block: its first instruction's index in at_
  std::vector<const calc::DynamicStall*> at_;
};

// The procedure's summary: the same numbers as build_calc_report's.
CalcSummary summarize_procedure(const calc::ProcedureAnalysis& analysis,
                                const calc::CulpritReport& culprits,
                                const calc::ProcessorModel& model, double image_samples);

}  // namespace dcpi
