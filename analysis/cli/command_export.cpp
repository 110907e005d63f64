// `dcpi export`: the database's samples for other tools — pprof's
// profile.proto (gzipped; opens in `pprof`, speedscope, ...) or flat JSON.
// The counterpart of DCPI's translation of profiles "into pixie format" (§3).
#include <fstream>
#include <iostream>
#include <set>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/context_options.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/context_output.h"
#include "analysis/reports/context_pprof.h"
#include "analysis/reports/flame_graph_svg.h"
#include "analysis/reports/pprof_export.h"
#include "analysis/samples/chain_tree.h"

namespace dcpi {

const std::string_view kExportUsage =
    "usage: dcpi export --format pprof|json|folded|svg [--contexts | --sampled] [--db DIR]\n"
    "                   [-o FILE | --output FILE]\n"
    "                   [--images DIR[:DIR...]] [--image NAME] [--pid N] [--cpu N]\n"
    "                   [--epoch N[,N...]|all]\n"
    "\n"
    "  pprof  gzipped perftools.profiles.Profile (analysis/reports/proto/profile.proto): one\n"
    "         sample per stored row, labels pid/tid/cpu/epoch; values: samples per event,\n"
    "         then each event's projected count (samples x mean period / share of time\n"
    "         counted); --output is required\n"
    "  json   {samples: [{epoch, event, image, pid, tid, cpu, address, count, estimated,\n"
    "         procedure, file, line}]}; to --output, or stdout\n"
    "  folded the exact calling contexts (dcpi run --contexts) as folded stacks, one line\n"
    "         \"thread;caller;callee COST\" per context (flamegraph.pl, speedscope, inferno)\n"
    "  svg    the same as a self-contained SVG flame graph\n"
    "  --contexts  with pprof: the calling contexts instead of the samples, each context a\n"
    "         sample with its call path as the location stack\n"
    "  --sampled  pprof, folded and svg: the sampled call chains (dcpi run -g) instead of\n"
    "         the exact contexts, counting samples; pprof gets one sample per distinct chain,\n"
    "         its frames as the location stack, leaf first (the default for folded and svg\n"
    "         when the database has chains and no exact contexts)\n"
    "  --metric  folded and svg: cycles, instructions or calls (default: cycles on qemu)\n";

namespace {

// folded, svg and pprof --contexts: from the exact calling context tree.
int export_contexts(const ParsedOptions& options, const std::string& format,
                    const std::optional<std::string>& output) {
  const ContextTree tree = load_context_tree(options);
  if (format == "pprof") {
    write_gzip_file(*output, build_context_pprof(tree));
    std::cerr << "dcpi export: wrote " << *output << " (" << tree.nodes.size() - 1
              << (tree.sampled ? " call-chain nodes)\n" : " calling contexts)\n");
    return 0;
  }
  if (format == "json")
    throw UsageError("--contexts and --sampled go with --format pprof, folded or svg");
  const ContextMetric metric = parse_context_metric(options, tree);
  std::ofstream file;
  if (output) file.open(*output);
  std::ostream& out = output ? file : std::cout;
  if (format == "folded")
    print_folded(out, tree, metric);
  else
    write_flame_graph_svg(out, tree, metric, "dcpi flame graph: " + options.database());
  if (!out.flush()) throw std::runtime_error("cannot write " + output.value_or("stdout"));
  return 0;
}

}  // namespace

int run_export_command(const std::vector<std::string>& arguments) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < arguments.size(); ++i)  // "-o FILE" is the one short option
    rest.push_back(arguments[i] == "-o" ? "--output" : arguments[i]);
  const std::set<std::string> values = {"format", "db",  "output", "images", "image",
                                        "pid",    "cpu", "epoch",  "metric"};
  const std::set<std::string> flags = {"contexts", "sampled"};
  {
    const ParsedOptions first(rest, {values, flags});
    const std::string format = first.value("format").value_or("");
    if (!first.flag("sampled") && !first.flag("contexts") &&
        (format == "folded" || format == "svg") && prefer_sampled_chains(first.database()))
      rest.push_back("--sampled");  // only chains recorded (dcpi run -g without --contexts)
  }
  const ParsedOptions options(rest, {values, flags});
  if (options.flag("sampled") && options.flag("contexts"))
    throw UsageError("give --contexts (exact) or --sampled (the chains of dcpi run -g), not both");
  const std::string format = options.required("format");
  if (format != "pprof" && format != "json" && format != "folded" && format != "svg")
    throw UsageError("--format wants 'pprof', 'json', 'folded' or 'svg', not '" + format + "'");
  const auto output = options.value("output");
  if (format == "pprof" && !output) throw UsageError("--format pprof needs -o FILE.pb.gz");
  if (format == "folded" || format == "svg" || options.flag("contexts") || options.flag("sampled"))
    return export_contexts(options, format, output);
  const ProfileDatabase database = ProfileDatabase::open(options.database());
  const SampleSet samples = load_samples(database, parse_sample_filter(options));
  ImageResolver resolver = image_resolver(options, {options.database()});
  if (format == "json") {
    if (!output) {
      write_samples_json(samples, resolver, std::cout);
      return 0;
    }
    std::ofstream out(*output);
    if (!out) throw std::runtime_error("cannot create " + *output);
    write_samples_json(samples, resolver, out);
    if (!out.flush()) throw std::runtime_error("cannot write " + *output);
    return 0;
  }
  std::vector<std::string> warnings;
  const std::string bytes = build_pprof(samples, resolver, warnings);
  for (const std::string& warning : warnings) std::cerr << "dcpi export: " << warning << '\n';
  write_gzip_file(*output, bytes);
  uint64_t total = 0;
  for (const Profile& profile : samples.profiles)
    for (const ProfileRow& row : profile.rows) total += row.count;
  std::cerr << "dcpi export: wrote " << *output << " (" << total << " samples)\n";
  return 0;
}

}  // namespace dcpi
