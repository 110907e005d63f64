#include "qemu/machine/plugins/ev5/vcpu_model.h"

#include <algorithm>
#include <bit>

namespace dcpi::ev5 {

VcpuModel::VcpuModel(const Machine& machine)
    : machine_(machine),
      memory_(machine),
      itb_(machine.itb_entries, Machine::kPageBytes),
      dtb_(machine.dtb_entries, Machine::kPageBytes) {}

void VcpuModel::record_edge(uint64_t to) {
  if (started_ && to != last_pc_ + 4) ++truth_.edges[{last_pc_, to}];
}

uint64_t VcpuModel::enter(BlockRecord& block) {
  const BlockTiming& timing = block.timing;
  block.entries.fetch_add(1, std::memory_order_relaxed);
  block_start_ += previous_static_ + dynamic_in_block_;
  previous_static_ = timing.static_cycles;
  dynamic_in_block_ = 0;
  record_edge(timing.pc);
  started_ = true;
  last_pc_before_block_ = last_pc_;
  last_pc_ = timing.instructions.back().pc;
  uint64_t stall = 0;
  if (timing.pc == skip_pc_) {
    skip_pc_ = 1;  // the re-run of an instruction whose stall was charged already
    // A re-run that icount cut short is timed as a slice of the whole block,
    // whose head keeps its static charge: cancel it (the exit charged it),
    // through the charge's entry, and in the truth.
    const int32_t charge = timing.instructions.front().charge;
    truth_.cycle_corrections[timing.pc] -= charge;
    previous_block_ = &block;
    dynamic_in_block_ = 0;
    return static_cast<uint64_t>(-static_cast<int64_t>(charge));
  }
  stall = head_stall(block);
  previous_block_ = &block;
  dynamic_in_block_ = stall;
  return stall;
}

uint64_t VcpuModel::head_stall(const BlockRecord& block) {
  const BlockTiming& timing = block.timing;
  const uint64_t pc = timing.pc;
  uint64_t stall = carry_;
  truth_.stall(pc, carry_cause_, carry_culprit_, carry_);
  carry_ = 0;
  // A block that follows itself (a loop) finds its lines and pages where it
  // left them: the I-cache is direct mapped and holds nothing else.
  if (previous_block_ != &block) stall += fetch_stall(timing);
  stall += mispredict_stall(timing);
  // A register whose load is still outstanding is waited for by its first
  // reader in the block (block_timing.h reads_loaded), not at the head: the
  // head of a block icount cut short is no reader, and a deadline inside a
  // wait charged there put the sample on the wrong instruction.
  return stall;
}

uint64_t VcpuModel::fetch_stall(const BlockTiming& timing) {
  const uint64_t pc = timing.pc;
  const uint64_t last = timing.instructions.back().pc;
  uint64_t stall = 0;
  for (uint64_t page = pc / Machine::kPageBytes; page <= last / Machine::kPageBytes; ++page) {
    const uint64_t address = std::max(pc, page * Machine::kPageBytes);
    if (bypasses_tlb(address) || itb_.access(address)) continue;
    ++truth_.itb_miss;
    truth_.stall(pc, StallCause::kItbMiss, kNoCulprit, machine_.itb_refill);
    stall += machine_.itb_refill;
  }
  // Every line of the block is fetched at its entry: misses of later lines
  // are charged at the head too (the hardware's stream buffer overlaps them
  // partly; not modelled).
  for (uint64_t line = pc / Machine::kL1LineBytes; line <= last / Machine::kL1LineBytes; ++line) {
    const uint64_t cycles = memory_.fetch(line * Machine::kL1LineBytes, block_start_ + stall);
    truth_.stall(pc, StallCause::kICacheMiss, kNoCulprit, cycles);
    stall += cycles;
  }
  return stall;
}

uint64_t VcpuModel::mispredict_stall(const BlockTiming& timing) {
  const BlockRecord* previous = previous_block_;
  if (!previous || !previous->timing.ends_in_conditional_branch) return 0;
  const BlockTiming& from = previous->timing;
  const bool taken = timing.pc == from.branch_target;
  // Anything else (an interrupt between the blocks) says nothing about the branch.
  if (!taken && timing.pc != from.fall_through()) return 0;
  const uint64_t branch = from.instructions.back().pc;
  if (!predictor_.mispredicted(branch, from.branch_target <= branch, taken)) return 0;
  ++truth_.mispredict;
  truth_.stall(timing.pc, StallCause::kBranchMispredict, branch, machine_.mispredict_penalty);
  return machine_.mispredict_penalty;
}

uint64_t VcpuModel::wait_for_loads(uint64_t reads, uint64_t pc, uint64_t now) {
  uint64_t ready = now, culprit = kNoCulprit;
  for (uint64_t waiting = reads & pending_; waiting; waiting &= waiting - 1) {
    const int slot = std::countr_zero(waiting);
    if (ready_[slot] > ready) {
      ready = ready_[slot];
      culprit = loaded_by_[slot];
    }
    pending_ &= ~(1ull << slot);
  }
  truth_.stall(pc, StallCause::kDCacheMiss, culprit, ready - now);
  return ready - now;
}

void VcpuModel::aborted(BlockRecord& block, uint32_t index) {
  const InstructionTiming& t = block.timing.instructions[index];
  block.cut[index].fetch_add(1, std::memory_order_relaxed);
  ++truth_.exact_exits;
  // Its static charge was made; the re-run (a block head) is counted with a
  // head's cost of 1, which the unit icount counts for it matches.
  truth_.cycle_corrections[t.pc] += t.charge;
  for (uint8_t k = 0; k < t.stall_count; ++k)
    truth_.stall(t.pc, t.stalls[k].cause, t.stalls[k].culprit, t.stalls[k].cycles);
  skip_pc_ = t.pc;
  previous_static_ = t.offset;
  previous_block_ = nullptr;
  last_pc_ = index > 0 ? t.pc - 4 : last_pc_before_block_;
}

uint64_t VcpuModel::memory_access(const BlockRecord& block, uint32_t index, uint64_t vaddr,
                                  uint64_t paddr, bool store) {
  const InstructionTiming& t = block.timing.instructions[index];
  const uint64_t now = time_at(block, index);
  const bool last = index + 1 == block.timing.instructions.size();
  const uint64_t charged_pc = last ? 0 : block.timing.instructions[index + 1].pc;
  uint64_t stall = 0;
  StallCause cause = StallCause::kOther;
  if (!bypasses_tlb(vaddr) && !dtb_.access(vaddr)) {
    ++truth_.dtb_miss;
    stall += machine_.dtb_refill;
    cause = StallCause::kDtbMiss;
    if (!last) truth_.stall(charged_pc, StallCause::kDtbMiss, t.pc, machine_.dtb_refill);
  }
  const uint64_t address = paddr != ~0ull ? paddr : vaddr;
  if (store) {
    const uint64_t wait = memory_.store(address, now + stall);
    if (wait && !last) truth_.stall(charged_pc, StallCause::kWriteBufferOverflow, t.pc, wait);
    if (wait) cause = StallCause::kWriteBufferOverflow;
    stall += wait;
  } else if (t.destination < 64) {
    const uint64_t ready = memory_.load(address, now + stall);
    if (ready > now + stall + 2) {  // the static schedule counts a D-cache hit's 2 cycles
      pending_ |= 1ull << t.destination;
      ready_[t.destination] = ready;
      loaded_by_[t.destination] = t.pc;
    }
  } else {
    memory_.load(address, now + stall);  // a prefetch (load into R31): nobody waits
  }
  if (last) {
    carry_ += stall;
    carry_cause_ = cause;
    carry_culprit_ = t.pc;
    return 0;
  }
  dynamic_in_block_ += stall;
  return stall;
}

uint64_t VcpuModel::operands_ready(const BlockRecord& block, uint32_t index) {
  const InstructionTiming& t = block.timing.instructions[index];
  if (!(pending_ & t.reads)) return 0;
  const uint64_t stall = wait_for_loads(t.reads, t.pc, time_at(block, index));
  dynamic_in_block_ += stall;
  return stall;
}

uint64_t VcpuModel::unit_ready(const BlockRecord& block, uint32_t index) {
  const BlockTiming& timing = block.timing;
  const InstructionTiming& t = timing.instructions[index];
  const uint64_t now = time_at(block, index);
  uint64_t& free_at = t.first_multiply ? multiplier_free_ : divider_free_;
  uint64_t& culprit = t.first_multiply ? last_multiply_ : last_divide_;
  const uint64_t stall = free_at > now ? free_at - now : 0;
  truth_.stall(t.pc, t.first_multiply ? StallCause::kMultiplierBusy : StallCause::kFpDividerBusy,
               culprit, stall);
  free_at = now + stall + (t.first_multiply ? timing.multiplier_span : timing.divider_span);
  culprit = t.pc;
  dynamic_in_block_ += stall;
  return stall;
}

}  // namespace dcpi::ev5
