// Which transfers end a path (seed 002 §2: Ball-Larus back edges), per
// procedure: the plugin reads the procedure's code from the guest at its
// first activation, builds its control-flow graph from the entry (direct
// branches, fall-throughs, calls as fall-throughs; jumps and returns leave
// it) and searches it depth first: the edges to an instruction on the
// search's stack are the back edges. What remains is acyclic, so the paths
// of a procedure span a DAG however the compiler laid its loops out.
//
// A transfer the graph does not have (an indirect jump's target, a signal
// handler's entry) ends the path too, so a path only follows edges of the
// DAG. Where the code cannot be read (or is too large), the procedure falls
// back to backward transfers in address order (a branch to an address at
// or below its own), which break every cycle as well.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_set>
#include <utility>
#include <vector>

namespace dcpi::contexts {

class ProcedureLoops {
 public:
  // Reads the instruction word at a guest address of the running vCPU;
  // false where there is none.
  using ReadWord = std::function<bool(uint64_t, uint32_t&)>;
  explicit ProcedureLoops(ReadWord read) : read_(std::move(read)) {}

  // Whether control going from `from` to `to` (`to` = `from` + 4 for a
  // fall-through) inside the procedure entered at `entry` (0: unknown, as
  // a thread's first code) in address space `space` ends a path.
  bool ends_path(uint64_t space, uint64_t entry, uint64_t from, uint64_t to);
  // The instructions in [first, last) whose fall-through to the next one is
  // a back edge (a loop entered in its middle: a branch to its test, the
  // body falling into it): inside one translation block, where no block
  // head sees the transfer. Ascending; none for the address rule.
  std::vector<uint64_t> fall_through_back_edges(uint64_t space, uint64_t entry, uint64_t first,
                                                uint64_t last);
  // Whether the fall-through from `from` to the next instruction is one.
  bool falls_back(uint64_t space, uint64_t entry, uint64_t from);

  static constexpr size_t kMaxInstructions = 1 << 16;  // larger: the address rule

 private:
  struct PairHash {
    size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
      return std::hash<uint64_t>()(p.first * 0x9e3779b97f4a7c15ull ^ p.second);
    }
  };
  using EdgeSet = std::unordered_set<std::pair<uint64_t, uint64_t>, PairHash>;
  struct Graph {
    bool known = false;
    EdgeSet forward;                // edges of the DAG (not back edges)
    std::set<uint64_t> falls_back;  // sources of back edges that are fall-throughs
  };
  Graph& graph(uint64_t space, uint64_t entry);
  std::unique_ptr<Graph> analyse(uint64_t entry);
  ReadWord read_;
  std::map<std::pair<uint64_t, uint64_t>, std::unique_ptr<Graph>> graphs_;  // (space, entry)
};

}  // namespace dcpi::contexts
