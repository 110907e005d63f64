#include "qemu/machine/plugins/ev5/context_metrics.h"

#include "qemu/machine/plugins/contexts/paths_file_writer.h"
#include "qemu/machine/truth/truth_space.h"

namespace dcpi::ev5 {
namespace {

using contexts::Node;
using contexts::PathCosts;
using contexts::ThreadTable;

template <typename Costs>
void add_event(Costs& costs, ModelEvent event) {
  switch (event) {
    case ModelEvent::kDCacheMiss:
      ++costs.dcache_misses;
      break;
    case ModelEvent::kICacheMiss:
      ++costs.icache_misses;
      break;
    case ModelEvent::kDtbMiss:
      ++costs.dtb_misses;
      break;
    case ModelEvent::kBranchMispredict:
      ++costs.mispredicts;
      break;
    default:
      break;
  }
}

// Books one vCPU's truth into the contexts (and paths) of the thread it runs.
class Booking final : public TruthObserver {
 public:
  Booking(ThreadTable& threads, unsigned int vcpu, bool paths)
      : threads_(threads), vcpu_(vcpu), paths_(paths) {}

  // The truth counts instruction i of a block entries - cuts(<= i) times at
  // its static cost (truth_file.cpp add_block): booked here at the entry,
  // taken back at a cut.
  void entered(const BlockRecord& block) override { book_static(block, 0, +1); }
  void cut(const BlockRecord& block, uint32_t index) override { book_static(block, index, -1); }
  void cycles(uint64_t pc, int64_t cycles) override {
    node(pc).cycles += static_cast<uint64_t>(cycles);  // a correction may be negative
    if (PathCosts* p = path(pc)) p->cycles += static_cast<uint64_t>(cycles);
  }
  void event(uint64_t pc, ModelEvent event) override {
    add_event(node(pc), event);
    if (PathCosts* p = path(pc)) add_event(*p, event);
  }

 private:
  Node& node(uint64_t pc) { return threads_.current(vcpu_)->tree.booked(truth::is_user_pc(pc)); }
  PathCosts* path(uint64_t pc) {
    if (!paths_ || !truth::is_user_pc(pc)) return nullptr;
    return &threads_.current(vcpu_)->paths.current(pc);
  }

  void book_static(const BlockRecord& block, uint32_t first, int64_t sign) {
    const std::vector<InstructionTiming>& instructions = block.timing.instructions;
    if (first >= instructions.size()) return;
    int64_t cycles = 0;
    for (size_t i = first; i < instructions.size(); ++i)
      cycles += static_cast<int64_t>(instructions[i].cost);
    const auto count =
        static_cast<uint64_t>(sign * static_cast<int64_t>(instructions.size() - first));
    Node& n = node(instructions[first].pc);
    n.instructions += count;
    n.cycles += static_cast<uint64_t>(sign * cycles);
    // By instruction: a block cut inside by a back edge books each part
    // into the path it ran in (ThreadPaths::cut_inside).
    for (size_t i = first; i < instructions.size(); ++i)
      if (PathCosts* p = path(instructions[i].pc)) {
        p->instructions += static_cast<uint64_t>(sign);
        p->cycles += static_cast<uint64_t>(sign * static_cast<int64_t>(instructions[i].cost));
      }
  }

  ThreadTable& threads_;
  unsigned int vcpu_;
  bool paths_;
};

}  // namespace

ContextMetrics::ContextMetrics(size_t vcpus, bool paths, contexts::ProcedureLoops::ReadWord read)
    : threads_(vcpus), paths_(paths), follower_(vcpus, std::move(read)) {
  for (size_t v = 0; v < vcpus; ++v)
    observers_.push_back(std::make_unique<Booking>(threads_, static_cast<unsigned int>(v), paths));
}

void ContextMetrics::block_head(unsigned int vcpu, const BlockRecord& block) {
  const uint64_t pc = block.timing.pc;
  if (!truth::is_user_pc(pc)) return;
  contexts::ContextThread& thread = *threads_.current(vcpu);
  thread.tree.user_block(pc);
  if (!paths_) return;
  follower_.block_head(vcpu, thread, pc, block.timing.instructions.back().pc);
}

void ContextMetrics::stopped_before(unsigned int vcpu, uint64_t pc) {
  if (paths_ && truth::is_user_pc(pc)) threads_.current(vcpu)->paths.stopped_before(pc);
}

void ContextMetrics::transfer(unsigned int vcpu, contexts::TransferKind kind, uint64_t pc,
                              uint64_t sp) {
  contexts::ThreadContexts& tree = threads_.current(vcpu)->tree;
  if (kind == contexts::TransferKind::kCall) tree.call(pc, sp);
  if (kind == contexts::TransferKind::kReturn) tree.ret(sp);
  if (kind == contexts::TransferKind::kCoroutine) tree.coroutine(pc, sp);
  if (kind == contexts::TransferKind::kJump) tree.tail_jump(sp);  // the plugin checked the target
}

bool ContextMetrics::at_frame_sp(unsigned int vcpu, uint64_t sp) {
  return threads_.current(vcpu)->tree.at_frame_sp(sp);
}

bool ContextMetrics::write(const std::string& path) const {
  return contexts::write_contexts_file(path, DCPI_CONTEXTS_MACHINE_EV5, threads_.entries());
}

bool ContextMetrics::write_paths(const std::string& path) {
  threads_.finish_paths();
  return contexts::write_paths_file(path, DCPI_CONTEXTS_MACHINE_EV5, threads_.entries());
}

}  // namespace dcpi::ev5
