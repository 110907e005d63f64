// DCPI §6.1.2's extension of cycle equivalence to CFGs with infinite loops
// (the OS idle loop): every block must lie on a path from the procedure's
// entry to its exit. We add virtual edges from a virtual start to the entry
// and to blocks without predecessors, from blocks that leave the procedure
// (or have no successors) to a virtual end, and from one block of every
// region that cannot reach the end (an infinite loop) to the end.
// The virtual edges never execute; local propagation (§6.1.4) treats a block
// with a virtual edge on one side as a boundary on that side.
#pragma once
#include <vector>

#include "analysis/calc/estimate/cfg.h"

namespace dcpi::calc {

struct ExitAugmentation {
  std::vector<BlockId>
      from_virtual_start;               // entry first, extra entries, blocks without predecessors
  std::vector<BlockId> to_virtual_end;  // blocks that leave, dead ends, then one per infinite loop
  std::vector<BlockId>
      infinite_loop_exits;  // the subset of to_virtual_end added for infinite loops

  bool has_virtual_predecessor(BlockId block) const;
  bool has_virtual_successor(BlockId block) const;
  // Per block: whether from_virtual_start, to_virtual_end holds it, as
  // augment_for_exit sets them, for the two questions above (issue 31: they
  // searched the lists, a quadratic cost in procedures with many exits).
  // Where a block is beyond them, the lists are searched.
  std::vector<bool> starts_virtually, ends_virtually;
};

ExitAugmentation augment_for_exit(const ControlFlowGraph& cfg);

}  // namespace dcpi::calc
