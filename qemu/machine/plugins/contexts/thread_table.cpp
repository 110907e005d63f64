#include "qemu/machine/plugins/contexts/thread_table.h"

namespace dcpi::contexts {

ThreadTable::ThreadTable(size_t vcpus) {
  for (size_t i = 0; i < vcpus; ++i) {
    boot_.push_back(std::make_unique<ContextThread>());
    boot_.back()->cpu = static_cast<uint32_t>(i);
    current_.push_back(boot_.back().get());
  }
}

void ThreadTable::switch_to(unsigned int vcpu, uint32_t pid, uint32_t tgid, uint64_t pcb,
                            uint64_t ptbr) {
  if (vcpu >= current_.size()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<ContextThread>& thread = threads_[{pid, pcb}];
  if (!thread) {
    thread = std::make_unique<ContextThread>();
    thread->pid = pid;
    thread->pcb = pcb;
  }
  SpaceInstance& instance = spaces_[ptbr];
  const bool exec = thread->page_table_base != 0 && thread->page_table_base != ptbr;
  if (instance.number == 0 || instance.tgid != tgid || exec) instance = {tgid, ++next_space_};
  thread->page_table_base = ptbr;
  thread->space = instance.number;
  current_[vcpu] = thread.get();
}

std::vector<ThreadEntry> ThreadTable::entries() const {
  std::vector<ThreadEntry> out;
  for (const auto& boot : boot_) {
    const Node& root = boot->tree.nodes()[0];
    if (boot->tree.nodes().size() > 1 || root.instructions || root.cycles)
      out.push_back({boot->pid, boot->cpu, boot->pcb, &boot->tree, &boot->paths});
  }
  for (const auto& [key, thread] : threads_)
    out.push_back({thread->pid, thread->cpu, thread->pcb, &thread->tree, &thread->paths});
  return out;
}

void ThreadTable::finish_paths() {
  for (const auto& boot : boot_) boot->paths.finish_all();
  for (const auto& [key, thread] : threads_) thread->paths.finish_all();
}

}  // namespace dcpi::contexts
