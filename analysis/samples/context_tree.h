// The calling context trees `dcpi run --contexts` stored (profiledb/
// context_file.h), named and merged for the reports: contexts that call the
// same procedure (by name and image) from different call sites of the same
// parent become one, as perf report --children and HPCToolkit show them
// (seed 002 §3 keeps the call sites apart; the file still has them).
//
// Node 0 is the whole profile; its children are the threads ("pid 3
// /bin/copy"), theirs the thread's root code and its calls; "[kernel]"
// children hold the kernel and PALcode time of their parent context.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiledb/context_file.h"
#include "profiledb/process_table.h"
#include "symbols/image_resolver.h"

namespace dcpi {

// The ev5 model's events (firmware/contexts_format.h version 2) after the
// three both machines have.
enum class ContextMetric {
  kCycles,
  kInstructions,
  kCalls,
  kDCacheMisses,
  kICacheMisses,
  kDtbMisses,
  kMispredicts,
  kSamples,  // sampled call chains (issue 28): samples, not a machine count
};
inline constexpr ContextMetric kContextMetrics[] = {
    ContextMetric::kCycles,       ContextMetric::kInstructions, ContextMetric::kCalls,
    ContextMetric::kDCacheMisses, ContextMetric::kICacheMisses, ContextMetric::kDtbMisses,
    ContextMetric::kMispredicts};
inline bool is_model_event(ContextMetric metric) { return metric >= ContextMetric::kDCacheMisses; }
// kContextMetrics leaves kSamples out: exact trees have none.
// The names --metric takes and JSON uses ("cycles", ..., "dmiss"); nullopt: none.
const char* context_metric_key(ContextMetric metric);
std::optional<ContextMetric> context_metric_named(const std::string& name);

struct ContextCosts {
  uint64_t calls = 0;
  uint64_t instructions = 0;
  uint64_t cycles = 0;
  uint64_t dcache_misses = 0, icache_misses = 0, dtb_misses = 0, mispredicts = 0;
  uint64_t samples = 0;  // sampled trees (chain_tree.h) count these and nothing else
  uint64_t get(ContextMetric metric) const;
  ContextCosts& operator+=(const ContextCosts& other);
  static ContextCosts of(const DcpiContextNode& node);  // its exclusive costs
};

struct ContextTreeNode {
  std::string name;   // procedure (demangled), "pid N PROGRAM", "[kernel]", "[all]"
  std::string image;  // display name of its image; empty for roots and [kernel]
  uint32_t parent = DCPI_CONTEXTS_NO_PARENT;
  std::vector<uint32_t> children;
  ContextCosts self;   // exclusive
  ContextCosts total;  // inclusive: self + the children's totals (calls: self's)
};

struct ContextTree {
  std::vector<ContextTreeNode> nodes;  // parents first; node 0 is [all]
  uint16_t machine = DCPI_CONTEXTS_MACHINE_QEMU;
  uint64_t epochs = 0;   // epochs that had contexts
  bool sampled = false;  // built from sampled call chains (chain_tree.h), not the exact CCT
  std::vector<std::string> warnings;
};

struct ContextTreeRequest {
  std::optional<std::vector<uint64_t>> epochs;  // nullopt: every epoch
  std::optional<uint32_t> pid;
};

// Reads every selected epoch's contexts.cct of `database`; throws
// ProfileFormatError on a malformed one, std::runtime_error when none has any.
ContextTree load_context_tree(const std::string& database, const ContextTreeRequest& request,
                              ImageResolver& resolver);
// The same from profiles already read (the tests build them by hand).
// `table`: the epoch's process table, which maps the plugin's thread ids to
// their processes (--pid selects every thread of a process); none: each
// thread is its own process, as before issue 29.
void add_context_profile(ContextTree& tree, const profiledb::ContextProfile& profile,
                         ImageResolver& resolver, std::optional<uint32_t> pid,
                         const ProcessTable* table = nullptr);
// Recomputes the inclusive totals after the last add_context_profile.
void compute_totals(ContextTree& tree);
// Finds or adds the child of `parent` named (name, image); returns its index.
uint32_t child_named(ContextTree& tree, uint32_t parent, const std::string& name,
                     const std::string& image);

// Bottom-up (callers) view: each procedure's exclusive cost, then who called
// it along every path (HPCToolkit's bottom-up view): a tree of the same shape.
ContextTree invert_context_tree(const ContextTree& tree);

// The procedures that called `procedure` (or that it called), with the
// inclusive costs of those calls; nested activations of `procedure` count once.
struct ContextNeighbour {
  std::string name;
  std::string image;
  ContextCosts costs;  // inclusive costs of the procedure's (callee's) contexts
};
std::vector<ContextNeighbour> context_callers(const ContextTree& tree,
                                              const std::string& procedure);
std::vector<ContextNeighbour> context_callees(const ContextTree& tree,
                                              const std::string& procedure);

// The names on the path from below node 0 to `node` (flame graph frames).
std::vector<std::string> context_path(const ContextTree& tree, uint32_t node);

}  // namespace dcpi
