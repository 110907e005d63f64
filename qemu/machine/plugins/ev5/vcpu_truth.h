// What one vCPU's run-time model observed, for the truth file: dynamic stall
// cycles by (charged PC, cause, culprit), cycle corrections from exact exits,
// which of them a sample could see, control transfers between blocks, block
// entries and exact-exit cuts, and event counts. Every PC is booked as its
// truth key (truth_space.h): a user PC with the address space it ran in.
// Touched only by its own vCPU while the guest runs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "firmware/profileme.h"
#include "qemu/machine/plugins/ev5/block_record.h"
#include "qemu/machine/plugins/ev5/block_timing.h"
#include "qemu/machine/plugins/ev5/count_cache.h"
#include "qemu/machine/plugins/ev5/perf_counters.h"
#include "qemu/machine/plugins/ev5/sample_visibility.h"
#include "qemu/machine/truth/truth_space.h"

namespace dcpi::ev5 {

using truth::is_user_pc;
using truth::truth_key;
using truth::truth_pc_of;
using truth::truth_space_of;
using truth::TruthSpaces;

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    return std::hash<uint64_t>()(p.first * 0x9e3779b97f4a7c15ull ^ p.second);
  }
};

using StallKey = std::tuple<uint64_t, StallCause, uint64_t>;  // (pc, cause, culprit)

struct StallKeyHash {
  size_t operator()(const StallKey& k) const {
    return std::hash<uint64_t>()(std::get<0>(k) * 0x9e3779b97f4a7c15ull ^ std::get<2>(k) * 31 ^
                                 static_cast<uint64_t>(std::get<1>(k)));
  }
};

// Block entries and exact-exit cuts of one address space (block_record.h
// counts them for all spaces together): instruction i of a block ran
// entries - sum(cuts[0..i]) times in it.
struct SpaceBlockCounts {
  std::unordered_map<const BlockRecord*, uint64_t> entries;
  std::map<std::pair<const BlockRecord*, uint32_t>, uint64_t> cuts;
};

// Told every booking as it happens, by the PC it is booked at (not its
// truth key): the calling contexts of the run (context_metrics.h, issue 28)
// book the same cycles, instructions and events to the context running.
struct TruthObserver {
  virtual ~TruthObserver() = default;
  virtual void entered(const BlockRecord& block) = 0;  // each instruction once, its cost
  virtual void cut(const BlockRecord& block, uint32_t index) = 0;  // [index, end) did not run
  virtual void cycles(uint64_t pc, int64_t cycles) = 0;
  virtual void event(uint64_t pc, ModelEvent event) = 0;
  // A stall booked at `pc` (also told as cycles()), with its cause.
  virtual void stalled(uint64_t, StallCause, uint64_t) {}
  // A mispredicted branch's wrong path was fetched and squashed: `count`
  // instructions from `start` (firmware/profileme.h PROFILEME_WRONG_PATH_*).
  virtual void squashed(uint64_t, uint32_t) {}
  // The load at `pc` got its data `cycles` after it issued (issue 27).
  virtual void load_returned(uint64_t, uint64_t) {}
  // The instruction at `pc` trapped into PALcode (PROFILEME_BIT_TRAP);
  // `ran`: it completed before the trap (an arithmetic trap, a memory
  // fault QEMU reported at its access).
  virtual void trapped(uint64_t, bool) {}
};

// Fetch -> slot: what kept an instruction from reaching the issue stage
// (its line, its page, the restart after a mispredict); every other stall
// is slot -> issue (seed 004 Table 1's map -> data-ready -> issue on the
// 21264, one in-order wait on the 21164).
inline bool is_fetch_stall(StallCause cause) {
  return cause == StallCause::kICacheMiss || cause == StallCause::kItbMiss ||
         cause == StallCause::kBranchMispredict;
}

// ProfileMe's latency truths (issue 27 items 1 and 4), per truth key, booked
// once the unit was armed: the loads' issue -> data cycles summed and their
// log2 buckets, each execution's slot -> issue stall in its bucket (the
// stalls of one execution are booked one after another at its PC, so the
// sum ends at the next PC's stall or block entry), and the traps.
struct LatencyTruth {
  CountMap<uint64_t, std::hash<uint64_t>> load_cycles, traps;
  CountMap<std::pair<uint64_t, uint64_t>, PairHash> load_buckets, stall_buckets;  // (key, k)

