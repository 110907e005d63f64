// The 21164 (EV5) issue rules for one straight-line block (DCPI §6.1.3: "M_i
// is obtained by scheduling each basic block using a model of the
// processor"; §6.3 static stalls): in-order issue of up to two integer and two
// FP instructions per cycle from one naturally aligned block of four
// instructions (16 bytes); the next fetch block is not started until every
// instruction of the current one has issued. Pipes and latencies are ev5.h's.
//
// The one scheduler: dcpicalc's EV5 model (analysis/calc/model/ev5_model.cpp) and
// the EV5 timing plugin (qemu/machine/plugins/ev5/) both feed it one instruction at a
// time. Freestanding and constexpr (no heap, no library): operands are
// register slots 0-63 (integer 0-31, FP 32-63; R31 and F31 are never
// dependencies).
#pragma once
#include <bit>
#include <cstdint>

#include "isa/ev5.h"
#include "isa/stall_causes.h"

namespace dcpi::isa {

inline constexpr uint32_t kEv5NoCulprit = 0xffffffffu;
inline constexpr uint8_t kEv5NoRegister = 0xff;

struct Ev5Stall {
  StallCause reason = StallCause::kSlotting;  // a static cause (stall_causes.h)
  uint32_t cycles = 0;                        // extra cycles at the head (0: a lost issue slot)
  uint32_t culprit = kEv5NoCulprit;  // index in the block of the instruction that caused it
  uint8_t operand = kEv5NoRegister;  // for dependencies: which source (0-2) waited
};

// One instruction as the scheduler sees it.
struct Ev5Instruction {
  uint64_t address = 0;
  Ev5Class ev5_class = Ev5Class::kIadd;
  uint8_t sources[3] = {kEv5NoRegister, kEv5NoRegister, kEv5NoRegister};  // register slots
  uint8_t destination = kEv5NoRegister;
};

// Where one instruction issued and why it waited.
struct Ev5Issue {
  uint32_t issue_cycle = 0;  // relative to the block's first issue cycle, 0
  uint32_t head_cycles = 0;  // M_i: 0 when issued in the same cycle as its predecessor
  Ev5Stall stalls[2] = {};
  uint8_t stall_count = 0;
};

constexpr bool ev5_is_zero_slot(uint8_t slot) { return slot == 31 || slot == 63; }

// The pipes taken by one issue group; a group fits if some assignment of its
// instructions to pipes exists.
struct Ev5GroupPipes {
  int e0_only = 0, e1_only = 0, either_int = 0;
  int fa_only = 0, fm_only = 0, either_fp = 0;
  bool has_load = false, has_store = false;

  constexpr void add(Ev5Class c) {
    const Ev5Timing t = ev5_timing(c);
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
    has_load = has_load || ev5_is_load(c);
    has_store = has_store || ev5_is_store(c);
  }
  constexpr bool fits(bool e0_reserved) const {
    const int int_pipes = e0_reserved ? 1 : 2;
    if (e0_reserved && e0_only > 0) return false;
    return e0_only <= 1 && e1_only <= 1 && e0_only + e1_only + either_int <= int_pipes &&
           fa_only <= 1 && fm_only <= 1 && fa_only + fm_only + either_fp <= 2 &&
           !(has_load && has_store);
  }
};

// Schedules a block one instruction at a time, in order. Producers before the
// block are assumed ready and the non-pipelined units free at its start.
class Ev5BlockScheduler {
 public:
  constexpr Ev5BlockScheduler() = default;

