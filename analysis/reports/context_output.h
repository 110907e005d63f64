// The calling-context reports (seed 002 §3's CCT, as perf report --children
// and HPCToolkit show it): `dcpi tree` top-down or bottom-up, `dcpi prof
// --callers/--callees`, and the folded stacks flame graphs are drawn from.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analysis/samples/chain_score.h"
#include "analysis/samples/chain_tree.h"
#include "analysis/samples/context_tree.h"

namespace dcpi {

struct ContextTreeView {
  ContextMetric metric = ContextMetric::kCycles;
  double min_percent = 0.5;  // hide contexts below this share of the total
  std::optional<uint32_t> max_depth;
  bool bottom_up = false;  // the tree is an inverted one (its "self" is inclusive)
};

// Indented tree: inclusive %, exclusive %, calls, procedure, image.
void print_context_tree(std::ostream& out, const ContextTree& tree, const ContextTreeView& view);
void print_context_tree_json(std::ostream& out, const ContextTree& tree,
                             const ContextTreeView& view);

// "caller  calls  inclusive %" rows for --callers (or callee rows for --callees).
void print_context_neighbours(std::ostream& out, const std::vector<ContextNeighbour>& rows,
                              const std::string& procedure, bool callers, ContextMetric metric,
                              uint64_t total);
void print_context_neighbours_json(std::ostream& out, const std::vector<ContextNeighbour>& rows,
                                   const std::string& procedure, bool callers);

// Brendan Gregg's folded format, one line per context with exclusive cost:
// "pid 3 /bin/copy;main;copy_loop 1234" (';' in a name becomes ':').
void print_folded(std::ostream& out, const ContextTree& tree, ContextMetric metric);

const char* metric_name(ContextMetric metric);
// Which machine the numbers came from, and what its cycles are.
const char* machine_note(uint16_t machine);
const char* sampled_note(uint16_t machine);  // the same for sampled call-chain trees

// After a sampled tree: how many chains ended how, and per image the
// samples whose leaf is there and those whose chain stopped there.
void print_chain_summary(std::ostream& out, const ChainTreeStats& stats);

// dcpi score --contexts: the sampled chains against the exact tree.
void print_chain_score(std::ostream& out, const ChainScore& score, uint16_t machine);
void print_chain_score_json(std::ostream& out, const ChainScore& score, uint16_t machine);

}  // namespace dcpi
