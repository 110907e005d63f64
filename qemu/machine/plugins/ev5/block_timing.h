// The static part of a translation block's 21164 timing, computed once when
// QEMU translates it (isa/ev5_slotting.h's issue rules): per instruction its
// cycles at the head of the issue queue (0 when it issues with its
// predecessor) and why, and what the run-time model must watch (memory
// accesses, the first reader of a loaded register, the first multiply).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "isa/stall_causes.h"
#include "qemu/machine/plugins/ev5/jump_predictor.h"

namespace dcpi::ev5 {

// The one list of causes (slot, dep, the busy units, the §6.3 misses, other).
using isa::StallCause;
inline constexpr uint64_t kNoCulprit = ~0ull;  // a stall with no culprit PC

struct StaticStall {
  StallCause cause = StallCause::kSlotting;  // as the truth books it (isa::booked_as)
  uint32_t cycles = 0;
  uint64_t culprit = kNoCulprit;  // the producer's PC for dependencies
};

// What the callbacks read at every access and first reader (pc, the
// offset, the reads, the load's destination) fills the first 32 bytes, and
// the alignment keeps those in one host cache line; the static stalls, read
// only by the truth and at exact exits, come last (issue 31).
struct alignas(32) InstructionTiming {
  uint64_t pc = 0;
  uint64_t reads = 0;   // register slots read (bit n: integer n, bit 32+n: FP n)
  uint32_t cost = 1;    // static cycles at the head of the issue queue
  uint32_t offset = 0;  // static cycle it issues at, counted from the block's entry
  // The icount charge's immediate: cost - 1, on top of the unit icount
  // counts for every instruction; -1 for one that issues with its
  // predecessor (its unit given back at itself). A refund at the
  // predecessor instead returned the unit before a deadline on the
  // co-issued instruction was judged, and the exit that leaves a block whose
  // deadline lies further on (QEMU's step exit) then counted it twice: the
  // next instruction lost all its samples to the one after it.
  int32_t charge = 0;
  bool load = false, store = false;
  uint8_t destination = 0xff;  // register slot a load writes (0xff: none)
  // First reader of a register loaded earlier in the block or live into it
  // (a load before the block may still be outstanding): it waits for the load.
  bool reads_loaded = false;
  // Its unit latency (isa/ev5.h ev5_timing): issue -> completion of an
  // operate, ProfileMe's PROFILEME_LAT2_COMPLETE (a load's is dynamic).
  uint8_t latency = 1;
  bool first_multiply = false, first_divide = false;
  // Not the block's first, and the first of an I-cache line (32 bytes): a
  // miss of its line stalls the fetch here (vcpu_model.h).
  bool starts_line = false;
  // The first of an issue group (the instructions issued in one cycle):
  // how many it has (1-4); 0 for the others (counter 1's issue-width
  // cycles, perf_counters.h).
  uint8_t issue_width = 0;
  uint8_t stall_count = 0;
  uint64_t writes = 0;  // register slots written
  StaticStall stalls[2] = {};
};

struct BlockTiming {
  uint64_t pc = 0;
  std::vector<InstructionTiming> instructions;
  uint32_t static_cycles = 0;     // sum of the costs
  uint64_t live_in = 0;           // register slots read before the block writes them
  bool ends_in_transfer = false;  // its last instruction is a branch, jump or CALL_PAL
  bool ends_in_conditional_branch = false;
  uint64_t branch_target = 0;
  // Its last instruction's jump-target prediction (jump_predictor.h): the
  // kind, and for JMP/JSR the target its hint predicts.
  JumpKind jump = JumpKind::kNone;
  uint64_t hint_target = 0;
  // From the first multiply's (divide's) issue to the unit being free.
  uint32_t multiplier_span = 0, divider_span = 0;

  uint64_t fall_through() const { return pc + 4 * instructions.size(); }
};

// `words[i]` is the instruction at pc + 4 i.
BlockTiming time_block(uint64_t pc, std::span<const uint32_t> words);

}  // namespace dcpi::ev5
