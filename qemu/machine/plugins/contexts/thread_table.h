// The threads a plugin builds calling context trees for, and which one each
// vCPU runs: shared by the contexts plugin (machine qemu) and the ev5 model
// (ev5/context_metrics.h), which follow the same switches. No QEMU here.
//
// Threads are keyed by (pid, PCB): every CPU's idle thread has pid 0, and a
// pid's Process slot may be reused by a later pid. Before its first switch a
// vCPU runs a boot context of its own (pid 0, cpu N, pcb 0).
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "qemu/machine/plugins/contexts/contexts_file_writer.h"
#include "qemu/machine/plugins/contexts/thread_contexts.h"
#include "qemu/machine/plugins/contexts/thread_paths.h"

namespace dcpi::contexts {

struct ContextThread {
  uint32_t pid = 0;
  uint32_t cpu = DCPI_CONTEXTS_NO_CPU;
  uint64_t pcb = 0;
  ThreadContexts tree;
  ThreadPaths paths;  // filled by the ev5 plugin's --paths only
  // Its address space: a number per address-space instance (see switch_to),
  // what the path profiles' back edges are cached by (procedure_loops.h).
  uint64_t space = 0;
  uint64_t page_table_base = 0;
};

class ThreadTable {
 public:
  explicit ThreadTable(size_t vcpus);

  // The thread vCPU `vcpu` runs; nullptr for a vCPU beyond those announced.
  ContextThread* current(unsigned int vcpu) {
    return vcpu < current_.size() ? current_[vcpu] : nullptr;
  }
  // The vCPU switched to the thread whose PCB is `pcb` (swpctx), of process
  // `tgid`, with the page-table base `ptbr`. A page-table base names an
  // address space only while it lives: the kernel frees it at exit and exec
  // and a later process may get the same page, with other code at the same
  // addresses. So the thread's `space` is a new number whenever the base is
  // another process's than last seen, or the thread's base changed (exec).
  void switch_to(unsigned int vcpu, uint32_t pid, uint32_t tgid, uint64_t pcb, uint64_t ptbr);
  // Every thread that ran something, for the file (call when no vCPU runs).
  std::vector<ThreadEntry> entries() const;
  // Ends every thread's running paths (the run ended; call when no vCPU runs).
  void finish_paths();

 private:
  std::mutex mutex_;  // the map: vCPUs switch concurrently under MTTCG
  std::map<std::pair<uint32_t, uint64_t>, std::unique_ptr<ContextThread>> threads_;
  std::vector<std::unique_ptr<ContextThread>> boot_;
  std::vector<ContextThread*> current_;
  struct SpaceInstance {
    uint32_t tgid = 0;
    uint64_t number = 0;
  };
  std::map<uint64_t, SpaceInstance> spaces_;  // by page-table base
  uint64_t next_space_ = 0;
};

}  // namespace dcpi::contexts
