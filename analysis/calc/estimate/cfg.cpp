#include "analysis/calc/estimate/cfg.h"

#include <algorithm>
#include <optional>
#include <set>

#include "isa/pal_functions.h"

namespace dcpi::calc {

ControlFlowGraph::ControlFlowGraph(const ControlFlowGraph& other)
    : blocks_(other.blocks_),
      edges_(other.edges_),
      missing_edges_(other.missing_edges_),
      blocks_sorted_(other.blocks_sorted_),
      extra_entries_(other.extra_entries_) {
  link_edges();
}

ControlFlowGraph& ControlFlowGraph::operator=(const ControlFlowGraph& other) {
  if (this != &other) *this = ControlFlowGraph(other);
  return *this;
}

BlockId ControlFlowGraph::add_block(BasicBlock block) {
  block.incoming = {};
  block.outgoing = {};
  if (block.end < block.start || (!blocks_.empty() && block.start < blocks_.back().end))
    blocks_sorted_ = false;
  blocks_.push_back(std::move(block));
  return blocks_.size() - 1;
}

EdgeId ControlFlowGraph::add_edge(BlockId from, BlockId to, EdgeKind kind) {
  edges_.push_back(CfgEdge{from, to, kind});
  link_edges();
  return edges_.size() - 1;
}

void ControlFlowGraph::add_edges(std::span<const CfgEdge> edges) {
  edges_.insert(edges_.end(), edges.begin(), edges.end());
  link_edges();
}

void ControlFlowGraph::link_edges() {
  // Counting sort of the edge ids by block: incoming lists at [0, E),
  // outgoing at [E, 2E), each in id order.
  const size_t n = blocks_.size(), e = edges_.size();
  std::vector<size_t> first_in(n + 1, 0), first_out(n + 1, 0);
  for (const CfgEdge& edge : edges_) ++first_in[edge.to + 1], ++first_out[edge.from + 1];
  for (size_t b = 0; b < n; ++b) first_in[b + 1] += first_in[b], first_out[b + 1] += first_out[b];
  edge_lists_.assign(2 * e, 0);
  std::vector<size_t> next_in(first_in.begin(), first_in.end() - 1);
  std::vector<size_t> next_out(first_out.begin(), first_out.end() - 1);
  for (EdgeId id = 0; id < e; ++id) {
    edge_lists_[next_in[edges_[id].to]++] = id;
    edge_lists_[e + next_out[edges_[id].from]++] = id;
  }
  const std::span<const EdgeId> lists(edge_lists_);
  for (BlockId b = 0; b < n; ++b) {
    blocks_[b].incoming = lists.subspan(first_in[b], first_in[b + 1] - first_in[b]);
    blocks_[b].outgoing = lists.subspan(e + first_out[b], first_out[b + 1] - first_out[b]);
  }
}

BlockId ControlFlowGraph::block_at(uint64_t address) const {
  // build_cfg's blocks are in address order and do not overlap: the last
  // block starting at or before `address` is the only candidate (a linear
  // scan made every edge cost O(blocks): issue 31). Blocks added by hand
  // (tests) in any order are searched one by one, as before.
  if (blocks_sorted_) {
    auto after = std::upper_bound(blocks_.begin(), blocks_.end(), address,
                                  [](uint64_t a, const BasicBlock& b) { return a < b.start; });
    if (after == blocks_.begin()) return blocks_.size();
    const BlockId id = static_cast<BlockId>(std::prev(after) - blocks_.begin());
    return address < blocks_[id].end ? id : blocks_.size();
  }
  for (BlockId id = 0; id < blocks_.size(); ++id) {
    if (blocks_[id].start <= address && address < blocks_[id].end) return id;
  }
  return blocks_.size();
}

namespace {

bool ends_block(ControlFlow flow) { return flow != ControlFlow::kNone; }

bool falls_through(ControlFlow flow) {
  return flow == ControlFlow::kNone || flow == ControlFlow::kConditionalBranch ||
         flow == ControlFlow::kCall;
}

bool has_local_target(const InstructionRecord& insn) {
  return (insn.control_flow == ControlFlow::kConditionalBranch ||
          insn.control_flow == ControlFlow::kUnconditionalBranch) &&
         insn.branch_target.has_value();
}

// Per-instruction flags of one procedure: they replace the std::sets of
// addresses build_cfg used to fill for every procedure (issue 31). Only
// addresses of the procedure's instructions can be marked. A decoded
// procedure's instructions are 4 bytes apart, so an address is its own
// index; hand-built ones (tests) may skip addresses and are bisected.
class InstructionFlags {
 public:
  explicit InstructionFlags(std::span<const InstructionRecord> procedure)
      : procedure_(procedure),
        consecutive_(procedure.back().address - procedure.front().address ==
                     4 * (procedure.size() - 1)),
        flags_(procedure.size(), 0) {}
  void set(uint64_t address) {
    if (const size_t i = index_of(address); i < flags_.size()) flags_[i] = 1;
  }
  bool at(size_t index) const { return flags_[index] != 0; }
  void set_at(size_t index) { flags_[index] = 1; }

