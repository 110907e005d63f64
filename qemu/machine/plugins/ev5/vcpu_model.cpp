#include "qemu/machine/plugins/ev5/vcpu_model.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <utility>

#include "firmware/ev5_counters.h"
#include "firmware/memory_map.h"

namespace dcpi::ev5 {
namespace {

// One host thread runs every vCPU (-icount's round robin; coherence.h relies
// on it too), so a count shared by the vCPUs needs no locked add: the two
// in enter() took 5 % of a 4-CPU run's host time (perf, issue 31).
uint64_t add_unlocked(std::atomic<uint64_t>& count, uint64_t n) {
  const uint64_t sum = count.load(std::memory_order_relaxed) + n;
  count.store(sum, std::memory_order_relaxed);
  return sum;
}

// PALcode's memory-fault and unaligned-access entries (the 21164's DFAULT
// and UNALIGN traps, HRM Table 6-1, here at QEMU's vector offsets) (palcode/pal.S at
// 0x280 and 0x300 of the PAL base, KSEG's start): entered right after a
// load or store's access, that access trapped (QEMU raises the fault at it;
// the model's access callback comes before the access).
bool is_memory_trap_vector(uint64_t pc) {
  return pc == kKsegBase + 0x280 || pc == kKsegBase + 0x300;
}

// PALcode's illegal-opcode and FP-disabled entries (the 21164's OPCDEC and
// FEN traps, HRM Table 6-1; palcode/pal.S at 0x380 and 0x480): QEMU's
// translator ends a block at the instruction that raises them (it emits the
// exception in place of the instruction), so the CPU enters the vector right
// after a block that ran to its end, and the block's last instruction is
// the one that trapped.
bool is_instruction_trap_vector(uint64_t pc) {
  return pc == kKsegBase + 0x380 || pc == kKsegBase + 0x480;
}

// A load's issue -> data (ProfileMe's PROFILEME_LAT2_LOAD): the cache
// says when the data are there (a hit: at once, `issued`), and a hit's 2
// cycles are the load's unit latency in the static schedule.
uint64_t data_latency(uint64_t ready, uint64_t issued, const InstructionTiming& t) {
  return std::max<uint64_t>(ready > issued ? ready - issued : 0, t.latency);
}

}  // namespace

VcpuModel::VcpuModel(const Machine& machine, SampleVisibility sampling)
    : machine_(machine),
      memory_(machine),
      itb_(machine.itb_entries, Machine::kPageBytes),
      dtb_(machine.dtb_entries, Machine::kPageBytes) {
  truth_.visibility = std::move(sampling);
  events_visible_ = EventVisibility(truth_.visibility.enabled());
}

void VcpuModel::event_counters_written() {
  for (int counter = 1; counter < PerfCounters::kCounters; ++counter) {
    const ModelEvent event = counters_.event_of(counter);
    if (event != ModelEvent::kCount) events_visible_.armed(event, counters_.remaining(counter));
  }
}

void VcpuModel::record_edge(uint64_t to) {
  const bool rerun = to == rebooked_target_;  // the transfer into it was booked already
  rebooked_target_ = 1;
  if (started_ && to != last_pc_ + 4 && !rerun) truth_.edge(last_pc_, to);
}

VcpuModel::Site VcpuModel::site(const BlockRecord& block, uint32_t index) const {
  if (&block == continuation_) return {continued_.block, continued_.index + index};
  return {const_cast<BlockRecord*>(&block), index};
}

// Whether `block`, entered right after an exit, is the step block that runs
// the rest of the block the exit left (the same instructions from there).
bool VcpuModel::continues(const BlockRecord& block, bool step) const {
  if (!step || !aborted_.block || block.timing.pc != aborted_.timing().pc) return false;
  const std::vector<uint32_t>& whole = aborted_.block->words;
  return block.words.size() == whole.size() - aborted_.index &&
         std::equal(block.words.begin(), block.words.end(), whole.begin() + aborted_.index);
}

uint64_t VcpuModel::enter(BlockRecord& block, bool step) {
  // The other CPUs' cycles since this one last ran: its wait for its turn.
  const uint64_t waited =
      clock_ && started_ ? clock_->load(std::memory_order_relaxed) - clock_mark_ : 0;
  if (!aborted_.block && follows_io_access(block)) io_only_rerun(*accessed_block_, accessed_index_);
  // Without our QEMU's report (raised()), the trapping instruction is
  // inferred from the vector entered right after its block.
  const bool raised = std::exchange(raised_in_block_, false);
  if (!raised && accessed_block_ && accessed_block_ == entered_ &&
      is_memory_trap_vector(block.timing.pc))
    truth_.trap(site(*accessed_block_, accessed_index_).timing().pc);
  if (!raised && entered_ && !aborted_.block && is_instruction_trap_vector(block.timing.pc))
    truth_.trap(entered_->last_pc);
  accessed_block_ = nullptr;
  entered_ = &block;
  if (continues(block, step)) {
    // Nothing happened between: the block goes on, timed as it was, and
    // its instructions are counted as its own (no cut, no entry).
    continuation_ = &block;
    continued_ = aborted_;
    rerun_block_ = &block;
    rerun_correction_ = 0;  // the continued block's entry booked the head already
    owe_rerun();
    aborted_ = {};
    truth_.visibility.waited(static_cast<int64_t>(waited), block.timing.pc);
    if (clock_) clock_mark_ = clock_->load(std::memory_order_relaxed);
    return 0;
  }
  if (aborted_.block) settle_abort();
  const BlockRecord* issued = issuing_;
  const uint64_t issued_count = issuing_count_;
  issue_entered();
  issuing_ = &block;
  issuing_count_ = block.timing.instructions.size();
  continuation_ = nullptr;
  rerun_block_ = nullptr;
  const BlockTiming& timing = block.timing;
  add_unlocked(block.entries, 1);
  truth_.enter(block);
  const uint64_t ran = previous_static_ + dynamic_in_block_;
  block_start_ += ran;
  if (clock_) clock_mark_ = add_unlocked(*clock_, ran);
  previous_static_ = timing.static_cycles;
  dynamic_in_block_ = 0;
  drop_arrived_loads();
  if (truth_.visibility.enabled())  // an out-of-line call per entry otherwise (issue 31)
    truth_.visibility.waited(static_cast<int64_t>(waited), timing.pc);
  truth_.visibility.enter(timing, block.last_word);
  events_visible_.enter(timing, block.last_word);
  if (issued != nullptr && counters_.counts_issue_groups())
    count_issue_groups(*issued, issued_count, timing.pc);
  record_edge(timing.pc);
  started_ = true;
  last_pc_before_block_ = last_pc_;
  last_pc_ = block.last_pc;
  if (timing.pc == skip_pc_) return rerun_head(block, step);
  const uint64_t stall = head_stall(block);
  previous_block_ = &block;
  dynamic_in_block_ = stall;
  return stall;
}

// The re-run of an instruction an exit charged, at the head of `block`:
// it charges the static units the exit did not (rerun_units_), and the
// truth counts the head with them.
uint64_t VcpuModel::rerun_head(BlockRecord& block, bool step) {
  skip_pc_ = 1;
  const InstructionTiming& head = block.timing.instructions.front();
  rerun_correction_ = rerun_units_ - static_cast<int64_t>(head.cost);
  truth_.correct(head.pc, rerun_correction_);
  previous_block_ = &block;
  dynamic_in_block_ = 0;
  rerun_block_ = &block;
  if (step) return 0;  // step_units() charges the head rerun_units_
  // The head's charge is its static charge plus this, its unit counted by icount.
  return static_cast<uint64_t>(rerun_units_ - 1 - head.charge);
}

// What the re-run of an aborted instruction still owes: the static units
// its exit did not charge, and whether its access was modelled already.
void VcpuModel::owe_rerun() {
  rerun_units_ = std::max<int64_t>(aborted_owed_ - aborted_made_, 0);
  rerun_access_done_ = aborted_access_;
}

uint64_t VcpuModel::step_units(const BlockRecord& block, uint32_t index) {
  last_step_units_ = is_rerun_head(block, index) ? static_cast<uint64_t>(rerun_units_)
                                                 : site(block, index).timing().cost;
  return last_step_units_;
}

uint64_t VcpuModel::head_stall(const BlockRecord& block) {
  const BlockTiming& timing = block.timing;
  uint64_t stall = 0;
  // A block that follows itself (a loop) finds its lines and pages where it
  // left them: the I-cache is direct mapped and holds nothing else.
  if (previous_block_ != &block) stall += fetch_stall(block);
  stall += mispredict_stall(timing);
  stall += jump_mispredict_stall(timing);
  // A register whose load is still outstanding is waited for by its first
  // reader in the block (block_timing.h reads_loaded), not at the head: the
  // head of a block icount cut short is no reader, and a deadline inside a
  // wait charged there put the sample on the wrong instruction.
  return stall;
}

// The head's line and page are fetched at the block's entry; a later line
// (and its page) when fetch reaches it: its miss is found now (the lines
// are looked up in order, at the entry's time) and charged at the line's
// first instruction (line_fetch), where the 21164 waits for it.
uint64_t VcpuModel::fetch_stall(const BlockRecord& block) {
  const BlockTiming& timing = block.timing;
  if (!deferred_fetch_.empty()) deferred_fetch_.clear();
  uint64_t stall = 0, page = ~0ull;
  // The block's instructions are contiguous: instruction i is at pc + 4 i.
  for (size_t k = 0; k < block.fetch_head_count; ++k) {
    const uint32_t i = block.fetch_head(k);
    const uint64_t pc = timing.pc + 4 * uint64_t{i};
    uint64_t itb = 0;
    if (pc / Machine::kPageBytes != page) {
      page = pc / Machine::kPageBytes;
      if (!bypasses_tlb(pc) && !itb_.access(tagged(pc))) {
        ++truth_.itb_miss;
        itb = machine_.itb_refill;
      }
    }
    const uint64_t icache =
        memory_.fetch(tagged(pc & ~uint64_t{Machine::kL1LineBytes - 1}), block_start_ + stall);
    if (i == 0) {
      if (itb) count(ModelEvent::kItbMiss, pc);
      if (icache) count(ModelEvent::kICacheMiss, pc);
      truth_.stall(pc, StallCause::kItbMiss, kNoCulprit, itb);
      truth_.stall(pc, StallCause::kICacheMiss, kNoCulprit, icache);
      stalled(pc, itb + icache, true);
      stall += itb + icache;
    } else if (itb + icache > 0) {
      deferred_fetch_.push_back({pc, icache, itb});
    }
  }
  return stall;
}

uint64_t VcpuModel::line_fetch(const BlockRecord& block, uint32_t index) {
  const Site at = site(block, index);
  const uint64_t pc = at.timing().pc;
  auto found = std::find_if(deferred_fetch_.begin(), deferred_fetch_.end(),
                            [pc](const DeferredFetch& f) { return f.pc == pc; });
  if (found == deferred_fetch_.end()) return 0;
  const DeferredFetch f = *found;
  deferred_fetch_.erase(found);
  if (f.itb) count(ModelEvent::kItbMiss, pc);
  if (f.icache) count(ModelEvent::kICacheMiss, pc);
  truth_.stall(pc, StallCause::kItbMiss, kNoCulprit, f.itb);
  truth_.stall(pc, StallCause::kICacheMiss, kNoCulprit, f.icache);
  stalled(pc, f.itb + f.icache, true);
  dynamic_in_block_ += f.itb + f.icache;
  return f.itb + f.icache;
}

uint64_t VcpuModel::mispredict_stall(const BlockTiming& timing) {
  const BlockRecord* previous = previous_block_;
  if (!previous || !previous->timing.ends_in_conditional_branch) return 0;
  const BlockTiming& from = previous->timing;
  const bool taken = timing.pc == from.branch_target;
  // Anything else (an interrupt between the blocks) says nothing about the branch.
  if (!taken && timing.pc != from.fall_through()) return 0;
  const uint64_t branch = previous->last_pc;
  if (!predictor_.mispredicted(branch, from.branch_target <= branch, taken)) return 0;
  ++truth_.mispredict;
  count(ModelEvent::kBranchMispredict, timing.pc);
  truth_.stall(timing.pc, StallCause::kBranchMispredict, branch, machine_.mispredict_penalty);
  stalled(timing.pc, machine_.mispredict_penalty, true);
  truth_.squash(taken ? from.fall_through() : from.branch_target);  // the path it predicted
  return machine_.mispredict_penalty;
}

// The previous block ended in a jump or a subroutine branch: the return
// stack moves, and a jump whose predicted target was not where it went
// restarts fetch there, as a mispredicted branch does (both resolve in pipe
// E1, 21164 HRM §2.3; `pc_mispredict`, the same 5 cycles). Its cycles are booked
// as DCPI §6.3's branch-mispredict candidate (dcpicalc's culprits already
// take jumps and returns as its culprits); the event is counter 2's PC
// mispredicts, counted apart from branch mispredicts as the 21164 does.
// PALcode's transfers (HW_REI and the trap and CALL_PAL entries) are left
// out: the model does not know how the 21164's PAL entries use the stack.
uint64_t VcpuModel::jump_mispredict_stall(const BlockTiming& timing) {
  const BlockRecord* previous = previous_block_;
  if (!previous || previous->timing.jump == JumpKind::kNone) return 0;
  const BlockTiming& from = previous->timing;
  const uint64_t jump = previous->last_pc;
  if (mode_of(jump) == Mode::kPal) return 0;
  // A trap or interrupt taken between the jump and its target: the stack
  // moved, the target is unknown here.
  const bool interrupted = mode_of(timing.pc) == Mode::kPal;
  const bool wrong =
      jumps_.mispredicted(from.jump, jump, from.hint_target, timing.pc) && !interrupted;
  if (!wrong) return 0;
  ++truth_.pc_mispredict;
  count(ModelEvent::kPcMispredict, timing.pc);
  truth_.stall(timing.pc, StallCause::kBranchMispredict, jump, machine_.pc_mispredict_penalty);
  stalled(timing.pc, machine_.pc_mispredict_penalty, true);
  return machine_.pc_mispredict_penalty;
}

// A load whose data are there by the block's start stalls no later reader
// (time only moves on: wait_for_loads() takes the latest ready time, never
// below `now`): its slot is dropped, so that `pending` gates the operand
// callbacks only while a load is really outstanding. A missed load whose
// register is overwritten, or never read, left its bit set for good, and
// every first reader of every later block then called back for nothing
// (issue 31). The stalls, culprits and deliveries are the same.
void VcpuModel::drop_arrived_loads() {
  for (uint64_t waiting = pending_; waiting; waiting &= waiting - 1) {
    const int slot = std::countr_zero(waiting);
    if (ready_[slot] <= block_start_) pending_ &= ~(1ull << slot);
  }
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
  stalled(pc, ready - now, false);
  return ready - now;
}

void VcpuModel::aborted(BlockRecord& block, uint32_t index, bool step, bool access) {
  ++truth_.exact_exits;
  aborted_access_ = access;
  const bool rerun = is_rerun_head(block, index);
  aborted_ = site(block, index);
  // The instruction's static units, and what the exiting charge made of
  // them: all of them in a step block; else its immediate (cost - 1, -1
  // for a co-issued one), the unit being icount's.
  aborted_owed_ = rerun ? rerun_units_ : static_cast<int64_t>(aborted_.timing().cost);
  aborted_made_ = step ? static_cast<int64_t>(last_step_units_) : aborted_owed_ - 1;
}

// The exit was not continued (an interrupt was taken, or the re-run is an
// ordinary block): the instruction did not run in this entry of its block.
void VcpuModel::settle_abort() {
  const Site a = aborted_;
  aborted_ = {};
  const InstructionTiming& t = a.timing();
  // A re-run head cut at its own charge: its entry books none of its cost
  // (the cut), so the correction rerun_head() made for that cost is taken
  // back, or the instruction's cycles went negative (-16 at a return
  // point of sys_ioctl, seen by linux_contexts_ev5).
  if (is_rerun_head(*a.block, a.index)) truth_.correct(t.pc, -rerun_correction_);
  rerun_correction_ = 0;
  cut_entry(a);
  truth_.correct(t.pc, aborted_made_);
  if (aborted_made_ + 1 >= static_cast<int64_t>(t.cost))  // its static stalls were charged
    for (uint8_t k = 0; k < t.stall_count; ++k)
      truth_.stall(t.pc, t.stalls[k].cause, t.stalls[k].culprit, t.stalls[k].cycles);
  owe_rerun();
  // Whether its access was modelled is kept per instruction (truth key:
  // address space and PC) until it re-runs at a block's head, not in
  // rerun_access_done_: the handler's own exits in between (its loads
  // overflow counter 1 at IPL 6; they are continued, or settled after a
  // nested interrupt) set that one, and the re-run then modelled the
  // access a second time (issue 26's counter 1: compress's hot loads 1-8
  // above their executions).
  if (rerun_access_done_) accessed_before_rerun_.insert(truth_.key(t.pc));
  rerun_access_done_ = false;
  skip_pc_ = t.pc;
  last_pc_ = a.index > 0 ? t.pc - 4 : last_pc_before_block_;
  // Left before its head ran: the head run again with nothing between is
  // the same transfer; an interrupt taken there is booked from last_pc_.
  if (a.index == 0) rebooked_target_ = t.pc;
}

// This entry of the block left it before instruction `at.index` (an exact
// exit, or a device access QEMU ran alone): the rest did not run.
void VcpuModel::cut_entry(Site at) {
  issue_cut(*at.block, at.index);
  add_unlocked(at.block->cut[at.index], 1);
  truth_.cut(*at.block, at.index);
  truth_.visibility.cut(at.index);  // it counts the whole block's instructions
  events_visible_.cut(at.index);
  previous_static_ = at.timing().offset;
  previous_block_ = nullptr;
}

// Under icount an access to a device must end its block: QEMU abandons the
// block at the access (cpu_io_recompile), runs the instruction alone in a
// block that calls no callbacks but memory ones, and goes on in a new block
// after it. So the next entry is of the instruction after the access, in the
// middle of the block entered, which did not end (unless it branches there
// itself). Its later instructions did not run in this entry (the next block
// runs them): it is cut there, as at an exact exit.
bool VcpuModel::follows_io_access(const BlockRecord& next) const {
  // The access inside the block entered, not its last instruction: a block
  // icount translated short (block_record.h) ends at an access of its own.
  if (!accessed_block_ || accessed_block_ != entered_) return false;
  // The block's instructions are contiguous (instruction i at pc + 4 i):
  // no read of the next instruction's timing at every entry (issue 31).
  const BlockTiming& timing = entered_->timing;
  return accessed_index_ + 1 < timing.instructions.size() &&
         next.timing.pc == timing.pc + 4 * (uint64_t{accessed_index_} + 1) &&
         next.timing.pc != timing.branch_target;
}

uint64_t VcpuModel::raised(uint64_t pc) {
  const BlockRecord* block = entered_;
  // Not an instruction of the block entered (none is expected: QEMU
  // reports only exceptions raised inside the running block).
  if (!block || pc < block->timing.pc || pc > block->last_pc) return 0;
  const auto index = static_cast<uint32_t>((pc - block->timing.pc) / 4);
  raised_in_block_ = true;
  accessed_block_ = nullptr;  // its access, if any, is the one that trapped: no device re-run
  // It ran: an arithmetic trap is taken after the instruction wrote its
  // result (Alpha Architecture Handbook §4.7.7); a faulting load or store
  // made its access, and runs again after PALcode.
  truth_.trap(pc, true);
  last_pc_ = pc;  // the transfer into PALcode is booked from it
  if (index + 1 >= block->timing.instructions.size()) return 0;
  cut_entry(site(*block, index + 1));
  return pc + 4;
}

void VcpuModel::io_only_rerun(const BlockRecord& block, uint32_t index) {
  const Site at = site(block, index);
  if (at.index + 1 >= at.block->timing.instructions.size()) return;
  cut_entry({at.block, at.index + 1});
  last_pc_ = at.timing().pc;
}

uint64_t VcpuModel::memory_access(const BlockRecord& block, uint32_t index, uint64_t vaddr,
                                  uint64_t paddr, bool store) {
  accessed_block_ = &block;
  accessed_index_ = index;
  if (is_rerun_head(block, index) && rerun_access_done_) {
    rerun_access_done_ = false;  // modelled before the exit that re-runs it
    return 0;
  }
  if (index == 0 && !accessed_before_rerun_.empty() &&
      accessed_before_rerun_.erase(truth_.key(site(block, index).timing().pc)) != 0)
    return 0;  // a settled exit's re-run (settle_abort)
  const Site at = site(block, index);
  const InstructionTiming& t = at.timing();
  const uint64_t now = time_at(at);
  uint64_t stall = 0;
  // The 21164 takes a DTB miss as a trap at the load or store and runs it
  // again after the refill; a store waits at itself for room in the write
  // buffer. Both are charged and booked there.
  if (!bypasses_tlb(vaddr) && !dtb_.access(tagged(vaddr))) stall += dtb_missed(t.pc);
  const uint64_t address = paddr != ~0ull ? paddr : tagged(vaddr);
  if (truth_.profile_unit) profile_unit_.accessed(t.pc, vaddr);
  count_access(at, store);
  stall += store ? store_access(t, address, now + stall) : load_access(t, address, now + stall);
  stalled(t.pc, stall, false);  // the DTB refill and the write buffer's wait
  dynamic_in_block_ += stall;
  return stall;
}

// The parts of memory_access() apart (issue 31): a load hit's path is the
// hot one, and a store's and a DTB miss's work stay out of its frame.
uint64_t VcpuModel::dtb_missed(uint64_t pc) {
  ++truth_.dtb_miss;
  count(ModelEvent::kDtbMiss, pc);
  truth_.stall(pc, StallCause::kDtbMiss, pc, machine_.dtb_refill);
  return machine_.dtb_refill;
}

uint64_t VcpuModel::store_access(const InstructionTiming& t, uint64_t address, uint64_t issue) {
  const uint64_t wait = memory_.store(address, issue);
  truth_.stall(t.pc, StallCause::kWriteBufferOverflow, t.pc, wait);
  last_store_ = {address, issue + wait, t.pc};
  return wait;
}

uint64_t VcpuModel::load_access(const InstructionTiming& t, uint64_t address, uint64_t issue) {
  const uint64_t dcache_misses = memory_.events().dcache_miss;
  const uint64_t stall = load_after_store(address, issue, t.pc);
  const uint64_t now = issue + stall;
  if (t.destination < 64) {
    const uint64_t ready = memory_.load(address, now);
    if (ready > now + 2) {  // the static schedule counts a D-cache hit's 2 cycles
      pending_ |= 1ull << t.destination;
      ready_[t.destination] = ready;
      loaded_by_[t.destination] = t.pc;
    }
    truth_.load_returned(t.pc, data_latency(ready, now, t));
  } else {
    // A prefetch (load into R31): nobody waits, but its data return too.
    truth_.load_returned(t.pc, data_latency(memory_.load(address, now), now, t));
  }
  if (memory_.events().dcache_miss != dcache_misses) load_missed(t.pc);
  return stall;
}

// The load just modelled missed the D-cache: its event, and for ProfileMe
// the level that served it (the miss counted last).
void VcpuModel::load_missed(uint64_t pc) {
  count(ModelEvent::kDCacheMiss, pc);
  if (truth_.profile_unit)
    profile_unit_.missed_levels(pc, memory_.last_miss_scache(), memory_.last_miss_bcache());
}

// A load to exactly the address of a store still in the pipeline (21164PC
// HRM p. 2-33, "Write Buffer and the WMB Instruction"): issued one cycle after
// the store, it reads before the store has written the D-cache and replay
// traps (the pipeline restarts from the load: `replay`, 7 cycles); two
// cycles after, it is issue-stalled for one; three or more, nothing. The
// stall is booked at the load as `replay` (not one of DCPI §6.3's
// candidates; dcpicalc lists it, issue 25), blamed on the store; the
// replays are counter 2's LDU replay traps (SEL2 0x9, `replay`).
uint64_t VcpuModel::load_after_store(uint64_t address, uint64_t issue, uint64_t pc) {
  if (address != last_store_.address || issue <= last_store_.issue) return 0;
  const uint64_t after = issue - last_store_.issue;
  uint64_t cycles = 0;
  if (after == 1) {
    cycles = machine_.replay_penalty;
    ++truth_.load_replays;
    count(ModelEvent::kLoadReplay, pc);
  } else if (after == 2) {
    cycles = 1;
  }
  truth_.stall(pc, StallCause::kReplay, last_store_.pc, cycles);
  return cycles;
}

void VcpuModel::slept(const BlockRecord& block, uint32_t index, uint64_t cycles) {
  truth_.sleep(site(block, index).timing().pc, cycles);
  block_start_ += cycles;
}

uint64_t VcpuModel::operands_ready(const BlockRecord& block, uint32_t index) {
  const Site at = site(block, index);
  const InstructionTiming& t = at.timing();
  // The callback is registered at the first readers of the block QEMU
  // translated. A step block that continues another (continues()) was
  // translated as a block of its own, into which every register is live, so
  // it has first readers the block it continues does not have (one reading a
  // register that block overwrote after loading it, or read before): timed
  // as that block, they do not wait. Had they waited, only the passes a
  // deadline cuts would (issue 25, seed 179: a zap waited 13 cycles for an
  // overwritten load and took half the samples of the next load's refill).
  if (!t.reads_loaded || !(pending_ & t.reads)) return 0;
  const uint64_t stall = wait_for_loads(t.reads, t.pc, time_at(at));
  dynamic_in_block_ += stall;
  return stall;
}

uint64_t VcpuModel::unit_ready(const BlockRecord& block, uint32_t index) {
  // A re-run head waited for its unit before the exit.
  if (is_rerun_head(block, index)) return 0;
  const Site at = site(block, index);
  const BlockTiming& timing = at.block->timing;
  const InstructionTiming& t = at.timing();
  if (!t.first_multiply && !t.first_divide) return 0;  // not the first of the whole block
  const uint64_t now = time_at(at);
  uint64_t& free_at = t.first_multiply ? multiplier_free_ : divider_free_;
  uint64_t& culprit = t.first_multiply ? last_multiply_ : last_divide_;
  const uint64_t stall = free_at > now ? free_at - now : 0;
  truth_.stall(t.pc, t.first_multiply ? StallCause::kMultiplierBusy : StallCause::kFpDividerBusy,
               culprit, stall);
  free_at = now + stall + (t.first_multiply ? timing.multiplier_span : timing.divider_span);
  culprit = t.pc;
  stalled(t.pc, stall, false);
  dynamic_in_block_ += stall;
  return stall;
}

// The block entered before has run to its end or to its cut: its
// instructions are counted now, in its mode (the kill bits'). A wrap raises
// counter 0's overflow at the charge of the block being entered: at a user
// block's head it is taken at once (exact exit, the block runs again); in
// PALcode it waits until PALcode returns, before the kernel can read the
// counter (counting mode reads it at IPL >= 5, the overflow is taken at
// IPL <= 5, and the kernel is entered from user mode at IPL 5 or below).
void VcpuModel::issue_entered() {
  if (issuing_ != nullptr && counters_.counts_issues())
    overflow_ |= counters_.count_issues(issuing_count_, issuing_->timing.pc);
  issuing_ = nullptr;
  issuing_count_ = 0;
}

void VcpuModel::count_issue_groups(const BlockRecord& block, uint64_t ran, uint64_t head) {
  static constexpr ModelEvent kWidth[] = {ModelEvent::kIssue1, ModelEvent::kIssue2,
                                          ModelEvent::kIssue3, ModelEvent::kIssue4};
  const std::vector<InstructionTiming>& in = block.timing.instructions;
  for (uint64_t i = 0; i < ran && i < in.size(); ++i) {
    const InstructionTiming& t = in[i];
    if (t.issue_width == 0) continue;
    // A group an exit cut issued its instructions before the cut.
    const uint64_t width = std::min<uint64_t>(t.issue_width, ran - i);
    counted(kWidth[width - 1], t.pc, 1, head);
    if (t.cost > 1) counted(ModelEvent::kNonIssue, t.pc, t.cost - 1, head);
    if (t.cost > 1 + EV5_LONG_STALL_CYCLES) counted(ModelEvent::kLongStall, t.pc, 1, head);
  }
}

void VcpuModel::count_stall(uint64_t pc, uint64_t cycles, bool fetch) {
  if (!fetch) {
    counted(ModelEvent::kNonIssue, pc, cycles);
    truth_.count_event(pc, ModelEvent::kNonIssue, cycles);
  }
  if (cycles > EV5_LONG_STALL_CYCLES) {
    counted(ModelEvent::kLongStall, pc);
    truth_.count_event(pc, ModelEvent::kLongStall, 1);
  }
}

// Instructions [index, end) of `block` did not run in this entry.
void VcpuModel::issue_cut(const BlockRecord& block, uint32_t index) {
  if (&block != issuing_) return;
  const uint64_t unrun = block.timing.instructions.size() - index;
  issuing_count_ -= std::min(issuing_count_, unrun);
}

}  // namespace dcpi::ev5
