// The calling context trees of an ev5 run with the model's metrics (issue
// 28 item 1; seed 002 §3: a CCT record's metrics exclude its callees): every
// cycle, instruction and event the model's truth books at a PC is booked,
// as it happens, to the context running that PC, so a procedure's exclusive
// cycles are exactly the truth's cycles summed over its PCs, and the trees'
// total is the truth's `event cycles`.
//
// The contexts plugin's rules (contexts/thread_contexts.h) decide which
// context runs: a user PC's bookings go to its thread's current context, a
// kernel or PALcode PC's to that context's [kernel] child. A call or return
// is resolved at the next user block's head (QEMU ends a block at every
// branch, so the callee's first instruction heads one) before the model
// books anything there. No QEMU here: the plugin calls it (plugin.cpp).
//
// With paths, the same bookings for user PCs also go to the path the
// current activation is running (contexts/thread_paths.h): a path's metrics
// are its own instructions', and a procedure's paths add up to its
// exclusive metrics.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qemu/machine/plugins/contexts/path_follower.h"
#include "qemu/machine/plugins/contexts/thread_table.h"
#include "qemu/machine/plugins/contexts/transfer_kind.h"
#include "qemu/machine/plugins/ev5/vcpu_truth.h"

namespace dcpi::ev5 {

class ContextMetrics {
 public:
  // `paths`: also each thread's path profile (thread_paths.h), whose back
  // edges come from the code `read` finds (procedure_loops.h).
  ContextMetrics(size_t vcpus, bool paths, contexts::ProcedureLoops::ReadWord read = {});

  // What vCPU `vcpu`'s truth books goes to its current thread's contexts.
  TruthObserver* observer(unsigned int vcpu) { return observers_[vcpu].get(); }
  // `block` is entered (before the model books its entry).
  void block_head(unsigned int vcpu, const BlockRecord& block);
  // An exact exit left the block before the instruction at `pc`.
  void stopped_before(unsigned int vcpu, uint64_t pc);
  // A user call, return or jsr_coroutine at `pc` is about to run with `sp`.
  void transfer(unsigned int vcpu, contexts::TransferKind kind, uint64_t pc, uint64_t sp);
  // Whether a jump at sp may be a tail call (contexts::ThreadContexts::at_frame_sp).
  bool at_frame_sp(unsigned int vcpu, uint64_t sp);
  // The vCPU switched threads: the PCB at `pcb` of thread `pid` of process
  // `tgid`, whose address space has the page-table base `ptbr`.
  void switch_thread(unsigned int vcpu, uint32_t pid, uint32_t tgid, uint64_t pcb, uint64_t ptbr) {
    threads_.switch_to(vcpu, pid, tgid, pcb, ptbr);
  }
  // The files (firmware/contexts_format.h, paths_format.h; machine ev5);
  // false on an error. Call when no vCPU runs.
  bool write(const std::string& path) const;
  bool write_paths(const std::string& path);

 private:
  contexts::ThreadTable threads_;
  bool paths_;
  contexts::PathFollower follower_;
  std::vector<std::unique_ptr<TruthObserver>> observers_;
};

}  // namespace dcpi::ev5