 private:
  size_t index_of(uint64_t address) const {
    const uint64_t first = procedure_.front().address;
    if (consecutive_) {
      const bool on_grid = address >= first && (address - first) % 4 == 0;
      return on_grid ? static_cast<size_t>((address - first) / 4) : flags_.size();
    }
    const auto found =
        std::lower_bound(procedure_.begin(), procedure_.end(), address,
                         [](const InstructionRecord& r, uint64_t a) { return r.address < a; });
    return found != procedure_.end() && found->address == address
               ? static_cast<size_t>(found - procedure_.begin())
               : flags_.size();
  }

  std::span<const InstructionRecord> procedure_;
  bool consecutive_;
  std::vector<uint8_t> flags_;
};

// Runs of no-ops right after an instruction that never falls through (br,
// jmp, ret, halt) that no branch, table or entry targets: alignment padding
// (`.align` before the next label) that never executes. Marks their
// instructions in `padding` and the instruction after each run in
// `leaders`, so the padding cannot share a block with code that runs.
void mark_unreachable_padding(std::span<const InstructionRecord> procedure,
                              const InstructionFlags& targets, InstructionFlags& leaders,
                              InstructionFlags& padding) {
  for (size_t i = 0; i + 1 < procedure.size(); ++i) {
    if (falls_through(procedure[i].control_flow)) continue;
    size_t k = i + 1;
    while (k < procedure.size() && procedure[k].no_op && !targets.at(k)) padding.set_at(k++);
    if (k > i + 1 && k < procedure.size()) leaders.set_at(k);
  }
}

}  // namespace

ControlFlowGraph build_cfg(std::span<const InstructionRecord> procedure,
                           std::span<const uint64_t> extra_entries) {
  ControlFlowGraph cfg;
  if (procedure.empty()) return cfg;
  const uint64_t first = procedure.front().address;
  const uint64_t end = procedure.back().address + 4;
  auto inside = [&](uint64_t address) { return first <= address && address < end; };

  // Addresses in the procedure on its instruction grid (a table entry or
  // entry point off the grid starts no block).
  auto on_grid = [&](uint64_t address) { return inside(address) && address % 4 == first % 4; };
  InstructionFlags targets(procedure);  // where some edge or entry arrives
  targets.set(first);
  for (uint64_t address : extra_entries)
    if (on_grid(address)) targets.set(address);
  for (const InstructionRecord& insn : procedure) {
    if (has_local_target(insn) && on_grid(*insn.branch_target)) targets.set(*insn.branch_target);
    if (insn.control_flow == ControlFlow::kIndirectJump)
      for (uint64_t target : insn.jump_targets)
        if (on_grid(target)) targets.set(target);
  }
  InstructionFlags leaders = targets;
  for (size_t i = 0; i + 1 < procedure.size(); ++i)
    if (ends_block(procedure[i].control_flow)) leaders.set_at(i + 1);
  InstructionFlags padding(procedure);
  mark_unreachable_padding(procedure, targets, leaders, padding);

  // Each block's instructions copied at once, into a vector of their size
  // (one record at a time reallocated and re-copied them: issue 31).
  std::vector<size_t> starts;
  for (size_t i = 0; i < procedure.size(); ++i)
    if (leaders.at(i)) starts.push_back(i);
  std::vector<BasicBlock> blocks;
  blocks.reserve(starts.size());
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t from = starts[k], to = k + 1 < starts.size() ? starts[k + 1] : procedure.size();
    BasicBlock& block = blocks.emplace_back(
        BasicBlock{.start = procedure[from].address, .padding = padding.at(from)});
    block.instructions.assign(procedure.begin() + from, procedure.begin() + to);
    block.end = procedure[to - 1].address + 4;
  }
  for (size_t id = 0; id < blocks.size(); ++id) {
    const InstructionRecord& last = blocks[id].instructions.back();
    const bool leaves_by_branch = has_local_target(last) && !inside(*last.branch_target);
    const bool runs_off_end = falls_through(last.control_flow) && id + 1 == blocks.size();
    blocks[id].leaves_procedure =
        !blocks[id].padding &&
        (leaves_by_branch || runs_off_end || last.control_flow == ControlFlow::kReturn ||
         last.control_flow == ControlFlow::kHalt);
  }
  cfg.reserve_blocks(blocks.size());
  for (BasicBlock& block : blocks) cfg.add_block(std::move(block));
  for (uint64_t address : extra_entries) {
    const BlockId b = cfg.block_at(address);
    if (b != cfg.entry() && b < cfg.blocks().size() && cfg.block(b).start == address)
      cfg.add_entry(b);
  }

