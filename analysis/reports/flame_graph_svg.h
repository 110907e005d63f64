// A flame graph of the calling context tree (Brendan Gregg's layout: the
// root at the bottom, each context as wide as its inclusive cost, callees
// stacked above their caller), as one self-contained SVG: no script, nothing
// fetched; names are escaped (markup_text.h) and shown in full in each frame's <title>.
#pragma once
#include <ostream>
#include <string>

#include "analysis/reports/context_output.h"

namespace dcpi {

void write_flame_graph_svg(std::ostream& out, const ContextTree& tree, ContextMetric metric,
                           const std::string& title);

}  // namespace dcpi
