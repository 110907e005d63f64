#include "qemu/machine/plugins/contexts/thread_paths.h"

namespace dcpi::contexts {

PathCosts& PathCosts::operator+=(const PathCosts& other) {
  count += other.count;
  instructions += other.instructions;
  cycles += other.cycles;
  dcache_misses += other.dcache_misses;
  icache_misses += other.icache_misses;
  dtb_misses += other.dtb_misses;
  mispredicts += other.mispredicts;
  return *this;
}

void ThreadPaths::sync(const std::vector<uint64_t>& frames, uint64_t entry, uint64_t pc) {
  finish_cut();
  size_t keep = 0;
  while (keep < stack_.size() && keep < frames.size() && stack_[keep].serial == frames[keep])
    ++keep;
  while (stack_.size() > keep) {
    finish(stack_.back());
    stack_.pop_back();
  }
  for (size_t i = keep; i < frames.size(); ++i) {
    Active active;
    active.serial = frames[i];
    active.key.procedure = i + 1 == frames.size() ? entry : 0;
    active.key.start = pc;
    stack_.push_back(std::move(active));
  }
}

// Seed 002 §2: a back edge ends the path and starts the next at its
// target; another taken transfer is recorded; a fall-through is implied.
void ThreadPaths::block(uint64_t pc, uint64_t last, const EndsPath& ends_path) {
  finish_cut();
  if (stack_.empty()) return;
  Active& active = stack_.back();
  const bool resumed = pc == resume_ || pc == active.last;
  resume_ = 1;
  if (active.fresh || resumed) {
    active.fresh = false;
  } else if (ends_path(active.key.procedure, active.last, pc)) {
    finish(active);
    active.key.start = pc;
  } else if (pc != active.last + 4) {
    active.key.edges.emplace_back(active.last, pc);
  }
  active.last = last;
}

void ThreadPaths::stopped_before(uint64_t pc) {
  if (stack_.empty()) return;
  // A cut at or after `pc` was not reached: that path runs on.
  Active& active = stack_.back();
  while (!cut_.empty() && cut_.back().key.end >= pc) {
    cut_.back().costs += active.costs;
    active.key = cut_.back().key;
    active.costs = cut_.back().costs;
    cut_.pop_back();
  }
  resume_ = pc;
  stack_.back().last = pc - 4;  // where the activation stands if it never resumes
}

PathCosts& ThreadPaths::current() {
  static PathCosts nowhere;  // before the first user block (kernel threads)
  return stack_.empty() ? nowhere : stack_.back().costs;
}

PathCosts& ThreadPaths::current(uint64_t pc) {
  if (pc >= cut_first_)
    for (CutPath& cut : cut_)
      if (pc <= cut.key.end) return cut.costs;
  return current();
}

void ThreadPaths::cut_inside(uint64_t first, const std::vector<uint64_t>& sources) {
  if (stack_.empty() || sources.empty()) return;
  cut_first_ = first;
  Active& active = stack_.back();
  for (uint64_t source : sources) {
    cut_.push_back(CutPath{active.key, active.costs});
    cut_.back().key.end = source;
    active.key.start = source + 4;
    active.key.edges.clear();
    active.costs = PathCosts{};
  }
}

void ThreadPaths::restart_at(uint64_t pc) {
  if (stack_.empty()) return;
  Active& active = stack_.back();
  finish(active);
  active.key.start = pc;
}

void ThreadPaths::finish_cut() {
  for (CutPath& cut : cut_) {
    cut.costs.count = 1;
    paths_[cut.key] += cut.costs;
  }
  cut_.clear();
}

void ThreadPaths::finish(Active& active) {
  active.key.end = active.last;
  active.costs.count = 1;
  paths_[active.key] += active.costs;
  active.key.edges.clear();
  active.costs = PathCosts{};
}

void ThreadPaths::finish_all() {
  finish_cut();
  while (!stack_.empty()) {
    finish(stack_.back());
    stack_.pop_back();
  }
}

}  // namespace dcpi::contexts