  std::vector<CfgEdge> edges;  // added at once: each block's lists sized once
  edges.reserve(2 * cfg.blocks().size());
  for (BlockId id = 0; id < cfg.blocks().size(); ++id) {
    const InstructionRecord& last = cfg.block(id).instructions.back();
    const bool has_next = id + 1 < cfg.blocks().size();
    const bool fall = falls_through(last.control_flow) && has_next && !cfg.block(id).padding;
    if (last.control_flow == ControlFlow::kIndirectJump) {
      // A resolved jump table: one edge per distinct target (jump_tables.h).
      // Otherwise the targets are unknown (§6.1.1).
      std::set<BlockId> targets;
      bool known = !last.jump_targets.empty();
      for (uint64_t target : last.jump_targets) {
        if (inside(target) && target % 4 == first % 4)
          targets.insert(cfg.block_at(target));
        else
          known = false;
      }
      if (!known) cfg.mark_missing_edges();
      for (BlockId target : targets) edges.push_back({id, target, EdgeKind::kTaken});
    }
    if (has_local_target(last) && inside(*last.branch_target)) {
      const BlockId taken = cfg.block_at(*last.branch_target);
      // A conditional branch to the next instruction is one edge, not two.
      if (!(fall && taken == id + 1)) edges.push_back({id, taken, EdgeKind::kTaken});
    }
    if (fall) edges.push_back({id, id + 1, EdgeKind::kFallThrough});
  }
  cfg.add_edges(edges);
  return cfg;
}

std::optional<uint64_t> palcode_returning_to(const ControlFlowGraph& cfg, BlockId b, size_t i) {
  const BasicBlock& block = cfg.block(b);
  const uint64_t address = block.instructions[i].address;
  const auto returns_here = [address](const InstructionRecord& in) {
    constexpr uint32_t kFunctionBits = 0x3ffffff;  // CALL_PAL's 26-bit function field
    return in.kind == isa::Kind::kCallPal && in.address + 4 == address &&
           isa::palcode_returns_to_next(in.encoding & kFunctionBits);
  };
  if (i > 0) {
    const InstructionRecord& before = block.instructions[i - 1];
    return returns_here(before) ? std::optional(before.address) : std::nullopt;
  }
  for (EdgeId e : block.incoming) {
    const BasicBlock& from = cfg.block(cfg.edge(e).from);
    if (!from.instructions.empty() && returns_here(from.instructions.back()))
      return from.instructions.back().address;
  }
  return std::nullopt;
}

std::vector<PalcodeLanding> palcode_landings(const ControlFlowGraph& cfg) {
  std::vector<PalcodeLanding> landings;
  for (BlockId b = 0; b < cfg.blocks().size(); ++b)
    for (size_t i = 0; i < cfg.block(b).instructions.size(); ++i)
      if (const auto call = palcode_returning_to(cfg, b, i))
        landings.push_back({b, i, cfg.block(b).instructions[i].address, *call});
  return landings;
}

}  // namespace dcpi::calc
