#include "qemu/machine/plugins/contexts/procedure_loops.h"

#include <unordered_map>
#include <vector>

#include "isa/decode.h"

namespace dcpi::contexts {
namespace {

// Where control can go from the instruction `word` at `pc` inside its
// procedure: a call returns to the next instruction; a jump or return leaves.
std::vector<uint64_t> successors(uint32_t word, uint64_t pc) {
  const isa::Instruction in = isa::decode(word);
  switch (in.kind()) {
    case isa::Kind::kConditionalBranch:
      return {pc + 4, isa::branch_target(in, pc)};
    case isa::Kind::kBranch:
      return {isa::branch_target(in, pc)};
    case isa::Kind::kJump:
    case isa::Kind::kReturn:
    case isa::Kind::kCoroutine:
    case isa::Kind::kInvalid:
      return {};
    default:  // calls (bsr, jsr) and everything else go on
      return {pc + 4};
  }
}

}  // namespace

ProcedureLoops::Graph& ProcedureLoops::graph(uint64_t space, uint64_t entry) {
  std::unique_ptr<Graph>& graph = graphs_[{space, entry}];
  if (!graph) graph = analyse(entry);
  return *graph;
}

bool ProcedureLoops::ends_path(uint64_t space, uint64_t entry, uint64_t from, uint64_t to) {
  if (entry == 0) return to <= from;
  const Graph& g = graph(space, entry);
  if (!g.known) return to <= from;
  return !g.forward.count({from, to});
}

bool ProcedureLoops::falls_back(uint64_t space, uint64_t entry, uint64_t from) {
  if (entry == 0) return false;
  const Graph& g = graph(space, entry);
  return g.known && g.falls_back.count(from);
}

std::vector<uint64_t> ProcedureLoops::fall_through_back_edges(uint64_t space, uint64_t entry,
                                                              uint64_t first, uint64_t last) {
  std::vector<uint64_t> out;
  if (entry == 0) return out;
  const Graph& g = graph(space, entry);
  if (!g.known) return out;
  for (auto it = g.falls_back.lower_bound(first); it != g.falls_back.end() && *it < last; ++it)
    out.push_back(*it);
  return out;
}

// Iterative depth-first search from the entry: an edge to an instruction
// still on the stack is a back edge; every other edge is the DAG's.
std::unique_ptr<ProcedureLoops::Graph> ProcedureLoops::analyse(uint64_t entry) {
  auto graph = std::make_unique<Graph>();
  enum : uint8_t { kOnStack = 1, kDone = 2 };
  std::unordered_map<uint64_t, uint8_t> state;
  struct Frame {
    uint64_t pc;
    std::vector<uint64_t> next;
    size_t at = 0;
  };
  std::vector<Frame> stack;
  auto visit = [&](uint64_t pc) {
    uint32_t word = 0;
    if (!read_(pc, word)) return false;
    state[pc] = kOnStack;
    stack.push_back(Frame{pc, successors(word, pc)});
    return true;
  };
  if (!visit(entry)) return graph;
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.at == top.next.size()) {
      state[top.pc] = kDone;
      stack.pop_back();
      continue;
    }
    const uint64_t from = top.pc, to = top.next[top.at++];
    const auto seen = state.find(to);
    if (seen != state.end()) {
      if (seen->second == kDone)
        graph->forward.insert({from, to});
      else if (to == from + 4)  // on the stack: a back edge, here a fall-through
        graph->falls_back.insert(from);
      continue;
    }
    if (state.size() >= kMaxInstructions || !visit(to)) return graph;  // unknown: the address rule
    graph->forward.insert({from, to});
  }
  graph->known = true;
  return graph;
}

}  // namespace dcpi::contexts
