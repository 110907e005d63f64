// `dcpi tree`: the exact calling context tree `dcpi run --contexts` recorded
// (seed 002 §3), top-down with inclusive and exclusive costs per context, or
// bottom-up (each procedure's exclusive cost, then its callers), like perf
// report --children and HPCToolkit's views; --flame-graph draws it as SVG.
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "analysis/cli/cli_options.h"
#include "analysis/cli/commands.h"
#include "analysis/cli/context_options.h"
#include "analysis/cli/report_options.h"
#include "analysis/reports/context_output.h"
#include "analysis/reports/flame_graph_svg.h"
#include "analysis/samples/chain_tree.h"

namespace dcpi {

const std::string_view kTreeUsage =
    "usage: dcpi tree [--db DIR] [--images DIR[:DIR...]] [--epoch N[,N...]|all] [--pid N]\n"
    "                 [--sampled] [--bottom-up] [--metric M] [--min-percent P]\n"
    "                 [--depth N] [--json] [--flame-graph FILE.svg]\n"
    "\n"
    "The exact calling context tree of every thread (dcpi run --contexts): each context\n"
    "with its inclusive (total) and exclusive (self) share and its calls; recursion is\n"
    "folded onto the ancestor; [kernel] is the kernel's time while the context was current.\n"
    "  --sampled      the sampled call chains of dcpi run -g instead (issue 28; the\n"
    "                 default when the database has chains and no exact contexts): samples\n"
    "                 per chain, unwound on the host with DWARF CFI; chains that could not\n"
    "                 be finished hang below [truncated: WHY]; a summary of why chains ended\n"
    "                 and where they stopped, per image, follows the tree\n"
    "  --bottom-up    each procedure's exclusive cost first, then the callers it came from\n"
    "  --metric       what the shares count: cycles (default), instructions, calls, and on\n"
    "                 ev5 the 21164 model's dmiss, imiss, dtbmiss, mispredict\n"
    "  --min-percent  hide contexts below P% of the total (default 0.5)\n"
    "  --depth        show at most N levels\n"
    "  --pid          only this process\n"
    "  --json         the tree as JSON: {metric, machine, view, root: {name, image, calls,\n"
    "                 self, total, children}}; self and total hold instructions, cycles\n"
    "                 and, on ev5, dmiss, imiss, dtbmiss, mispredict\n"
    "  --flame-graph  also write a self-contained SVG flame graph to FILE\n";

namespace {

// dcpi run -g's chains, with how they ended (issue 28).
ContextTree load_sampled_tree(const ParsedOptions& options, ChainTreeStats& stats) {
  ContextTreeRequest request;
  request.epochs = parse_epoch_option(options);
  if (options.value("pid")) throw UsageError("--sampled covers every process together (no --pid)");
  ImageResolver resolver = image_resolver(options, {options.database()});
  return load_chain_tree(options.database(), request, resolver, &stats);
}

}  // namespace

int run_tree_command(const std::vector<std::string>& arguments) {
  const ParsedOptions options(
      arguments, {{"db", "images", "epoch", "pid", "metric", "min-percent", "depth", "flame-graph"},
                  {"bottom-up", "json", "sampled"}});
  ChainTreeStats stats;
  // Only chains recorded (dcpi run -g without --contexts): those, as prof
  // --callers does, rather than an error about contexts.
  const bool sampled = options.flag("sampled") || prefer_sampled_chains(options.database());
  const ContextTree tree = sampled ? load_sampled_tree(options, stats) : load_context_tree(options);
  ContextTreeView view;
  view.metric = parse_context_metric(options, tree);
  if (const auto text = options.value("min-percent")) {
    char* end = nullptr;
    view.min_percent = std::strtod(text->c_str(), &end);
    if (text->empty() || *end != '\0' || !(view.min_percent >= 0 && view.min_percent <= 100))
      throw UsageError("--min-percent is a percentage from 0 to 100, not '" + *text + "'");
  }
  if (options.value("depth"))
    view.max_depth = static_cast<uint32_t>(options.number("depth", 0, 1, 100000));
  view.bottom_up = options.flag("bottom-up");
  if (const auto svg = options.value("flame-graph")) {
    std::ofstream out(*svg);
    write_flame_graph_svg(out, tree, view.metric, "dcpi flame graph: " + options.database());
    if (!out.flush()) throw std::runtime_error("cannot write " + *svg);
  }
  const ContextTree shown = view.bottom_up ? invert_context_tree(tree) : tree;
  if (options.flag("json")) {
    print_context_tree_json(std::cout, shown, view);
  } else {
    print_context_tree(std::cout, shown, view);
    if (tree.sampled) print_chain_summary(std::cout, stats);
  }
  return 0;
}

}  // namespace dcpi
