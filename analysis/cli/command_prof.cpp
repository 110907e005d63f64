// `dcpi prof`: samples per image or per procedure, most sampled first, with
// percent and cumulative percent and one column pair per event (DCPI §3.1,
// Figure 1). Samples no image could claim form their own "[unknown]" row and
// count toward the totals, so the percentages add up to 100.
#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/context_options.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/context_output.h"
#include "analysis/reports/prof_output.h"
#include "analysis/samples/chain_tree.h"
#include "analysis/samples/profile_table.h"

namespace dcpi {

const std::string_view kProfUsage =
    "usage: dcpi prof [--db DIR] [--images DIR[:DIR...]] [--by KEY[,KEY...]]\n"
    "                 [--image NAME] [--pid N] [--tid N] [--cpu N] [--epoch N[,N...]|all]\n"
    "                 [--limit N] [--wide] [--json]\n"
    "       dcpi prof [--db DIR] (--callers PROC | --callees PROC) [--sampled] [--metric M]\n"
    "                 [--pid N]\n"
    "\n"
    "Samples per procedure (or per image, process, CPU), most sampled first, like dcpiprof.\n"
    "  --db      the profile database directory (default ./dcpi.db)\n"
    "  --images  directories holding the ELF files (kernel, PALcode, workloads);\n"
    "            without them procedures are shown as image+0xADDRESS\n"
    "  --by      what a row is: procedure (default), image, line (source file and line,\n"
    "            from DWARF), pid, tid (a thread, shown with its process), cpu, or several\n"
    "            joined by commas, like perf report\n"
    "            --sort (pid,image: one row per process and image); perf's names dso,\n"
    "            sym, srcline and comm work too; PIDs are shown with the programs they\n"
    "            ran (3:copy, from the run's process table: dcpi procs), threads with\n"
    "            their names (12:worker), and a build-id column appears when two images\n"
    "            share a name\n"
    "  --sort    the same as --by (perf report's name for it)\n"
    "  --image   only this image (guest path or file name; '[unknown]' too); a name the\n"
    "            database lacks is an error that lists the images it has\n"
    "  --pid, --tid, --cpu   only samples of this process (all its threads) / thread / CPU\n"
    "  --epoch   epochs to add up (default: all)\n"
    "  --limit   print at most N rows (totals still cover everything)\n"
    "  --wide    print long procedure names whole (by default a name longer than 50\n"
    "            characters is cut in the middle, so the image column stays on screen)\n"
    "  --callers, --callees  from the exact calling contexts (dcpi run --contexts): who\n"
    "            called PROC (or whom it called), with the calls and the inclusive cost\n"
    "            of PROC's contexts under each caller (of each callee's under PROC)\n"
    "  --sampled with --callers/--callees: from the sampled call chains (dcpi run -g)\n"
    "            instead, counting samples (the default when the database has chains and\n"
    "            no exact contexts)\n"
    "  --metric  with --callers/--callees: cycles, instructions or calls\n"
    "  --json    JSON: {by, events, totals, rows: [{image, image_path, build_id, pid,\n"
    "            programs, tid, thread, cpu, procedure, start, source: {file, line},\n"
    "            samples, percent, ...}]} (the fields of the --by keys; names always whole)\n";

namespace {

const std::set<std::string> kProfValueOptions = {"db",      "images",  "by",    "sort", "image",
                                                 "pid",     "cpu",     "epoch", "tid",  "limit",
                                                 "callers", "callees", "metric"};

// --callers P / --callees P: from the exact calling contexts (dcpi run
// --contexts), the procedures that called P, or that P called, with the
// inclusive cost of those calls (seed 002 §3).
int print_neighbours(std::vector<std::string> arguments) {
  if (std::find(arguments.begin(), arguments.end(), "--sampled") == arguments.end() &&
      prefer_sampled_chains(
          ParsedOptions(arguments, {kProfValueOptions, {"json", "wide", "sampled"}}).database()))
    arguments.push_back("--sampled");  // only chains recorded (dcpi run -g without --contexts)
  const ParsedOptions options(arguments, {kProfValueOptions, {"json", "wide", "sampled"}});
  if (options.value("callers") && options.value("callees"))
    throw UsageError("give --callers or --callees, not both");
  const bool callers = options.value("callers").has_value();
  const std::string procedure = callers ? *options.value("callers") : *options.value("callees");
  const ContextTree tree = load_context_tree(options);
  const std::vector<ContextNeighbour> rows =
      callers ? context_callers(tree, procedure) : context_callees(tree, procedure);
  if (options.flag("json")) {
    print_context_neighbours_json(std::cout, rows, procedure, callers);
    return 0;
  }
  const ContextMetric metric = parse_context_metric(options, tree);
  const bool known =
      std::any_of(tree.nodes.begin(), tree.nodes.end(),
                  [&](const ContextTreeNode& node) { return node.name == procedure; });
  if (!known)
    throw std::runtime_error(
        std::string(tree.sampled ? "no sampled call chain runs " : "no calling context runs ") +
        procedure +
        (tree.sampled ? " (dcpi tree --sampled lists the procedures by name)"
                      : " (dcpi tree lists the procedures by name)"));
  print_context_neighbours(std::cout, rows, procedure, callers, metric,
                           tree.nodes[0].total.get(metric));
  return 0;
}

struct ProfRequest {
  std::string database;
  std::optional<std::string> images;  // --images
  std::vector<GroupKey> keys = {GroupKey::kProcedure};
  SampleFilter filter;
  std::optional<uint64_t> limit;
  bool json = false;
  bool wide = false;
};

ProfRequest parse_request(const std::vector<std::string>& arguments) {
  const ParsedOptions options(arguments, {kProfValueOptions, {"json", "wide"}});
  ProfRequest request;
  request.database = options.database();
  request.images = options.value("images");
  if (options.value("by") && options.value("sort"))
    throw UsageError("give --by or --sort (the same option), not both");
  try {
    request.keys =
        parse_group_keys(options.value("by").value_or(options.value("sort").value_or("procedure")));
  } catch (const std::invalid_argument& error) {
    // The first key that is not one, with the closest that is ("lnie": line).
    std::stringstream keys(options.value("by").value_or(options.value("sort").value_or("")));
    std::string hint;
    const std::vector<std::string> names = group_key_names();
    for (std::string key; hint.empty() && std::getline(keys, key, ',');)
      if (std::find(names.begin(), names.end(), key) == names.end())
        hint = closest_name_hint(key, names);
    throw UsageError(error.what() + hint);
  }
  request.filter = parse_sample_filter(options);
  if (const auto limit = options.value("limit")) request.limit = parse_number(*limit, "limit");
  request.json = options.flag("json");
  request.wide = options.flag("wide");
  return request;
}

}  // namespace

int run_prof_command(const std::vector<std::string>& arguments) {
  for (const std::string& argument : arguments)
    if (argument.starts_with("--callers") || argument.starts_with("--callees"))
      return print_neighbours(arguments);
  const ProfRequest request = parse_request(arguments);
  const ProfileDatabase database = ProfileDatabase::open(request.database);
  ImageResolver resolver = image_resolver(request.images, {request.database});
  const ProfileReport report =
      build_report(load_samples(database, request.filter), resolver, request.keys);
  if (request.json) {
    print_prof_json(report, request.limit, std::cout);
    return 0;
  }
  for (const std::string& warning : report.warnings) std::cerr << "dcpi prof: " << warning << '\n';
  print_prof_text(report, request.limit, std::cout, {.wide = request.wide});
  return 0;
}

}  // namespace dcpi