  constexpr Ev5Issue issue(const Ev5Instruction& in) {
    const uint32_t index = count_++;
    if (in_group_ && in.address / kFetchBlockBytes == group_fetch_block_) {
      const Readiness ready = readiness(in);
      Ev5GroupPipes with = group_pipes_;
      with.add(in.ev5_class);
      if (!with.fits(e0_reserved(group_cycle_))) {
        why_not_joined_ = Ev5Stall{.reason = StallCause::kSlotting};
        has_why_not_joined_ = true;
      } else if (ready.cycle > group_cycle_) {
        why_not_joined_ = ready.binding;
        has_why_not_joined_ = true;
      } else {
        group_pipes_ = with;
        commit(in, index, group_cycle_);
        in_group_ = !ends_issue_group(in.ev5_class);
        return Ev5Issue{.issue_cycle = static_cast<uint32_t>(group_cycle_), .head_cycles = 0};
      }
    }
    return lead_group(in, index);
  }

  // Cycles from the first issue to the last group's issue, plus one.
  constexpr uint32_t best_case_cycles() const { return static_cast<uint32_t>(previous_group_ + 1); }

  // Back to a new scheduler's state, for the next block: clears only the
  // producers and reservations the last block set (issue 31: constructing
  // a scheduler per block, 64 producers and 16 reservations each, was two
  // fifths of calc's EV5 schedule).
  constexpr void reset() {
    for (uint64_t slots = written_; slots != 0; slots &= slots - 1)
      producers_[std::countr_zero(slots)] = Producer{};
    if (any_reserved_)
      for (int i = 0; i < kReservations; ++i) reserved_[i] = 0, reserved_valid_[i] = false;
    written_ = 0;
    any_reserved_ = false;
    multiplier_free_ = divider_free_ = 0;
    last_multiply_ = last_divide_ = kEv5NoCulprit;
    count_ = 0;
    cycle_ = 0;
    previous_group_ = -1;
    in_group_ = false;
    group_fetch_block_ = 0;
    group_cycle_ = 0;
    group_pipes_ = Ev5GroupPipes{};
    why_not_joined_ = Ev5Stall{};
    has_why_not_joined_ = false;
  }

 private:
  static constexpr uint64_t kFetchBlockBytes = 16;
  static constexpr int kReservations = 16;

  struct Producer {
    bool valid = false;
    uint32_t index = 0;
    uint64_t issue = 0;
    Ev5Class ev5_class = Ev5Class::kIadd;
  };
  struct Readiness {
    uint64_t cycle = 0;
    Ev5Stall binding{};
    bool bound = false;
  };

  constexpr Ev5Issue lead_group(const Ev5Instruction& in, uint32_t index) {
    Readiness ready = readiness(in);
    uint64_t issue = cycle_ > ready.cycle ? cycle_ : ready.cycle;
    while (ev5_timing(in.ev5_class).pipes == kPipeE0 && e0_reserved(issue)) {
      ready.binding = Ev5Stall{.reason = StallCause::kMultiplyWritebackE0};
      ready.bound = true;
      ++issue;
    }
    Ev5Issue result{
        .issue_cycle = static_cast<uint32_t>(issue),
        .head_cycles = static_cast<uint32_t>(static_cast<int64_t>(issue) - previous_group_)};
    if (has_why_not_joined_) result.stalls[result.stall_count++] = why_not_joined_;
    if (result.head_cycles > 1 && ready.bound) {
      Ev5Stall stall = ready.binding;
      stall.cycles = result.head_cycles - 1;
      Ev5Stall* last = result.stall_count ? &result.stalls[result.stall_count - 1] : nullptr;
      if (last && last->reason == stall.reason && last->culprit == stall.culprit)
        *last = stall;
      else
        result.stalls[result.stall_count++] = stall;
    }
    has_why_not_joined_ = false;
    group_pipes_ = Ev5GroupPipes{};
    group_pipes_.add(in.ev5_class);
    group_fetch_block_ = in.address / kFetchBlockBytes;
    group_cycle_ = issue;
    in_group_ = !ends_issue_group(in.ev5_class);
    commit(in, index, issue);
    previous_group_ = static_cast<int64_t>(issue);
    cycle_ = issue + 1;
    return result;
  }