  void load(uint64_t key, uint64_t cycles) {
    load_cycles[key] += cycles;
    if (cycles) ++load_buckets[{key, profileme_latency_bucket(cycles)}];
  }
  void stall(uint64_t key, uint64_t cycles) {
    if (key != stalling_key_) end_execution();
    stalling_key_ = key;
    stalling_ += cycles;
  }
  // The execution whose stalls were being summed is over.
  void end_execution() {
    if (stalling_) ++stall_buckets[{stalling_key_, profileme_latency_bucket(stalling_)}];
    stalling_ = 0;
    stalling_key_ = 1;  // odd: no instruction's key
  }

 private:
  uint64_t stalling_key_ = 1, stalling_ = 0;
};

// The instructions a mispredict's wrong path fetches from `start`: the rest
// of its aligned block of four and the next blocks, PROFILEME_WRONG_PATH_BLOCKS
// in all (firmware/profileme.h).
inline uint32_t wrong_path_length(uint64_t start) {
  return 4 * PROFILEME_WRONG_PATH_BLOCKS - static_cast<uint32_t>((start >> 2) & 3);
}

struct VcpuTruth {
  TruthObserver* observer = nullptr;      // none unless dcpi run --contexts
  TruthObserver* profile_unit = nullptr;  // ProfileMe's (profile_unit.h), when armed ever
  TruthObserver* issue_slots = nullptr;   // issue_slots.h, when paired ProfileMe was armed
  // Whether the bookings are kept for a truth file (the plugin's out=PATH).
  // Without one they are only told to the observers above and the sample
  // visibility: nobody reads the maps, whose hashed counts at every block,
  // stall and access were a sixth of a 4-CPU run's host time (issue 31).
  bool recording = true;
  uint64_t itb_miss = 0, dtb_miss = 0, mispredict = 0, exact_exits = 0, halted = 0;
  uint64_t pc_mispredict = 0;  // jump targets mispredicted (jump_predictor.h)
  uint64_t load_replays = 0;   // loads replayed after a store (VcpuModel)
  // Which of the cycles booked here a sample can land on (before the maps,
  // whose pointer caches are kilobytes: its `enabled` is read every entry).
  SampleVisibility visibility;
  CountMap<StallKey, StallKeyHash> stalls;
  std::map<uint64_t, int64_t> cycle_corrections;  // pc -> cycles
  CountMap<std::pair<uint64_t, uint64_t>, PairHash> edges;
  // Per truth space (0: kernel and PALcode blocks, and user ones before
  // the first swpctx); complete after settle().
  std::map<uint32_t, SpaceBlockCounts> blocks;

