// What `dcpi calc` prints for one procedure (DCPI §3.2 Figure 2, §3.3
// Figure 4, §6.3), computed once from the analysis and rendered as text or
// JSON (analysis/reports/calc_output.h).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/calc/decode/isa_adapter.h"
#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/estimate/procedure_analysis.h"
#include "analysis/calc/frontend/procedure_summary.h"
#include "analysis/calc/truth/ground_truth.h"
#include "symbols/elf_image.h"

namespace dcpi {

// What the truth file (issue 14) says about one instruction, per execution.
struct TruthLine {
  uint64_t executions = 0;
  double cpi = 0;  // cycles at the head of the issue queue per execution
  struct Stall {
    calc::StallCause cause;
    double cycles = 0;  // per execution
    std::optional<uint64_t> culprit;
  };
  std::vector<Stall> stalls;  // largest first
};

struct CalcInstruction {
  uint64_t address = 0;
  // The instruction word and how it decodes: text() disassembles it where a
  // listing prints it (not for every line of every report: issue 31).
  uint32_t encoding = 0;
  isa::DecodeMode mode = isa::DecodeMode::kUser;
  std::string text() const { return calc::disassemble(encoding, address, mode); }
  double samples = 0;
  uint32_t head_cycles = 0;        // M_i (0: issued with its predecessor)
  std::optional<double> cpi;       // C_i = S_i / F
  std::string static_letters;      // why it waited statically (or could not pair)
  int static_half_cycles = 0;      // half-cycle lines for static stalls / lost slots
  std::string dynamic_letters;     // the culprits of its dynamic stall
  double dynamic_cycles = 0;       // per execution, beyond M_i (0 if none)
  std::vector<uint64_t> culprits;  // instructions that may have caused a stall
  bool unexplained = false;        // a dynamic stall with every cause ruled out
  // Candidates the event samples ruled out (DCPI §6.3): the cause's letter,
  // its culprit load, and the event samples it would have had at least.
  struct RuledOut {
    char letter = '?';
    std::optional<uint64_t> culprit;
    double expected_samples = 0;
  };
  std::vector<RuledOut> ruled_out;
  std::vector<double> event_samples;     // per CalcReport::events, at this instruction
  std::optional<SourceLocation> source;  // DWARF line, when the image has it
  std::optional<TruthLine> truth;        // dcpi calc --truth: the run's exact figures
};

struct CalcBlock {
  uint64_t start = 0, end = 0;
  bool padding = false;  // unreachable alignment padding (never executes)
  size_t frequency_class = 0;
  std::optional<double> frequency;  // F: executions per sampling period
  calc::Confidence confidence = calc::Confidence::kLow;
  std::string method;  // how F was obtained (estimate method or propagation)
  uint32_t best_case_cycles = 0;
  double samples = 0;
  std::vector<CalcInstruction> instructions;
  std::optional<double> true_cycles;  // --truth: Σ cycles / executions of the block's entry
};

struct CalcClass {
  size_t id = 0;
  std::optional<double> frequency;
  calc::Confidence confidence = calc::Confidence::kLow;
  std::string method;
  double samples = 0;  // in the class's blocks
  std::vector<size_t> blocks;
};

struct CalcReport {
  std::string procedure;
  std::string model;
  bool model_has_dynamic_stalls = true;
  bool half_cycle_lines = true;  // false for a single-issue machine (QEMU)
  std::string no_dynamic_stalls_note;
  bool missing_edges = false;
  std::vector<calc::IndirectJump> indirect_jumps;
  std::vector<CalcBlock> blocks;
  std::vector<CalcClass> classes;
  CalcSummary summary;              // procedure_summary.h
  std::vector<std::string> events;  // the event columns beside the cycles samples (issue 26)
};

// The image's samples of the other events beside each instruction's cycles
// samples (dcpiprof's and dcpicalc's columns per event), in
// firmware/events.h order.
void attach_event_samples(CalcReport& report,
                          const std::map<std::string, calc::SamplesByAddress>& events);

// dcpi calc --truth: the truth's cycles, stalls and culprits beside each
// instruction it saw execute, and each block's true cycles per execution.
void attach_truth(CalcReport& report, const calc::GroundTruth& truth,
                  const std::vector<calc::PalcodeLanding>& landings);

CalcReport build_calc_report(const std::string& procedure, const calc::ProcedureAnalysis& analysis,
                             const calc::CulpritReport& culprits, const calc::ProcessorModel& model,
                             std::vector<calc::IndirectJump> indirect_jumps, double image_samples);

}  // namespace dcpi
