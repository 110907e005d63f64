// The dynamic part of one CPU's 21164 timing (docs/ev5-machine.md): caches,
// TBs, write buffer, branch prediction, busy units, on top of the static
// block timing. The plugin calls it at block entry, after each memory access
// and at the instructions that may wait for one; each call returns the stall
// cycles to charge at the instruction it names, and records them as truth at
// that instruction.
//
// Where a stall is charged (docs/ev5-machine.md "skid"): a load miss at the
// first reader of the loaded register in the same block, else at the head of
// the first later block that reads it; a DTB miss and a full write buffer at
// the load or store itself (charged before its access, as the 21164 traps
// or waits there); an I-cache or ITB miss at the first instruction of the
// line (page) that missed; a branch mispredict at the block's first
// instruction.
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "qemu/machine/plugins/ev5/block_record.h"
#include "qemu/machine/plugins/ev5/branch_predictor.h"
#include "qemu/machine/plugins/ev5/event_visibility.h"
#include "qemu/machine/plugins/ev5/issue_slots.h"
#include "qemu/machine/plugins/ev5/jump_predictor.h"
#include "qemu/machine/plugins/ev5/machine.h"
#include "qemu/machine/plugins/ev5/memory_system.h"
#include "qemu/machine/plugins/ev5/perf_counters.h"
#include "qemu/machine/plugins/ev5/profile_unit.h"
#include "qemu/machine/plugins/ev5/tlb.h"
#include "qemu/machine/plugins/ev5/vcpu_truth.h"

namespace dcpi::ev5 {

class VcpuModel {
 public:
  // `sampling`: which cycles a sample can land on, for the truth
  // (sample_visibility.h); default: a run that does not sample.
  explicit VcpuModel(const Machine& machine, SampleVisibility sampling = SampleVisibility());

  // Entry into `block`: its first instruction's stall. `step`: QEMU runs
  // the block as a step block (qemu/machine/README.md), whose instructions
  // are each charged step_units() and nothing else.
  // The head's dynamic stall; for the re-run after an exact exit, less what
  // the exit charged of it (two's complement: the charge entry is signed).
  uint64_t enter(BlockRecord& block, bool step = false);
  // The last charge, at instruction `index` of `block`, ended in an exact
  // exit: the instruction did not run and runs again as a block's head,
  // where it must be neither modelled nor counted twice. If that block is a
  // step block at the same instruction, entered next, the exit left a block
  // whose deadline lay further on (the patch's step exit): the step block
  // continues the block, timed as it.
  // `access`: the exit was at the charge before its memory access, which
  // was modelled then and is not again when the instruction re-runs.
  void aborted(BlockRecord& block, uint32_t index, bool step = false, bool access = false);
  // In a step block: the units instruction `index` takes (all its static
  // cycles, its issue included; 0 when it issues with its predecessor).
  uint64_t step_units(const BlockRecord& block, uint32_t index);
  // Before the load or store at instruction `index` (virtual and physical
  // address; physical ~0 when unknown): its own stall (DTB miss, write buffer).
  // An entry right after an access, in the middle of the block, follows an
  // access to a device QEMU ran alone (io_only_rerun): the block stopped there.
  uint64_t memory_access(const BlockRecord& block, uint32_t index, uint64_t vaddr, uint64_t paddr,
                         bool store);
  // At the first reader of a register loaded earlier in the block (in a
  // step block that continues another, of the block it continues).
  uint64_t operands_ready(const BlockRecord& block, uint32_t index);
  // At the block's first multiply or divide: the unit may still be busy.
  uint64_t unit_ready(const BlockRecord& block, uint32_t index);
  // At an instruction that starts an I-cache line (after the block's head):
  // the fetch stall of its line and page, if they missed.
  uint64_t line_fetch(const BlockRecord& block, uint32_t index);
  // PAL's wtint stored at instruction `index` how long the CPU slept, in
  // cycles of the virtual clock (firmware/pal_abi.h PAL_WTINT_SLEPT): the
  // time is booked there (no charge: the clock already moved) and the
  // model's own clock moves on with it (the write buffer drained, the bus
  // went idle meanwhile).
  void slept(const BlockRecord& block, uint32_t index, uint64_t cycles);
  // The instruction at `pc` of the block entered last raised an exception
  // inside it, from its helper or its access (an arithmetic trap, a memory
  // fault; our QEMU tells which, plugin-trap-insn.patch): it issued and
  // trapped, with its static cost charged (the patch keeps its unit); the
  // block's later instructions did not run in this entry and are cut, as
  // after an exact exit. Returns the PC of the first of them, 0 if none.
  uint64_t raised(uint64_t pc);
  // Whether a later line of the block missed (gates line_fetch's callbacks).
  bool fetch_pending() const { return !deferred_fetch_.empty(); }

