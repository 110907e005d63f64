// The exact path profile of one thread (seed 002 §2, Ball-Larus paths with
// hardware metrics): each activation's current path, its metrics while it
// runs, and the distinct paths with their counts. Path boundaries are the
// activation's entry, its return and every back edge of its procedure's
// graph (procedure_loops.h), also a fall-through inside a block. No QEMU
// here: the ev5 plugin (ev5/context_metrics.h) feeds it block heads after
// the calling context tree resolved them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace dcpi::contexts {

struct PathCosts {
  uint64_t count = 0, instructions = 0, cycles = 0;
  uint64_t dcache_misses = 0, icache_misses = 0, dtb_misses = 0, mispredicts = 0;
  PathCosts& operator+=(const PathCosts& other);
};

struct PathKey {
  uint64_t procedure = 0, start = 0, end = 0;
  std::vector<std::pair<uint64_t, uint64_t>> edges;  // taken transfers, in order
  auto tie() const { return std::tie(procedure, start, end, edges); }
  bool operator<(const PathKey& other) const { return tie() < other.tie(); }
};

class ThreadPaths {
 public:
  // Frame `serial` (ThreadContexts::frame_serial) runs procedure `entry`
  // from its first instruction `pc`; the root frame has serial 0.
  // `frames`: the serials of the activations now live, outermost first:
  // the paths of those that left are finished (a return, a longjmp).
  void sync(const std::vector<uint64_t>& frames, uint64_t entry, uint64_t pc);
  // Whether control going from `from` to `to` in procedure `entry` ends a path.
  using EndsPath = std::function<bool(uint64_t entry, uint64_t from, uint64_t to)>;
  // The current activation's next block starts at `pc` and runs to `last`.
  void block(uint64_t pc, uint64_t last, const EndsPath& ends_path);
  // Back edges inside that block (fall-throughs, ascending: procedure_loops.h
  // fall_through_back_edges): its path ends at each and the next starts
  // after it. The block's costs are booked by instruction (current(pc)), so
  // each lands in the path its instruction ran in.
  void cut_inside(uint64_t first, const std::vector<uint64_t>& sources);
  // The procedure (entry) the current activation runs; 0 if none or unknown.
  uint64_t procedure() const { return stack_.empty() ? 0 : stack_.back().key.procedure; }
  // For a machine that follows every instruction: the activation falls
  // through to `pc` from the instruction before it (no block head between).
  bool falls_through_to(uint64_t pc) const {
    return !stack_.empty() && !stack_.back().fresh && pc == stack_.back().last + 4;
  }
  // ... across a back edge: the path ends there and the next starts at `pc`.
  void restart_at(uint64_t pc);
  // An exact exit left a block before `pc`, which runs again as a block's
  // head: no transfer.
  void stopped_before(uint64_t pc);
  // For a machine that follows every instruction (the contexts plugin on
  // qemu): the current activation ran the user instruction at `pc`, so a
  // block left early (a fault) is seen where it stopped. A block head at
  // the instruction last run is that instruction again (after a fault), no
  // transfer.
  void ran(uint64_t pc) {
    if (!stack_.empty()) stack_.back().last = pc;
  }
  // Where a user instruction's metrics go now; with its `pc`, the path it
  // ran in when its block was cut inside (cut_inside).
  PathCosts& current();
  PathCosts& current(uint64_t pc);
  // Finishes every path still running (the run ended).
  void finish_all();
  const std::map<PathKey, PathCosts>& paths() const { return paths_; }

 private:
  struct Active {
    uint64_t serial = 0;
    PathKey key;
    uint64_t last = 0;  // the last instruction run in this activation
    bool fresh = true;  // no block run yet: its first is the entry
    PathCosts costs;
  };
  void finish(Active& active);
  void finish_cut();  // the paths cut_inside ended: complete now
  std::vector<Active> stack_;
  // Paths cut_inside ended in the block running now, each with the last
  // instruction it holds: their costs may still come (current(pc)).
  struct CutPath {
    PathKey key;
    PathCosts costs;
  };
  std::vector<CutPath> cut_;
  uint64_t cut_first_ = 0;  // the first instruction of the block they were cut in
  uint64_t resume_ = 1;     // odd: none
  std::map<PathKey, PathCosts> paths_;
};

}  // namespace dcpi::contexts
