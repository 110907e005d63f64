#include "analysis/calc/ev5_model.h"

#include <algorithm>
#include <array>
#include <set>

#include "isa/ev5.h"

namespace dcpi::calc {

std::span<const DynamicStallCause> Ev5Model::dynamic_stall_causes() const {
  static constexpr std::array kCauses = {
      DynamicStallCause::kICacheMiss,       DynamicStallCause::kDCacheMiss,
      DynamicStallCause::kItbMiss,          DynamicStallCause::kDtbMiss,
      DynamicStallCause::kBranchMispredict, DynamicStallCause::kWriteBufferOverflow,
      DynamicStallCause::kMultiplierBusy,   DynamicStallCause::kFpDividerBusy};
  return kCauses;
}

namespace {

using isa::Ev5Class;
using isa::kPipeE0;
using isa::kPipeE1;
using isa::kPipeFA;
using isa::kPipeFM;

constexpr uint64_t kFetchBlockBytes = 16;

size_t register_slot(Register reg) { return reg.number + (reg.floating ? 32u : 0u); }

// The pipes taken by one issue group; a group fits if some assignment of its
// instructions to pipes exists.
struct GroupPipes {
  int e0_only = 0, e1_only = 0, either_int = 0;
  int fa_only = 0, fm_only = 0, either_fp = 0;
  bool has_load = false, has_store = false;

  void add(Ev5Class c) {
    const isa::Ev5Timing t = isa::ev5_timing(c);
    if (t.pipes == kPipeE0)
      ++e0_only;
    else if (t.pipes == kPipeE1)
      ++e1_only;
    else if (t.pipes == (kPipeE0 | kPipeE1))
      ++either_int;
    else if (t.pipes == kPipeFA)
      ++fa_only;
    else if (t.pipes == kPipeFM)
      ++fm_only;
    else
      ++either_fp;
    has_load |= isa::ev5_is_load(c);
    has_store |= isa::ev5_is_store(c);
  }
  bool fits(bool e0_reserved) const {
    const int int_pipes = e0_reserved ? 1 : 2;
    if (e0_reserved && e0_only > 0) return false;
    return e0_only <= 1 && e1_only <= 1 && e0_only + e1_only + either_int <= int_pipes &&
           fa_only <= 1 && fm_only <= 1 && fa_only + fm_only + either_fp <= 2 &&
           !(has_load && has_store);
  }
};

// The earliest cycle an instruction may issue, ignoring slotting, and the
// constraint that binds.
struct Readiness {
  uint64_t cycle = 0;
  std::optional<StaticStall> binding;  // cycles filled in by the caller
};

class BlockScheduler {
 public:
  explicit BlockScheduler(std::span<const InstructionRecord> block) : block_(block) {
    producer_.fill(kNoProducer);
  }