  // A CALL_PAL traps into PALcode: the instruction after it is fetched only
  // when PAL returns, so it starts a new issue group (the model's block ends
  // there; the truth has it issue alone after the return).
  static constexpr bool ends_issue_group(Ev5Class c) { return c == Ev5Class::kCallPal; }

  constexpr Readiness readiness(const Ev5Instruction& in) const {
    Readiness r;
    auto consider = [&r](uint64_t cycle, Ev5Stall reason) {
      if (cycle > r.cycle) {
        r.cycle = cycle;
        r.binding = reason;
        r.bound = true;
      }
    };
    for (uint8_t s = 0; s < 3; ++s) {
      const uint8_t slot = in.sources[s];
      if (slot >= 64 || ev5_is_zero_slot(slot) || !producers_[slot].valid) continue;
      const Producer& p = producers_[slot];
      consider(p.issue + ev5_latency(p.ev5_class, in.ev5_class),
               Ev5Stall{.reason = StallCause::kDependency, .culprit = p.index, .operand = s});
    }
    if (ev5_multiplier_busy(in.ev5_class))
      consider(multiplier_free_,
               Ev5Stall{.reason = StallCause::kMultiplierBusy, .culprit = last_multiply_});
    if (ev5_divider_busy(in.ev5_class))
      consider(divider_free_,
               Ev5Stall{.reason = StallCause::kFpDividerBusy, .culprit = last_divide_});
    return r;
  }

  constexpr void commit(const Ev5Instruction& in, uint32_t index, uint64_t cycle) {
    if (in.destination < 64 && !ev5_is_zero_slot(in.destination)) {
      producers_[in.destination] = Producer{true, index, cycle, in.ev5_class};
      written_ |= uint64_t{1} << in.destination;
    }
    if (const uint8_t busy = ev5_multiplier_busy(in.ev5_class)) {
      multiplier_free_ = cycle + busy;
      last_multiply_ = index;
      reserve_e0(cycle + ev5_multiply_writeback_offset(in.ev5_class));
    }
    if (const uint8_t busy = ev5_divider_busy(in.ev5_class)) {
      divider_free_ = cycle + busy;
      last_divide_ = index;
    }
  }

  // Reservations in the past never matter again: a full table overwrites the
  // oldest.
  constexpr void reserve_e0(uint64_t cycle) {
    int oldest = 0;
    for (int i = 0; i < kReservations; ++i) {
      if (!reserved_valid_[i]) {
        oldest = i;
        break;
      }
      if (reserved_[i] < reserved_[oldest]) oldest = i;
    }
    reserved_[oldest] = cycle;
    reserved_valid_[oldest] = true;
    any_reserved_ = true;
  }
  // Asked before every E0 issue; most blocks have no multiply, so no
  // reservation to look through (issue 31).
  constexpr bool e0_reserved(uint64_t cycle) const {
    if (!any_reserved_) return false;
    for (int i = 0; i < kReservations; ++i)
      if (reserved_valid_[i] && reserved_[i] == cycle) return true;
    return false;
  }

  Producer producers_[64] = {};
  uint64_t written_ = 0;  // producers_ set since the last reset (bit: slot)
  uint64_t reserved_[kReservations] = {};
  bool reserved_valid_[kReservations] = {};
  bool any_reserved_ = false;  // some reserved_valid_ is set
  uint64_t multiplier_free_ = 0, divider_free_ = 0;
  uint32_t last_multiply_ = kEv5NoCulprit, last_divide_ = kEv5NoCulprit;
  uint32_t count_ = 0;
  uint64_t cycle_ = 0;
  int64_t previous_group_ = -1;
  bool in_group_ = false;
  uint64_t group_fetch_block_ = 0;
  uint64_t group_cycle_ = 0;
  Ev5GroupPipes group_pipes_{};
  Ev5Stall why_not_joined_{};
  bool has_why_not_joined_ = false;
};

}  // namespace dcpi::isa
