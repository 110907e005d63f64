// The exact calling context tree as a pprof profile: one sample per context
// with its exclusive instructions, cycles and calls, and its whole call path
// as the location stack (leaf first), so pprof's -top, -peek, -tree and its
// flame graph show callers and callees (seed 002 §3; perf's --call-graph).
#pragma once
#include <string>

#include "analysis/samples/context_tree.h"

namespace dcpi {

// Serialized (not yet gzipped) perftools.profiles.Profile.
std::string build_context_pprof(const ContextTree& tree);

}  // namespace dcpi
