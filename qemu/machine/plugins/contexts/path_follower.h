// Keeps each thread's path profile (thread_paths.h) in step with its
// calling context tree: at every user block head, after the tree resolved a
// pending call or return there, the paths of activations that left end and
// a new activation's path starts; then the head is the next block of the
// current activation's path, whose back edges procedure_loops.h decides.
// Shared by both plugins that record paths (the ev5 model, the contexts
// plugin on qemu). No QEMU here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "qemu/machine/plugins/contexts/procedure_loops.h"
#include "qemu/machine/plugins/contexts/thread_table.h"

namespace dcpi::contexts {

class PathFollower {
 public:
  PathFollower(size_t vcpus, ProcedureLoops::ReadWord read)
      : loops_(std::move(read)), followed_(vcpus) {}

  // vCPU `vcpu`, running `thread`, enters a user block at `pc` whose last
  // instruction is `last`.
  void block_head(unsigned int vcpu, ContextThread& thread, uint64_t pc, uint64_t last);
  // For a machine that follows every instruction (the contexts plugin on
  // qemu, whose block heads name only their first): `thread` runs the user
  // instruction at `pc` next; a fall-through into it across a back edge
  // ends the path (ThreadPaths::restart_at). Call before booking its costs.
  void instruction(ContextThread& thread, uint64_t pc);

 private:
  // Per vCPU: the activation its thread's paths last followed (its depth
  // and innermost serial identify the whole stack), and a buffer.
  struct Followed {
    const ContextThread* thread = nullptr;
    size_t depth = ~size_t{0};
    uint64_t serial = 0;
    std::vector<uint64_t> frames;
  };
  ProcedureLoops loops_;
  std::vector<Followed> followed_;
};

}  // namespace dcpi::contexts
