// `dcpi profileme` (issue 27 item 4; seed 004): ProfileMe's records per
// procedure, or per instruction of one, as the paper's estimates.
#include <iostream>
#include <set>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/profileme_output.h"
#include "analysis/samples/profileme_table.h"

namespace dcpi {

const std::string_view kProfileMeUsage =
    "usage: dcpi profileme [--db DIR] [--images DIR[:DIR...]] [--image NAME] [--pid N]\n"
    "                      [--tid N] [--cpu N] [--epoch N[,N...]|all] [--procedure P]\n"
    "                      [--limit N] [--json]\n"
    "\n"
    "ProfileMe's instruction samples (dcpi run --machine ev5 --profileme; seed 004,\n"
    "docs/profileme.md) per procedure, most records first, or with --procedure per\n"
    "instruction of P: the records, the executions they estimate (retired records x S,\n"
    "S the mean interval in fetched instructions), the aborted share, D-cache, DTB and\n"
    "I-cache misses and mispredicts per execution, and the mean latencies in cycles:\n"
    "issue, fetch -> slot (I-cache, ITB, mispredict restart), slot -> issue (operands,\n"
    "D-cache, DTB, write buffer, units).\n"
    "  --json  {records, interval, rows: [{image, procedure, address, records, retired,\n"
    "          executions, events: {...}, latency_cycles: {issue, fetch, stall}}]}\n";

int run_profileme_command(const std::vector<std::string>& arguments) {
  const ParsedOptions options(
      arguments,
      {{"db", "images", "image", "pid", "cpu", "tid", "epoch", "procedure", "limit"}, {"json"}});
  const ProfileDatabase database = ProfileDatabase::open(options.database());
  ImageResolver resolver = image_resolver(options, {options.database()});
  const SampleSet samples = load_samples(database, parse_sample_filter(options));
  const ProfileMeReport report =
      build_profileme_report(samples, resolver, options.value("procedure"));
  std::optional<uint64_t> limit;
  if (const auto text = options.value("limit")) limit = parse_number(*text, "limit");
  if (options.flag("json")) {
    print_profileme_json(report, limit, std::cout);
    return 0;
  }
  if (options.value("procedure") && report.rows.empty())
    throw std::runtime_error("no ProfileMe records in '" + *options.value("procedure") + "'");
  print_profileme_text(report, limit, std::cout);
  return 0;
}

}  // namespace dcpi
