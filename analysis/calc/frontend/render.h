// Rendering `dcpi calc` reports: the text listing of Figure 2 (per block
// best-case and actual CPI, one line per instruction, stall bubbles on
// half-cycle lines) followed by the procedure summary of Figure 4; or the
// same facts as JSON.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/calc/frontend/report.h"

namespace dcpi {

// Where the numbers came from, for the header.
struct CalcContext {
  std::string image;                      // the ELF file analysed
  std::string db_image;                   // the image's path in the profile database
  std::string epochs;                     // "all (1, 2)" or "3"
  double period = 0;                      // mean sampling period in cycles
  std::string period_description;         // where it came from ("recorded [8192, 9216)", ...)
  std::string period_source;              // PeriodChoice::source (inputs.h)
  std::vector<std::string> period_notes;  // printed as note: lines
  size_t cpus = 0;                        // CPUs that reported driver statistics; 0 if unknown
  bool qemu_model = true;
  // The machine the profile was taken on (epoch.meta `machine`, issue 14):
  // "qemu" (1 instruction per cycle) or "ev5" (QEMU on the 21164 model's time).
  std::string machine = "qemu";
  // The EV5 model on a profile from the qemu machine (1 instruction per
  // cycle, no stalls): its stalls are what a 21164 would have shown, not
  // what the machine did.
  bool hypothetical_stalls = false;
  std::string estimator = "dcpi";  // --estimate: dcpi or flow
};

void print_calc_header(const CalcContext& context, const std::string& model, std::ostream& out);
void print_calc_text(const CalcReport& report, const CalcContext& context, std::ostream& out);
// Figure 4 only.
void print_calc_summary(const CalcReport& report, std::ostream& out);
void print_calc_json(const CalcReport& report, const CalcContext& context, std::ostream& out);

// One line per procedure for `dcpi calc --all`.
struct CalcOverviewRow {
  std::string procedure;
  double samples = 0;
  double best_case = 0, instructions = 0;
  size_t blocks = 0;
  bool missing_edges = false;
};
void print_calc_overview(const std::vector<CalcOverviewRow>& rows, const CalcContext& context,
                         const std::string& model, std::ostream& out);

}  // namespace dcpi
