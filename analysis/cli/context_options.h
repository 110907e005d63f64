// The options the calling-context reports share (dcpi tree, prof --callers/
// --callees, export --format folded): which database, epochs, process and
// metric, turned into a loaded ContextTree.
#pragma once
#include "analysis/cli/cli_options.h"
#include "analysis/samples/context_tree.h"

namespace dcpi {

// --db, --images, --epoch, --pid; --sampled: the sampled call chains (dcpi run
// -g, analysis/samples/chain_tree.h) instead of the exact contexts.
ContextTree load_context_tree(const ParsedOptions& options);
// --metric cycles|instructions|calls|dmiss|imiss|dtbmiss|mispredict (the
// events on `ev5` only); the default is cycles (instructions for an ev5 tree
// stored before issue 28, which has no cycles).
ContextMetric parse_context_metric(const ParsedOptions& options, const ContextTree& tree);

}  // namespace dcpi
