#include "analysis/cli/context_options.h"

#include "analysis/cli/report_options.h"

namespace dcpi {

ContextTree load_context_tree(const ParsedOptions& options) {
  ContextTreeRequest request;
  request.epochs = parse_epoch_option(options);
  if (const auto pid = options.value("pid"))
    request.pid = static_cast<uint32_t>(parse_number(*pid, "pid"));
  ImageResolver resolver = image_resolver(options, {options.database()});
  return load_context_tree(options.database(), request, resolver);
}

ContextMetric parse_context_metric(const ParsedOptions& options, const ContextTree& tree) {
  const auto metric = options.value("metric");
  if (!metric)
    return tree.machine == DCPI_CONTEXTS_MACHINE_EV5 ? ContextMetric::kInstructions
                                                     : ContextMetric::kCycles;
  if (*metric == "cycles") return ContextMetric::kCycles;
  if (*metric == "instructions") return ContextMetric::kInstructions;
  if (*metric == "calls") return ContextMetric::kCalls;
  throw UsageError("--metric is cycles, instructions or calls, not '" + *metric + "'");
}

}  // namespace dcpi
