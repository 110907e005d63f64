// The control-flow graph of one procedure (DCPI §6.1.1): basic blocks of
// instruction records and the edges between them. A CFG whose indirect jumps
// could not be resolved is marked as missing edges; §6.1.2 then gives every
// block and edge its own frequency class.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "analysis/calc/model/instruction_record.h"

namespace dcpi::calc {

using BlockId = size_t;
using EdgeId = size_t;

struct BasicBlock {
  uint64_t start = 0;  // address of the first instruction
  uint64_t end = 0;    // one past the last instruction
  std::vector<InstructionRecord> instructions;
  // Edge ids in the order the edges were added: views into the graph's one
  // array of edge lists (issue 31: two vectors per block were a third of
  // the analysis's allocations), set by ControlFlowGraph.
  std::span<const EdgeId> incoming;
  std::span<const EdgeId> outgoing;
  bool leaves_procedure = false;  // ends in a return, a halt or a branch out of the procedure
  // Alignment padding (unop/nop) after an unconditional transfer that no
  // edge reaches: it never executes, so it has no edges and is no issue
  // point of the code after it (issue 17: merged into the next case's block
  // it diluted that block's samples per instruction).
  bool padding = false;
};

enum class EdgeKind : uint8_t { kFallThrough, kTaken };  // kTaken: also a jump table's edges

struct CfgEdge {
  BlockId from = 0;
  BlockId to = 0;
  EdgeKind kind = EdgeKind::kFallThrough;
};

class ControlFlowGraph {
 public:
  ControlFlowGraph() = default;
  // A copy's blocks view the copy's edge lists; a move keeps the storage
  // the views point into.
  ControlFlowGraph(const ControlFlowGraph& other);
  ControlFlowGraph& operator=(const ControlFlowGraph& other);
  ControlFlowGraph(ControlFlowGraph&&) noexcept = default;
  ControlFlowGraph& operator=(ControlFlowGraph&&) noexcept = default;

  // For tests and for callers that build blocks themselves. Returns the id.
  BlockId add_block(BasicBlock block);
  EdgeId add_edge(BlockId from, BlockId to, EdgeKind kind = EdgeKind::kTaken);
  // add_edge for each, in order (the same ids), with the edge lists built
  // once (add_edge rebuilds them: for graphs built by hand).
  void add_edges(std::span<const CfgEdge> edges);
  void reserve_blocks(size_t count) { blocks_.reserve(count); }
  void mark_missing_edges() { missing_edges_ = true; }
  // A second way in besides entry(), e.g. Alpha's local entry point after the
  // ldgp prologue (callers in the same image bsr to procedure + 8). Its
  // callers are outside the CFG, like the entry's.
  void add_entry(BlockId block) { extra_entries_.push_back(block); }

  const std::vector<BasicBlock>& blocks() const { return blocks_; }
  const std::vector<CfgEdge>& edges() const { return edges_; }
  const BasicBlock& block(BlockId id) const { return blocks_[id]; }
  const CfgEdge& edge(EdgeId id) const { return edges_[id]; }
  // An unresolved indirect jump: the edges out of it are unknown (§6.1.1).
  bool missing_edges() const { return missing_edges_; }
  BlockId entry() const { return 0; }
  const std::vector<BlockId>& extra_entries() const { return extra_entries_; }
  // The block holding `address`, or blocks().size() if none does.
  BlockId block_at(uint64_t address) const;

 private:
  // Rebuilds edge_lists_ from edges_ and points every block at its lists.
  void link_edges();

  std::vector<BasicBlock> blocks_;
  std::vector<CfgEdge> edges_;
  std::vector<EdgeId> edge_lists_;  // every block's incoming ids, then every block's outgoing
  bool missing_edges_ = false;
  bool blocks_sorted_ = true;  // ascending, disjoint [start, end): block_at can bisect
  std::vector<BlockId> extra_entries_;
};

// Splits a procedure's instructions (consecutive, ascending addresses, 4 bytes
// apart) into basic blocks at branch targets and after every control
// transfer, and connects them. Calls end a block and fall through (the
// callee returns); branches that leave [first, last] end the procedure; an
// indirect jump goes to its jump_targets (a switch table that
// jump_tables.h resolved), or, without them, marks the CFG as missing edges
// (§6.1.1). `extra_entries` are addresses where control also enters from
// outside (they start blocks). Unreachable alignment padding becomes a
// block of its own without edges (BasicBlock::padding).
// The CALL_PAL whose PALcode returns to instruction i of block b (the one
// just before it, falling through; isa::palcode_returns_to_next), if any:
// PALcode's cycles are sampled at i (DCPI §4.1.3), so its samples are no
// issue point of the frequency estimate and its stall is calc's `P`.
std::optional<uint64_t> palcode_returning_to(const ControlFlowGraph& cfg, BlockId b, size_t i);

// Every such instruction of the CFG, in block and instruction order.
struct PalcodeLanding {
  BlockId block = 0;
  size_t instruction = 0;  // index in the block
  uint64_t address = 0;
  uint64_t call = 0;  // the CALL_PAL's address
};
std::vector<PalcodeLanding> palcode_landings(const ControlFlowGraph& cfg);

ControlFlowGraph build_cfg(std::span<const InstructionRecord> procedure,
                           std::span<const uint64_t> extra_entries = {});

}  // namespace dcpi::calc
