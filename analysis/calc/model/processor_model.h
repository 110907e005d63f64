// A model of the processor a profile was taken on (DESIGN §3: the stall
// analysis takes its machine model as a parameter). It statically schedules
// one basic block, assuming no dynamic stalls (DCPI §6.1.3, §6.3): for each
// instruction M_i, the minimum number of cycles it spends at the head of the
// issue queue, and why it waited (static stalls). It also says which dynamic
// stalls the machine can have at all — none, for QEMU.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "analysis/calc/model/instruction_record.h"
#include "isa/stall_causes.h"

namespace dcpi::calc {

// Stall causes, their bubble letters and names: isa/stall_causes.h, the one
// list the EV5 scheduler, the plugin's truth and the reports share.
using isa::StallCause;

struct StaticStall {
  StallCause reason = StallCause::kSlotting;  // a static cause
  uint32_t cycles = 0;            // extra cycles at the head of the queue (0: a lost issue slot)
  std::optional<size_t> culprit;  // index in the block of the instruction that caused it
  std::optional<OperandField> operand;  // for dependencies: which operand waited
};

// An instruction's static stalls, held inline: a model names at most a few
// (the 21164's scheduler two: isa::Ev5Issue), and a std::vector per
// instruction was an allocation for most instructions (issue 31).
class StaticStalls {
 public:
  static constexpr size_t kCapacity = 2;
  void push_back(const StaticStall& stall) {
    if (size_ == kCapacity) throw std::length_error("more static stalls than StaticStalls holds");
    stalls_[size_++] = stall;
  }
  const StaticStall* begin() const { return stalls_.data(); }
  const StaticStall* end() const { return stalls_.data() + size_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const StaticStall& operator[](size_t i) const { return stalls_[i]; }
  const StaticStall& back() const { return stalls_[size_ - 1]; }

 private:
  std::array<StaticStall, kCapacity> stalls_{};
  uint8_t size_ = 0;
};

struct ScheduledInstruction {
  uint32_t issue_cycle = 0;  // relative to the block's first issue cycle … of 0
  uint32_t head_cycles = 0;  // M_i: 0 when issued in the same cycle as its predecessor
  StaticStalls stalls;
};

struct BlockSchedule {
  std::vector<ScheduledInstruction> instructions;
  uint32_t best_case_cycles = 0;  // sum of M_i

  double best_case_cpi() const {
    return instructions.empty() ? 0.0 : static_cast<double>(best_case_cycles) / instructions.size();
  }
};

// [start, end): addresses the processor maps without its TBs (the Alpha's
// superpage, KSEG), empty when it has none.
struct SuperpageRange {
  uint64_t start = 0, end = 0;
  bool contains(uint64_t address) const { return start <= address && address < end; }
};

class ProcessorModel {
 public:
  virtual ~ProcessorModel() = default;
  virtual std::string_view name() const = 0;
  // Schedules one basic block on its own: the code before it is ignored, as
  // DCPI did (§6.1.3, "we currently ignore all preceding blocks").
  virtual BlockSchedule schedule_block(std::span<const InstructionRecord> block) const = 0;
  // The §6.3 causes it can stall on (isa::is_dynamic); empty when the
  // machine cannot stall dynamically (QEMU under icount).
  virtual std::span<const StallCause> dynamic_stall_causes() const = 0;
  // Cycles of the slowest miss (a fill from memory), for upper bounds (§6.3).
  virtual uint32_t memory_fill_cycles() const = 0;
  // What one event of a cause's counter costs at most, for the bounds and
  // the rule-outs event samples give (§6.3: "assuming pessimistically that
  // each I-cache miss incurred a cache fill all the way from memory").
  virtual uint32_t worst_event_cycles(StallCause) const { return memory_fill_cycles(); }
  virtual uint32_t icache_line_bytes() const = 0;
  // A direct-mapped I-cache's size: code spanning no more than this maps
  // each line to its own set (0: unknown, no such reasoning).
  virtual uint32_t icache_direct_mapped_bytes() const { return 0; }
  virtual uint64_t page_bytes() const { return 8192; }
  virtual SuperpageRange superpage() const { return {}; }

  bool has_dynamic_stalls() const { return !dynamic_stall_causes().empty(); }
};

}  // namespace dcpi::calc