  // The address space the CPU switched to (swpctx), numbered as an ASN:
  // its TB entries and its user lines are tagged with it (21164 HRM: TB
  // entries carry the ASN), so processes sharing virtual addresses share
  // neither. Numbers below 2^20.
  void switch_address_space(uint32_t number) {
    space_ = number;
    profile_unit_.switch_space(number);
  }
  // The truth's address space (truth_space.h) the CPU runs from now on.
  void switch_truth_space(uint32_t space) {
    truth_.switch_space(space);
    events_visible_.set_space(space);
    issue_slots_.set_space(space);
  }
  // The processor's IPL from now on (sample_visibility.h: the overflows it
  // masks are visible where it drops).
  void set_ipl(uint8_t ipl) {
    truth_.visibility.set_ipl(ipl);
    events_visible_.set_ipl(ipl);
  }
  // wrperfmon wrote counters 1 and 2 (wrperfmon 9, or a clear): a count
  // starts (or goes on) for the events they count (event_visibility.h).
  void event_counters_written();
  // Counters 1 and 2's visible events (event_visibility.h).
  const EventVisibility& visible_events() const { return events_visible_; }
  // The period the driver drew for counter 0's next count (its reload).
  void next_period(uint64_t cycles) { truth_.visibility.next_period(cycles); }
  // A wrperfmon that does not write counter 0 is about to run.
  void keeps_count() { truth_.visibility.keeps_count(); }
  // PALcode recorded counter 0's sample itself and restarts the count at
  // `pc` with `cycles` (firmware/pal_abi.h PAL_COUNTER_RELOAD).
  void reloaded_in_pal(uint64_t cycles, uint64_t pc) {
    truth_.visibility.next_period(cycles);
    truth_.visibility.reloaded_in_pal(pc);
  }
  // Moves the last counts into the truth (call when the vCPU is stopped).
  void settle_truth() { truth_.settle(); }
  // Whether the truth's bookings are kept (VcpuTruth::recording): off when
  // no truth file is written; the model's timing and counters are the same.
  void record_truth(bool on) {
    truth_.recording = on;
    if (!on) events_visible_ = EventVisibility();  // nobody reads them
  }
  // On a multiprocessor: the caches' coherence, this CPU's number, and the
  // one virtual clock of round-robin icount: the sum of every CPU's
  // modelled cycles (a CPU's counter also counts the others' while it waits
  // for its turn; sample_visibility.h waited()).
  void join(Coherence* coherence, size_t cpu, std::atomic<uint64_t>* clock = nullptr) {
    memory_.join(coherence, cpu);
    clock_ = clock;
  }

  // Register slots whose load has not completed (bit per slot).
  uint64_t pending_loads() const { return pending_; }
  const VcpuTruth& truth() const { return truth_; }
  // Who else is told the truth's bookings (context_metrics.h); none: nobody.
  void observe_truth(TruthObserver* observer) { truth_.observer = observer; }
  const MemoryEvents& memory_events() const { return memory_.events(); }

  // The 21164's counters 1 and 2 (perf_counters.h), counting the events
  // this model finds where it charges them: an I-cache or ITB miss at the
  // first instruction of its line, a mispredict at the block it leads to,
  // a DTB miss, D-cache load miss, load or store at its access.
  PerfCounters& counters() { return counters_; }
  // ProfileMe's counter and registers (profile_unit.h, issue 27); it
  // watches the bookings once armed the first time.
  void profileme_arm(uint64_t value) {
    truth_.profile_unit = &profile_unit_;
    // Paired sampling's truth (issue_slots.h) from the first paired arming.
    if (value >> PROFILEME_ARM_MINOR_SHIFT) truth_.issue_slots = &issue_slots_;
    profile_unit_.arm(value);
  }
  const IssueSlots& issue_slots() const { return issue_slots_; }
  bool issue_slots_watched() const { return truth_.issue_slots != nullptr; }
  uint64_t profileme_register(uint64_t index) const { return profile_unit_.read(index); }
  uint64_t profileme_records() const { return profile_unit_.records_delivered(); }
  // The overflow bits raised since the last call (EV5_OVERFLOW_CTR1/2, and
  // EV5_OVERFLOW_PROFILEME for a completed record): the plugin delivers
  // them at the charge of the instruction just modelled.
  // Whether take_overflow() has bits to hand out: the plugin's test after
  // every callback, inline (issue 31).
  bool overflow_raised() const { return overflow_ != 0 || profile_unit_.has_completed(); }
  uint64_t take_overflow() {
    const uint64_t bits = overflow_ | profile_unit_.take_completed();
    overflow_ = 0;
    return bits;
  }

