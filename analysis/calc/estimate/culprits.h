// The culprit phase of dcpicalc (DCPI §6.3), "guilty until proven
// innocent": every dynamic stall starts with the full list of causes the
// machine has (ProcessorModel::dynamic_stall_causes) and loses the ones that
// are impossible for this instruction; event samples, when present, bound
// how many cycles a cause can explain. Dynamic stall cycles of instruction
// i are C_i − M_i, with C_i = S_i / F.
//
// A machine without dynamic stalls (QEMU under icount) gets no stalls at
// all: samples above M_i there are sampling noise, and the report says so
// rather than inventing a cause.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/calc/estimate/procedure_analysis.h"

namespace dcpi::calc {

struct CulpritOptions {
  double min_stall_cycles = 0.5;     // smaller excesses are not reported as stalls
  double rare_edge_fraction = 0.05;  // §6.3: ignore predecessors much rarer than the stall
  // Optional event samples per cause (e.g. IMISS for kICacheMiss) and the
  // periods, in events and in cycles, they and the CYCLES samples used.
  std::map<StallCause, SamplesByAddress> event_samples;
  double event_period = 0;
  double cycles_period = 0;
};

struct CulpritCandidate {
  StallCause cause;
  std::optional<uint64_t> instruction;       // e.g. the load whose miss the stall waits for
  std::optional<double> upper_bound_cycles;  // per execution, from event samples
};

struct DynamicStall {
  BlockId block = 0;
  size_t instruction = 0;  // index in the block
  uint64_t address = 0;
  double cycles = 0;  // per execution, beyond M_i
  std::vector<CulpritCandidate> candidates;
  bool unexplained() const { return candidates.empty(); }
};

struct CulpritReport {
  bool machine_has_dynamic_stalls = true;
  std::string note;  // e.g. why there are no dynamic stalls
  std::vector<DynamicStall> stalls;
};

CulpritReport find_culprits(const ProcedureAnalysis& analysis, const ProcessorModel& model,
                            const CulpritOptions& options = {});

}  // namespace dcpi::calc