  uint64_t key(uint64_t pc) const { return truth_key(pc, space_); }
  // Called at every access with its (mostly zero) waits: the test inline,
  // the booking out of line (issue 31).
  void stall(uint64_t pc, StallCause cause, uint64_t culprit, uint64_t cycles) {
    if (cycles) book_stall(pc, cause, culprit, cycles);
  }
  [[gnu::noinline]] void book_stall(uint64_t pc, StallCause cause, uint64_t culprit,
                                    uint64_t cycles) {
    if (recording)
      stalls[{key(pc), cause, culprit == kNoCulprit ? culprit : key(culprit)}] += cycles;
    visibility.book(pc, static_cast<int64_t>(cycles));
    if (observer) observer->cycles(pc, static_cast<int64_t>(cycles));
    if (profile_unit) {
      profile_unit->stalled(pc, cause, cycles);
      if (recording && !is_fetch_stall(cause)) latency.stall(key(pc), cycles);
    }
    if (issue_slots) issue_slots->stalled(pc, cause, cycles);
  }
  LatencyTruth latency;
  // The load at `pc` issued and got its data `cycles` later.
  void load_returned(uint64_t pc, uint64_t cycles) {
    if (!profile_unit) return;
    if (recording) latency.load(key(pc), cycles);
    profile_unit->load_returned(pc, cycles);
  }
  void trap(uint64_t pc, bool ran = false) {
    if (!profile_unit) return;
    if (recording) ++latency.traps[key(pc)];
    profile_unit->trapped(pc, ran);
  }
  // Events per PC (its truth key), where the model counts them for counters
  // 1 and 2: the truth's `pcevent` lines.
  CountMap<std::pair<uint64_t, uint64_t>, PairHash> events;  // (key, ModelEvent)
  void event(uint64_t pc, ModelEvent e) {
    if (recording) ++events[{key(pc), static_cast<uint64_t>(e)}];
    if (observer) observer->event(pc, e);
    if (profile_unit) profile_unit->event(pc, e);
  }
  // `n` of counter 1 and 2's issue events (non-issue cycles, long stalls)
  // at `pc`: the truth's only (the observers have no such events).
  void count_event(uint64_t pc, ModelEvent e, uint64_t n) {
    if (recording && n) events[{key(pc), static_cast<uint64_t>(e)}] += n;
  }
  // Counter 1's loads and stores: booked like the others, but nobody else
  // watches them (the contexts and ProfileMe have no such event). One at
  // every load and store of the run: counted by instruction of its block in
  // a dense array, as the entries are, and moved into `events` at the next
  // switch or settle() (a hashed count cost 12 % of a 4-CPU run's host time,
  // perf, issue 31). `index` names the instruction in `block`.
  void access(const BlockRecord& block, uint32_t index, bool store) {
    if (!recording) return;
    if (block.id >= accesses_now_.size()) accesses_now_.resize(block.id * 2 + 64);
    std::vector<uint64_t>& counts = accesses_now_[block.id];
    if (counts.empty()) counts.resize(2 * block.timing.instructions.size());
    const uint32_t slot = 2 * index + (store ? 1 : 0);
    if (counts[slot]++ == 0) touched_accesses_.push_back({&block, slot});
  }
  void correct(uint64_t pc, int64_t cycles) {
    if (recording) cycle_corrections[key(pc)] += cycles;
    visibility.book(pc, cycles);
    if (observer) observer->cycles(pc, cycles);
  }
  void edge(uint64_t from, uint64_t to) {
    if (recording) ++edges[{key(from), key(to)}];
  }
  // ProfileMe's truth of the wrong path (issue 27 item 1): the squashed
  // fetches per PC (truth key), booked once the unit was armed.
  CountMap<uint64_t, std::hash<uint64_t>> squashed_fetches;
  void squash(uint64_t start) {
    if (!profile_unit) return;
    const uint32_t count = wrong_path_length(start);
    if (recording)
      for (uint32_t i = 0; i < count; ++i) ++squashed_fetches[key(start + 4 * i)];
    profile_unit->squashed(start, count);
  }
  // The CPU slept (wtint; reported at `pc`): its cycle counter ran on.
  void sleep(uint64_t pc, uint64_t cycles) {
    if (recording) cycle_corrections[key(pc)] += static_cast<int64_t>(cycles);
    halted += cycles;
    visibility.book_sleep(static_cast<int64_t>(cycles));
    if (observer) observer->cycles(pc, static_cast<int64_t>(cycles));
  }
  // The hot path: one entry of `block` (its id indexes a dense counter,
  // moved into `blocks` at the next switch or settle()).
  void enter(const BlockRecord& block) {
    if (recording) {
      if (block.id >= entries_now_.size()) entries_now_.resize(block.id * 2 + 64);
      if (entries_now_[block.id]++ == 0) touched_.push_back(&block);
    }
    if (observer) observer->entered(block);
    if (profile_unit) {
      if (recording) latency.end_execution();
      profile_unit->entered(block);
    }
    if (issue_slots) issue_slots->entered(block);
  }
  void cut(const BlockRecord& block, uint32_t index) {
    if (recording) ++blocks[space_for(block)].cuts[{&block, index}];
    if (observer) observer->cut(block, index);
    if (profile_unit) profile_unit->cut(block, index);
    if (issue_slots) issue_slots->cut(block, index);
  }
  // The CPU runs truth space `space` from now on (swpctx).
  void switch_space(uint32_t space) {
    settle();
    space_ = space;
    visibility.set_space(space);
  }
  void settle() {
    latency.end_execution();
    for (const BlockRecord* block : touched_) {
      blocks[space_for(*block)].entries[block] += entries_now_[block->id];
      entries_now_[block->id] = 0;
    }
    touched_.clear();
    for (const TouchedAccess& a : touched_accesses_) {
      uint64_t& n = accesses_now_[a.block->id][a.slot];
      const ModelEvent e = (a.slot & 1) ? ModelEvent::kStore : ModelEvent::kLoad;
      events[{key(a.block->timing.instructions[a.slot / 2].pc), static_cast<uint64_t>(e)}] += n;
      n = 0;
    }
    touched_accesses_.clear();
  }

 private:
  uint32_t space_for(const BlockRecord& block) const {
    return is_user_pc(block.timing.pc) ? space_ : 0;
  }
  uint32_t space_ = 0;
  std::vector<uint64_t> entries_now_;
  std::vector<const BlockRecord*> touched_;
  // Loads and stores since the last settle(), by block id: [2 index + store].
  struct TouchedAccess {
    const BlockRecord* block;
    uint32_t slot;
  };
  std::vector<std::vector<uint64_t>> accesses_now_;
  std::vector<TouchedAccess> touched_accesses_;
};

}  // namespace dcpi::ev5
