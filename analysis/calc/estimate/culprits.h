// The culprit phase of dcpicalc (DCPI §6.3), "guilty until proven
// innocent": every dynamic stall starts with the full list of causes the
// machine has (ProcessorModel::dynamic_stall_causes) and loses the ones that
// are impossible for this instruction; event samples, when present, bound
// how many cycles a cause can explain, and their absence where enough were
// expected rules a cause out. Dynamic stall cycles of instruction i are
// C_i − M_i, with C_i = S_i / F.
//
// A machine without dynamic stalls (QEMU under icount) gets no stalls at
// all: samples above M_i there are sampling noise, and the report says so
// rather than inventing a cause.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/calc/estimate/procedure_analysis.h"

namespace dcpi::calc {

// The samples of the event that counts one stall cause (IMISS for I-cache
// misses, DMISS for D-cache misses, ...; DCPI §6.3). Each sample stands for
// `events_per_sample` events: the counter's interrupt period over the share
// of the time the event had the counter (time multiplexing, DCPI §4.1).
struct EventEvidence {
  std::string event;  // its name in the database (imiss, dmiss, ...)
  SamplesByAddress samples;
  double events_per_sample = 0;
};

// Where the machine charges a cause's event: at the stalled instruction
// itself (I-cache and ITB misses at the first instruction of the line or
// page, a mispredict at the first instruction of the block the branch led
// to, a DTB miss at the access), or at the culprit load (a D-cache miss),
// docs/ev5-machine.md "Event counters".
bool event_at_culprit(StallCause cause);

struct CulpritOptions {
  double min_stall_cycles = 0.5;  // smaller excesses are not reported as stalls, unless…
  // … the excess is at least this many standard deviations of the samples
  // the best case predicts (Poisson: sqrt(F x M)) and at least
  // min_significant_stall of M per execution (the class's frequency error,
  // a few %, moves every C_i by that share of M): a load-use wait that
  // misses one time in three is a third of a cycle, and on a hot loop
  // thousands of samples say it is there.
  double significant_stall_sigmas = 4;
  double min_significant_stall = 0.1;
  double rare_edge_fraction = 0.05;  // §6.3: ignore predecessors much rarer than the stall
  // Event samples per cause; empty: calc knows only the CYCLES samples.
  std::map<StallCause, EventEvidence> events;
  double cycles_period = 0;  // the mean period of the CYCLES samples (F × period = executions)
  // A cause whose event was sampled but has no sample where it would be
  // charged is ruled out when, had it explained min_stall_cycles per
  // execution at the worst cost per event, at least this many samples were
  // expected: a Poisson count of mean 5 is zero with probability e^-5 =
  // 0.7 %. A procedure tests tens of candidates, so e^-3 (5 %) would drop
  // a real one in most procedures (measured: docs/calc.md "Event samples").
  double significant_samples = 5;
  // The code a call to a target may run, at most so many bytes (the callee
  // and what it reaches: decode/call_footprints.h, set by the front end
  // from the image); nothing where unknown. Unset: a call may run anything.
  std::function<std::optional<std::vector<CodeRange>>(uint64_t target, uint64_t max_bytes)>
      call_footprint;
  // The integer registers (bit r: r) a call may change
  // (decode/call_clobbers.h); unset: a call may change any.
  std::function<uint32_t(const InstructionRecord& call)> call_clobbers;
};

struct CulpritCandidate {
  StallCause cause;
  std::optional<uint64_t> instruction;       // e.g. the load whose miss the stall waits for
  std::optional<double> upper_bound_cycles;  // per execution, from event samples
  std::optional<double> event_samples;       // its event's samples where they would be charged
  double expected_samples = 0;  // ruled out: the samples its event would have had at least
};

struct DynamicStall {
  BlockId block = 0;
  size_t instruction = 0;  // index in the block
  uint64_t address = 0;
  double cycles = 0;  // per execution, beyond M_i
  std::vector<CulpritCandidate> candidates;
  std::vector<CulpritCandidate> ruled_out;  // candidates the event samples eliminated
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
