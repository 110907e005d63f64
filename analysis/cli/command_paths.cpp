// `dcpi paths`: the exact Ball-Larus path profiles `dcpi run --paths`
// recorded (seed 002 §2): a procedure's hot paths with their
// metrics and block sequences, or (--summary) how the D-cache misses
// concentrate on hot paths, as the paper's Table 4 reports them.
#include <cstdlib>
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/path_output.h"
#include "analysis/samples/path_profile.h"

namespace dcpi {

const std::string_view kPathsUsage =
    "usage: dcpi paths [--db DIR] [--images DIR[:DIR...]] [--epoch N[,N...]|all] [--pid N]\n"
    "                  (--procedure NAME [--top N] | --summary [--threshold P])\n"
    "                  [--metric M] [--json]\n"
    "\n"
    "Exact path profiles (dcpi run --paths; seed 002): every path a procedure ran between\n"
    "its entry, a back edge or its return, with how often it ran and its metrics (its own\n"
    "instructions, callees excluded; on ev5 the 21164 model's cycles and events).\n"
    "  --procedure  the procedure's hot paths, largest --metric first, each with its\n"
    "               Ball-Larus number (over the CFG its executed paths span) and its\n"
    "               blocks (first and last address, first source line)\n"
    "  --top        paths shown per procedure (default 10)\n"
    "  --summary    hot, dense, sparse and cold paths and their shares of instructions and\n"
    "               of --metric (default dmiss on ev5, cycles on qemu), as seed 002's Table 4\n"
    "  --threshold  a hot path's least share of the total, in percent (default 1)\n"
    "  --metric     cycles (default), instructions, calls (runs), dmiss, imiss, dtbmiss,\n"
    "               mispredict\n"
    "  --pid        only this process\n"
    "  --json       the same as JSON\n";

namespace {

PathSet load(const ParsedOptions& options) {
  PathRequest request;
  request.epochs = parse_epoch_option(options);
  if (const auto pid = options.value("pid"))
    request.pid = static_cast<uint32_t>(parse_number(*pid, "pid"));
  ImageResolver resolver = image_resolver(options, {options.database()});
  return load_paths(options.database(), request, resolver);
}

ContextMetric parse_metric(const ParsedOptions& options, ContextMetric fallback, uint16_t machine) {
  const auto name = options.value("metric");
  if (!name) return fallback;
  if (const auto metric = context_metric_named(*name)) {
    if (is_model_event(*metric) && machine != DCPI_CONTEXTS_MACHINE_EV5)
      throw UsageError("--metric " + *name +
                       " is counted by the ev5 machine only (these paths are from qemu)");
    return *metric;
  }
  throw UsageError(
      "--metric is cycles, instructions, calls, dmiss, imiss, dtbmiss or "
      "mispredict, not '" +
      *name + "'");
}

double parse_threshold(const ParsedOptions& options) {
  const auto text = options.value("threshold");
  if (!text) return 0.01;
  char* end = nullptr;
  const double percent = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || !(percent > 0 && percent <= 100))
    throw UsageError("--threshold is a percentage above 0 and at most 100, not '" + *text + "'");
  return percent / 100;
}

int run_summary(const ParsedOptions& options, const PathSet& set) {
  const ContextMetric fallback = set.machine == DCPI_CONTEXTS_MACHINE_EV5
                                     ? ContextMetric::kDCacheMisses
                                     : ContextMetric::kCycles;
  const HotPathTable table =
      hot_path_table(set, parse_metric(options, fallback, set.machine), parse_threshold(options));
  if (options.flag("json"))
    print_hot_path_table_json(std::cout, table, set.machine);
  else
    print_hot_path_table(std::cout, table, set.machine);
  return 0;
}

}  // namespace

int run_paths_command(const std::vector<std::string>& arguments) {
  const ParsedOptions options(
      arguments, {{"db", "images", "epoch", "pid", "procedure", "top", "metric", "threshold"},
                  {"summary", "json"}});
  const auto procedure = options.value("procedure");
  if (procedure.has_value() == options.flag("summary"))
    throw UsageError("dcpi paths takes --procedure NAME or --summary");
  const PathSet set = load(options);
  if (options.flag("summary")) return run_summary(options, set);
  PathView view;
  view.metric = parse_metric(options, ContextMetric::kCycles, set.machine);
  view.machine = set.machine;
  if (options.value("top")) view.top = static_cast<size_t>(options.number("top", 10, 1, 1000000));
  std::vector<ProcedurePaths> procedures = procedure_paths(set, *procedure, view.metric);
  if (procedures.empty())
    throw std::runtime_error("no paths of " + *procedure + " in " + options.database() +
                             " (did it run? names are as dcpi prof prints them)");
  ImageResolver resolver = image_resolver(options, {options.database()});
  add_source_lines(procedures, resolver);
  if (options.flag("json"))
    print_procedure_paths_json(std::cout, procedures, view);
  else
    print_procedure_paths(std::cout, procedures, view);
  return 0;
}

}  // namespace dcpi