  BlockSchedule run() {
    BlockSchedule schedule;
    schedule.instructions.resize(block_.size());
    size_t i = 0;
    uint64_t cycle = 0;
    int64_t previous_group = -1;
    std::optional<StaticStall> why_not_joined;  // for the next group's leader
    while (i < block_.size()) {
      const uint64_t fetch_block = block_[i].address / kFetchBlockBytes;
      // The group leader waits until it is ready (and E0 is free if it needs it).
      Readiness ready = readiness(i);
      uint64_t issue = std::max(cycle, ready.cycle);
      while (needs_only_e0(i) && e0_reserved_.count(issue)) {
        ready.binding = StaticStall{.reason = StaticStallReason::kMultiplyWritebackE0};
        ++issue;
      }
      ScheduledInstruction& leader = schedule.instructions[i];
      leader.issue_cycle = static_cast<uint32_t>(issue);
      leader.head_cycles = static_cast<uint32_t>(static_cast<int64_t>(issue) - previous_group);
      if (why_not_joined) leader.stalls.push_back(*why_not_joined);
      if (leader.head_cycles > 1 && ready.binding) {
        StaticStall stall = *ready.binding;
        stall.cycles = leader.head_cycles - 1;
        if (!leader.stalls.empty() && leader.stalls.back().reason == stall.reason &&
            leader.stalls.back().culprit == stall.culprit)
          leader.stalls.back() = stall;
        else
          leader.stalls.push_back(stall);
      }
      why_not_joined.reset();
      GroupPipes pipes;
      pipes.add(block_[i].ev5_class);
      commit(i, issue);
      ++i;
      // Later instructions of the same fetch block join while they can.
      while (i < block_.size() && block_[i].address / kFetchBlockBytes == fetch_block) {
        const Readiness r = readiness(i);
        GroupPipes with = pipes;
        with.add(block_[i].ev5_class);
        if (!with.fits(e0_reserved_.count(issue) > 0)) {
          why_not_joined = StaticStall{.reason = StaticStallReason::kSlotting};
          break;
        }
        if (r.cycle > issue) {
          why_not_joined = r.binding;
          break;
        }
        pipes = with;
        schedule.instructions[i].issue_cycle = static_cast<uint32_t>(issue);
        schedule.instructions[i].head_cycles = 0;
        commit(i, issue);
        ++i;
      }
      previous_group = static_cast<int64_t>(issue);
      cycle = issue + 1;
    }
    schedule.best_case_cycles = static_cast<uint32_t>(previous_group + 1);
    return schedule;
  }

 private:
  static constexpr size_t kNoProducer = SIZE_MAX;

  bool needs_only_e0(size_t i) const {
    return isa::ev5_timing(block_[i].ev5_class).pipes == kPipeE0;
  }

  Readiness readiness(size_t i) const {
    Readiness r;
    const InstructionRecord& insn = block_[i];
    auto consider = [&](uint64_t cycle, StaticStall reason) {
      if (cycle > r.cycle) {
        r.cycle = cycle;
        r.binding = reason;
      }
    };
    for (const auto& source : {insn.source_a, insn.source_b, insn.source_c}) {
      if (!source || source->reg.is_zero()) continue;
      const size_t p = producer_[register_slot(source->reg)];
      if (p == kNoProducer) continue;  // produced before the block: assumed ready
      consider(
          issue_[p] + isa::ev5_latency(block_[p].ev5_class, insn.ev5_class),
          StaticStall{
              .reason = StaticStallReason::kDependency, .culprit = p, .operand = source->field});
    }
    if (isa::ev5_multiplier_busy(insn.ev5_class))
      consider(multiplier_free_, StaticStall{.reason = StaticStallReason::kMultiplierBusy,
                                             .culprit = last_multiply_});
    if (isa::ev5_divider_busy(insn.ev5_class))
      consider(divider_free_,
               StaticStall{.reason = StaticStallReason::kFpDividerBusy, .culprit = last_divide_});
    return r;
  }

  void commit(size_t i, uint64_t cycle) {
    const InstructionRecord& insn = block_[i];
    issue_.resize(std::max(issue_.size(), i + 1));
    issue_[i] = cycle;
    if (insn.destination && !insn.destination->is_zero())
      producer_[register_slot(*insn.destination)] = i;
    if (const uint8_t busy = isa::ev5_multiplier_busy(insn.ev5_class)) {
      multiplier_free_ = cycle + busy;
      last_multiply_ = i;
      e0_reserved_.insert(cycle + isa::ev5_multiply_writeback_offset(insn.ev5_class));
    }
    if (const uint8_t busy = isa::ev5_divider_busy(insn.ev5_class)) {
      divider_free_ = cycle + busy;
      last_divide_ = i;
    }
  }

  std::span<const InstructionRecord> block_;
  std::array<size_t, 64> producer_{};
  std::vector<uint64_t> issue_;
  uint64_t multiplier_free_ = 0, divider_free_ = 0;
  size_t last_multiply_ = kNoProducer, last_divide_ = kNoProducer;
  std::set<uint64_t> e0_reserved_;
};

}  // namespace

BlockSchedule Ev5Model::schedule_block(std::span<const InstructionRecord> block) const {
  return BlockScheduler(block).run();
}

}  // namespace dcpi::calc
