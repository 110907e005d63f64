// `dcpi stats`: how much each procedure's samples vary across runs or
// epochs, sorted by normalized range (DCPI §3.3, Figure 3: the tool that
// isolated `smooth_` as the source of wave5's run-time variance).
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/comparison_output.h"
#include "analysis/samples/run_comparison.h"

namespace dcpi {

const std::string_view kStatsUsage =
    "usage: dcpi stats --db DIR --db DIR ... | [--db DIR] --epochs a,b,...|each\n"
    "                  [--images DIR[:DIR...]] [--event NAME] [--image NAME] [--pid N]\n"
    "                  [--cpu N] [--limit N] [--json]\n"
    "\n"
    "Per-procedure statistics over several sample sets (one per database, or one\n"
    "per epoch of one database), like dcpistats: range% = (max - min) / sum,\n"
    "sum, % of all samples, N = sets with samples, mean, std-dev (divisor N-1 over\n"
    "all sets; a set without samples counts as 0), min, max. Largest range first.\n"
    "  --event   which event to compare (default cycles, the only one QEMU counts)\n";

int run_stats_command(const std::vector<std::string>& arguments) {
  std::vector<std::string> rest = arguments;
  const std::vector<std::string> databases = take_databases(rest);
  const ParsedOptions options(
      rest, {{"images", "event", "image", "pid", "cpu", "epoch", "epochs", "limit"}, {"json"}});
  if (databases.size() < 2 && !options.value("epochs"))
    throw UsageError("compare several --db, or the --epochs of one");
  const auto sets = load_comparison_sets(
      databases, parse_compared_epochs(options, databases.size()), parse_sample_filter(options));
  ImageResolver resolver = image_resolver(options, databases);
  const VariationReport report =
      compare_sets(sets, resolver, options.value("event").value_or("cycles"));
  return emit_report(
      report, options, "stats", [&](auto limit) { print_stats_json(report, limit, std::cout); },
      [&](auto limit) { print_stats_text(report, limit, std::cout); });
}

}  // namespace dcpi