 private:
  // An instruction of the block being timed: a step block that continues
  // another block after an exit is timed as the rest of that block.
  struct Site {
    BlockRecord* block = nullptr;
    uint32_t index = 0;
    const InstructionTiming& timing() const { return block->timing.instructions[index]; }
  };
  Site site(const BlockRecord& block, uint32_t index) const;
  uint64_t time_at(Site s) const { return block_start_ + s.timing().offset + dynamic_in_block_; }
  bool continues(const BlockRecord& block, bool step) const;
  bool is_rerun_head(const BlockRecord& block, uint32_t index) const {
    return &block == rerun_block_ && index == 0;
  }
  void owe_rerun();
  void settle_abort();
  uint64_t rerun_head(BlockRecord& block, bool step);
  uint64_t head_stall(const BlockRecord& block);
  uint64_t fetch_stall(const BlockRecord& block);
  uint64_t mispredict_stall(const BlockTiming& timing);
  uint64_t jump_mispredict_stall(const BlockTiming& timing);
  uint64_t wait_for_loads(uint64_t reads, uint64_t pc, uint64_t now);
  uint64_t load_after_store(uint64_t address, uint64_t issue, uint64_t pc);
  [[gnu::noinline]] uint64_t dtb_missed(uint64_t pc);
  [[gnu::noinline]] uint64_t store_access(const InstructionTiming& t, uint64_t address,
                                          uint64_t issue);
  uint64_t load_access(const InstructionTiming& t, uint64_t address, uint64_t issue);
  [[gnu::noinline]] void load_missed(uint64_t pc);
  // The last store: its address (as the caches see it), issue cycle, PC.
  struct LastStore {
    uint64_t address = ~0ull, issue = 0, pc = 0;
  };
  LastStore last_store_;
  void drop_arrived_loads();
  void record_edge(uint64_t to);
  void see(BlockRecord& block);
  void cut_entry(Site at);
  bool follows_io_access(const BlockRecord& next) const;
  void io_only_rerun(const BlockRecord& block, uint32_t index);

