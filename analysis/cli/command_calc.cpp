// `dcpi calc`: dcpicalc (DCPI §3.2, §6) — per-instruction frequency, CPI and
// culprits of one procedure, Figure 2's listing with stall bubbles and
// Figure 4's summary; `--all` gives one line per procedure of the image.
#include <algorithm>
#include <iostream>

#include "analysis/calc/estimate/culprits.h"
#include "analysis/calc/frontend/inputs.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/breakdown_output.h"
#include "analysis/reports/calc_output.h"
#include "analysis/reports/json_writer.h"
#include "symbols/demangle.h"

namespace dcpi {

const std::string_view kCalcUsage =
    "usage: dcpi calc [--db DIR] [--image PATH_OR_NAME] --procedure NAME\n"
    "       dcpi calc [--db DIR] --image PATH_OR_NAME --all\n"
    "                 [--model qemu|ev5] [--epoch N] [--period CYCLES] [--images DIR[:DIR]]\n"
    "                 [--mode user|pal] [--estimate flow|dcpi] [--no-source] [--json]\n"
    "                 [--truth FILE] [--breakdown [--top N]] [--no-events]\n"
    "\n"
    "Estimates how often each basic block of a procedure ran and how many cycles each\n"
    "instruction spent at the head of the issue queue (DCPI 6.1), and why (6.3).\n"
    "  --db         the profile database (docs/profile-db.md; default ./dcpi.db)\n"
    "  --image      the ELF file (matched to the database by build-id), or the image's\n"
    "               name in the database (e.g. /bin/copy or kernel.elf); without it, the\n"
    "               one image of the database that has --procedure (as dcpi list finds it)\n"
    "  --images     directories to find the ELF of a named image in (default .)\n"
    "  --procedure  the procedure to analyse: its name as in the source, the symbol, a\n"
    "               C++ name without parameters or templates (std::sort), a glob\n"
    "               ('std::map*') or an address inside it (0x120003e80)\n"
    "  --all        analyse every procedure; one line each, by samples\n"
    "  --model      qemu (QEMU under -icount retires one instruction per cycle and never\n"
    "               stalls) or ev5 (the 21164 of the paper); default: the model of the\n"
    "               machine the profile was taken on (dcpi run --machine)\n"
    "  --epoch      one epoch (default: all epochs together)\n"
    "  --period     mean sampling period in cycles (default: the one the database recorded\n"
    "               for the epochs; the driver's default 63487.5 if it recorded none); on\n"
    "               several CPUs each thread's samples still count its own share of\n"
    "               -icount's one clock, as the kernel booked it (the header's own: line)\n"
    "  --mode       pal decodes PALcode (hw_* instructions); default: by file name\n"
    "  --estimate   flow (default: frequencies consistent with flow conservation on every\n"
    "               block, by minimum-cost flow over the whole CFG) or dcpi (the paper's\n"
    "               per-class estimate and local propagation, 6.1.3-6.1.4)\n"
    "  --no-source  do not interleave source lines (shown where the image has DWARF)\n"
    "  --breakdown  only the cycles by cause (DCPI Figure 4): execution, static stalls by\n"
    "               kind, dynamic stalls by cause, unexplained; with --all one line per\n"
    "               procedure (the --top N by samples, default 10) and their total\n"
    "  --truth      the truth file of the run (dcpi run --truth FILE; FILE,FILE,... for\n"
    "               runs stored in one epoch, summed): with --procedure\n"
    "               its cycles, stalls and culprits beside each instruction, with\n"
    "               --breakdown its breakdown beside calc's\n"
    "  --no-events  culprits from the cycles samples alone: the event samples (imiss,\n"
    "               dmiss, branchmp, itbmiss, dtbmiss; dcpi run --events on ev5) keep\n"
    "               their columns but no longer bound or rule out the I-cache, D-cache,\n"
    "               mispredict and TB explanations (DCPI 6.3)\n"
    "  --json       machine-readable output\n";

namespace {

// DWARF lines for the listing, as dcpi list shows them; an image without
// line information (or one elfutils cannot read) just has none.
void attach_source_lines(const ElfImage& elf, CalcReport& report) {
  for (CalcBlock& block : report.blocks)
    for (CalcInstruction& line : block.instructions) line.source = elf.source_at(line.address);
}

}  // namespace

int run_calc_command(const std::vector<std::string>& arguments) {
  OptionSpec spec{.flags = {"json", "all", "no-source", "breakdown", "no-events"}};
  for (const std::string& name : kCalcValueOptions) spec.with_value.insert(name);
  for (const char* name : {"procedure", "truth", "top"}) spec.with_value.insert(name);
  const ParsedOptions options(arguments, spec);
  const bool all = options.flag("all");
  const std::optional<std::string> name = options.value("procedure");
  if (all == name.has_value()) throw UsageError("give exactly one of --procedure NAME and --all");
  if (!options.flag("breakdown") && options.value("top"))
    throw UsageError("--top goes with --breakdown");
  if (all && !options.flag("breakdown") && options.value("truth"))
    throw UsageError("--truth goes with --procedure or --breakdown");

  const CalcInputs inputs = load_calc_inputs(parse_calc_request(options));
  const CalcContext context = calc_context(inputs);
  if (options.flag("breakdown")) {
    BreakdownRequest request{.procedure = name};
    if (const auto top = options.value("top")) request.top = parse_number(*top, "top");
    if (const auto truth = options.value("truth")) {
      request.truth = load_ground_truth(*truth, inputs);
      request.truth_path = *truth;
    }
    const CalcBreakdown breakdown = calc_breakdown(inputs, request);
    if (options.flag("json"))
      print_calc_breakdown_json(breakdown, inputs, context, request, std::cout);
    else
      print_calc_breakdown(breakdown, inputs, context, request, std::cout);
    return 0;
  }
  if (!all) {
    const ProcedureRange* procedure =
        &select_code_procedure(inputs.code, *name, &inputs.samples.cycles);
    AnalyzedProcedure result = analyze_code(inputs.code, *procedure, *inputs.model,
                                            inputs.samples.cycles, inputs.estimator);
    const calc::CulpritReport culprits =
        calc::find_culprits(result.analysis, *inputs.model, inputs.culprits);
    CalcReport report =
        build_calc_report(demangle(procedure->name), result.analysis, culprits, *inputs.model,
                          std::move(result.code.indirect_jumps), inputs.samples.total);
    attach_event_samples(report, inputs.samples.events);
    if (!options.flag("no-source")) attach_source_lines(inputs.code.elf(), report);
    if (const auto truth = options.value("truth"))
      attach_truth(report, load_ground_truth(*truth, inputs), result.analysis.palcode_landings);
    if (options.flag("json"))
      print_calc_json(report, context, std::cout);
    else
      print_calc_text(report, context, std::cout);
    return 0;
  }

  const std::vector<CalcOverviewRow> rows = calc_overview(inputs);
  const size_t analysed = inputs.code.procedures().size();
  if (options.flag("json"))
    print_calc_overview_json(rows, context, analysed, std::cout);
  else
    print_calc_overview(rows, context, std::string(inputs.model->name()), analysed, std::cout);
  return 0;
}

}  // namespace dcpi
