#include "analysis/cli/context_options.h"

#include "analysis/cli/report_options.h"
#include "analysis/samples/chain_tree.h"

namespace dcpi {

ContextTree load_context_tree(const ParsedOptions& options) {
  ContextTreeRequest request;
  request.epochs = parse_epoch_option(options);
  if (const auto pid = options.value("pid"))
    request.pid = static_cast<uint32_t>(parse_number(*pid, "pid"));
  ImageResolver resolver = image_resolver(options, {options.database()});
  if (options.flag("sampled"))  // dcpi run -g's chains (issue 28), not the exact CCT
    return load_chain_tree(options.database(), request, resolver);
  return load_context_tree(options.database(), request, resolver);
}

ContextMetric parse_context_metric(const ParsedOptions& options, const ContextTree& tree) {
  const auto metric = options.value("metric");
  if (tree.sampled) {
    if (metric && *metric != "samples")
      throw UsageError("sampled call chains count samples (--metric samples), not '" + *metric +
                       "'");
    return ContextMetric::kSamples;
  }
  const bool ev5 = tree.machine == DCPI_CONTEXTS_MACHINE_EV5;
  if (!metric) {
    // An ev5 tree stored before issue 28 (version 1) has no cycles.
    const bool no_cycles = !tree.nodes.empty() && tree.nodes[0].total.cycles == 0;
    return ev5 && no_cycles ? ContextMetric::kInstructions : ContextMetric::kCycles;
  }
  if (const std::optional<ContextMetric> known = context_metric_named(*metric)) {
    if (!ev5 && is_model_event(*known))
      throw UsageError("--metric " + *metric +
                       " is counted by the ev5 machine only (these contexts are from qemu)");
    return *known;
  }
  throw UsageError(
      "--metric is cycles, instructions, calls, dmiss, imiss, dtbmiss or mispredict, "
      "not '" +
      *metric + "'");
}

}  // namespace dcpi