  // The fields every callback reads come first, together, and the large
  // tables (the branch history, the truth's maps) last: a callback touches
  // a few host cache lines, not fields 69 KB apart (issue 31).
  const Machine& machine_;
  uint64_t block_start_ = 0, dynamic_in_block_ = 0, previous_static_ = 0;
  const BlockRecord* previous_block_ = nullptr;  // completed, for its branch outcome
  // The shared clock (join), and its value after this CPU's last addition.
  std::atomic<uint64_t>* clock_ = nullptr;
  uint64_t clock_mark_ = 0;
  // The last block entered, and the last load or store modelled since
  // (io_only_rerun).
  const BlockRecord* entered_ = nullptr;
  const BlockRecord* accessed_block_ = nullptr;
  uint32_t accessed_index_ = 0;
  // raised() named the trapping instruction of the block entered last: the
  // trap vector entered next is not guessed at (enter()).
  bool raised_in_block_ = false;
  bool started_ = false;
  uint64_t last_pc_ = 0, last_pc_before_block_ = 0;
  uint64_t rebooked_target_ = 1;  // odd: none (settle_abort)
  uint64_t skip_pc_ = 1;          // odd: no instruction's address
  // An exact exit not yet settled (settle_abort), and the units its charge
  // made of the instruction's static cycles.
  Site aborted_{};
  int64_t aborted_owed_ = 0, aborted_made_ = 0;
  bool aborted_access_ = false, rerun_access_done_ = false;
  // Settled exits whose access was modelled, by truth key, until their
  // re-run (settle_abort).
  std::unordered_set<uint64_t> accessed_before_rerun_;
  // The step block being timed as the rest of `continued_.block` from
  // `continued_.index`, or none.
  const BlockRecord* continuation_ = nullptr;
  Site continued_{};
  // The block whose head re-runs an instruction an exit charged, and the
  // static units still to charge for it.
  const BlockRecord* rerun_block_ = nullptr;
  int64_t rerun_units_ = 0;
  int64_t rerun_correction_ = 0;  // what rerun_head() booked at the head, for settle_abort
  uint64_t last_step_units_ = 0;
  uint64_t pending_ = 0;
  uint64_t overflow_ = 0;  // counter overflow bits raised, not yet taken
  // Misses of the current block's later lines, found at its entry and
  // charged where fetch reaches them: (first instruction's PC, I-cache
  // cycles, ITB cycles).
  struct DeferredFetch {
    uint64_t pc = 0;
    uint64_t icache = 0, itb = 0;
  };
  std::vector<DeferredFetch> deferred_fetch_;
  uint32_t space_ = 0;
  // `address` as the TBs and caches see it: a user address tagged with the
  // address space (above the 43-bit virtual address), KSEG as it is.
  uint64_t tagged(uint64_t address) const {
    return bypasses_tlb(address) ? address : address | uint64_t{space_} << 43;
  }
  void count(ModelEvent event, uint64_t pc) {
    counted(event, pc);
    truth_.event(pc, event);
    // The 21164 takes TB misses as PAL traps at the instruction (HRM Table
    // 6-1: ITBMISS, DTBMISS); the model charges their refill instead.
    if (event == ModelEvent::kItbMiss || event == ModelEvent::kDtbMiss) truth_.trap(pc);
  }
  // A load or store at instruction `at` (counter 1's events): the truth
  // counts it by instruction (VcpuTruth::access).
  void count_access(Site at, bool store) {
    const ModelEvent event = store ? ModelEvent::kStore : ModelEvent::kLoad;
    counted(event, at.timing().pc);
    truth_.access(*at.block, at.index, store);
  }
  // `n` of `event` at `pc`, for the counter that counts it, if one does
  // (and the kill bits let it): its overflow interrupts, and the visible
  // events follow it. `visible_at`: where its overflow is delivered, when
  // not at `pc`. The one place that asks whether an event is counted, so
  // an event no counter counts now (mux rotated it away) never weighs.
  void counted(ModelEvent event, uint64_t pc, uint64_t n = 1, uint64_t visible_at = 0) {
    if (!counters_.counts(event)) return;
    const uint64_t bits = counters_.count(event, pc, n);
    overflow_ |= bits;
    if (events_visible_.enabled() && !counters_.kills(pc))
      events_visible_.counted(event, visible_at ? visible_at : pc, n, bits != 0);
  }
  // A dynamic stall of `cycles` at `pc`, told to counters 1 and 2 and the
  // truth: non-issue cycles unless fetch stalled (the pipeline dry, not
  // frozen), and a long stall beyond 15 cycles.
  void stalled(uint64_t pc, uint64_t cycles, bool fetch) {
    if (cycles != 0) count_stall(pc, cycles, fetch);  // the common 0 inline (issue 31)
  }
  void count_stall(uint64_t pc, uint64_t cycles, bool fetch);
  // The issue groups of the block that ran, counted when the next one,
  // at `head`, is entered (as counter 0's issues): their issue cycles, the
  // static waits before them, and static waits beyond 15 cycles. Their
  // overflow is delivered at `head`.
  void count_issue_groups(const BlockRecord& block, uint64_t ran, uint64_t head);
  EventVisibility events_visible_;
  // Counter 0's issues (perf_counters.h count_issues): the block entered
  // last issues its instructions when the next one is entered, less those
  // an exact exit or a device access cut (cut_entry), so the counter counts
  // what the truth counts (entries less cuts) and wraps at an instruction
  // that ran.
  void issue_entered();
  void issue_cut(const BlockRecord& block, uint32_t index);
  const BlockRecord* issuing_ = nullptr;
  uint64_t issuing_count_ = 0;
  PerfCounters counters_;
  ProfileUnit profile_unit_;
  IssueSlots issue_slots_;
  std::array<uint64_t, 64> ready_{}, loaded_by_{};
  uint64_t multiplier_free_ = 0, divider_free_ = 0;
  uint64_t last_multiply_ = kNoCulprit, last_divide_ = kNoCulprit;
  MemorySystem memory_;
  Tlb itb_, dtb_;
  JumpPredictor jumps_;
  BranchPredictor predictor_;  // 16 KB
  VcpuTruth truth_;            // 50 KB, its often read flags first
};

}  // namespace dcpi::ev5
