#include "analysis/calc/estimate/exit_augmentation.h"

#include <algorithm>

namespace dcpi::calc {

bool ExitAugmentation::has_virtual_predecessor(BlockId block) const {
  if (block < starts_virtually.size()) return starts_virtually[block];
  return std::find(from_virtual_start.begin(), from_virtual_start.end(), block) !=
         from_virtual_start.end();
}

bool ExitAugmentation::has_virtual_successor(BlockId block) const {
  if (block < ends_virtually.size()) return ends_virtually[block];
  return std::find(to_virtual_end.begin(), to_virtual_end.end(), block) != to_virtual_end.end();
}

namespace {

// Blocks from which some block in `exits` is reachable (backwards search).
std::vector<bool> reaches_exit(const ControlFlowGraph& cfg, const std::vector<BlockId>& exits) {
  std::vector<bool> reached(cfg.blocks().size(), false);
  std::vector<BlockId> work(exits.begin(), exits.end());
  for (BlockId b : exits) reached[b] = true;
  while (!work.empty()) {
    const BlockId b = work.back();
    work.pop_back();
    for (EdgeId e : cfg.block(b).incoming) {
      const BlockId from = cfg.edge(e).from;
      if (!reached[from]) {
        reached[from] = true;
        work.push_back(from);
      }
    }
  }
  return reached;
}

// Blocks reachable from some block in `starts` (forward search).
std::vector<bool> reached_from(const ControlFlowGraph& cfg, const std::vector<BlockId>& starts) {
  std::vector<bool> reached(cfg.blocks().size(), false);
  std::vector<BlockId> work(starts.begin(), starts.end());
  for (BlockId b : starts) reached[b] = true;
  while (!work.empty()) {
    const BlockId b = work.back();
    work.pop_back();
    for (EdgeId e : cfg.block(b).outgoing) {
      const BlockId to = cfg.edge(e).to;
      if (!reached[to]) {
        reached[to] = true;
        work.push_back(to);
      }
    }
  }
  return reached;
}

}  // namespace

ExitAugmentation augment_for_exit(const ControlFlowGraph& cfg) {
  ExitAugmentation result;
  const size_t n = cfg.blocks().size();
  if (n == 0) return result;
  result.starts_virtually.assign(n, false);
  auto start_virtually = [&](BlockId b) {
    result.from_virtual_start.push_back(b);
    if (b < n) result.starts_virtually[b] = true;
  };
  start_virtually(cfg.entry());
  for (BlockId b : cfg.extra_entries())
    if (!result.has_virtual_predecessor(b)) start_virtually(b);
  for (BlockId b = 0; b < n; ++b) {
    if (!result.has_virtual_predecessor(b) && cfg.block(b).incoming.empty()) start_virtually(b);
    if (cfg.block(b).leaves_procedure || cfg.block(b).outgoing.empty())
      result.to_virtual_end.push_back(b);
  }
  // Code reachable only through a cycle that the entry does not reach (an
  // entry point we do not know of): start it at its first block (ids are in address order).
  for (;;) {
    const std::vector<bool> reached = reached_from(cfg, result.from_virtual_start);
    const auto unreached = std::find(reached.begin(), reached.end(), false);
    if (unreached == reached.end()) break;
    start_virtually(static_cast<BlockId>(unreached - reached.begin()));
  }
  // Each round connects the highest-addressed block that cannot reach the
  // end: in code laid out by a compiler that is the latch of the last
  // infinite loop, so the loop body keeps one class.
  for (;;) {
    const std::vector<bool> reached = reaches_exit(cfg, result.to_virtual_end);
    BlockId chosen = n;
    for (BlockId b = 0; b < n; ++b) {
      if (!reached[b] && (chosen == n || cfg.block(b).start >= cfg.block(chosen).start)) chosen = b;
    }
    if (chosen == n) break;
    result.to_virtual_end.push_back(chosen);
    result.infinite_loop_exits.push_back(chosen);
  }
  result.ends_virtually.assign(n, false);
  for (BlockId b : result.to_virtual_end) result.ends_virtually[b] = true;
  return result;
}

}  // namespace dcpi::calc
