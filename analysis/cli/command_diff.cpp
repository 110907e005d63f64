// `dcpi diff`: two profiles side by side, the procedures whose share of the
// samples moved most first (DCPI §3: a tool to "highlight the differences in
// two separate profiles for the same program"). Shares, not raw counts, are
// compared, so runs of different length line up.
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/comparison_output.h"
#include "analysis/samples/run_comparison.h"

namespace dcpi {

const std::string_view kDiffUsage =
    "usage: dcpi diff --db BEFORE --db AFTER | [--db DIR] --epochs BEFORE,AFTER\n"
    "                 [--images DIR[:DIR...]] [--event NAME] [--image NAME] [--pid N]\n"
    "                 [--cpu N] [--match image|name] [--limit N] [--json]\n"
    "\n"
    "Per-procedure samples and shares in two profiles; rows sorted by the absolute\n"
    "change of the share (percentage points), largest first. Beside the shares: the\n"
    "change in samples (delta) and after / before in samples (ratio; new when the\n"
    "procedure had none before).\n"
    "  --db      the two databases (or one, with --epochs)\n"
    "  --epochs  BEFORE,AFTER: two epochs of one database\n"
    "  --images  directories holding the ELF files (an override; the runs recorded them)\n"
    "  --event   the event compared (default cycles)\n"
    "  --image, --pid, --cpu, --epoch   only these samples (as for dcpi prof)\n"
    "  --match   image (default): a row is a procedure of an image path; name: also\n"
    "            pair a renamed binary (an image only one profile has) with the image of\n"
    "            the other that shares the most procedure names\n"
    "  --limit   print at most N rows\n"
    "  --json    JSON: {event, before, after, renamed, rows: [{image_path,\n"
    "            after_image_path, procedure, before, after, delta, ratio, change}]}\n";

int run_diff_command(const std::vector<std::string>& arguments) {
  std::vector<std::string> rest = arguments;
  const std::vector<std::string> databases = take_databases(rest);
  const ParsedOptions options(
      rest,
      {{"images", "event", "image", "pid", "cpu", "epoch", "epochs", "limit", "match"}, {"json"}});
  const std::string match = options.value("match").value_or("image");
  if (match != "image" && match != "name")
    throw UsageError("--match is image or name, not '" + match + "'");
  const auto epochs = options.value("epochs");
  if (epochs ? databases.size() != 1 : databases.size() != 2)
    throw UsageError("give two --db, or one --db with --epochs BEFORE,AFTER");
  const auto sets = load_comparison_sets(
      databases, parse_compared_epochs(options, databases.size()), parse_sample_filter(options));
  if (sets.size() != 2) throw UsageError("--epochs wants exactly two epochs: BEFORE,AFTER");
  ImageResolver resolver = image_resolver(options, databases);
  const DiffReport report =
      diff_sets(sets[0], sets[1], resolver, options.value("event").value_or("cycles"),
                match == "name" ? DiffMatch::kName : DiffMatch::kImage);
  return emit_report(
      report, options, "diff", [&](auto limit) { print_diff_json(report, limit, std::cout); },
      [&](auto limit) { print_diff_text(report, limit, std::cout); });
}

}  // namespace dcpi
