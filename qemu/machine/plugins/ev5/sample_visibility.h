// Which of the model's cycles a counter sample can land on: the
// sample-placement oracle's expectation (issue 25; firmware/truth_format.h
// `visible`). The model books every cycle where the 21164 spends it; DCPI's
// samples are the counter's overflows, and
//  - none falls between a delivery and the handler's reload of the counter
//    (the delivery itself, the handler's path to the reload);
//  - PALcode takes no interrupts (DCPI §4.1.3, "blind spots"): an overflow
//    there is delivered where PAL returns to, so PAL's cycles are visible
//    at that PC (the instruction after a CALL_PAL that returns, the kernel
//    entry for callsys, the interrupted instruction after an interrupt).
// A cycle's weight is the chance that the overflow falls in it: the hazard
// of the drawn period at the cycle's elapsed count since the reload, h(t) =
// 1 / (base + range - t) for t in [base, base + range) and 0 before base,
// summed up to the overflow and no further (the compensator of the sample
// process: its expectation is the number of samples). The plugin reads each
// drawn period where the driver reloads (rtiperf's a0, wrperfmon's write,
// p1 where PALcode's own record restarts the count: PAL_COUNTER_RELOAD),
// so the sum stops exactly at the overflow, inside the charge it falls in;
// a cycle the handler's return perturbs (a write buffer it drained, a line
// it evicted) right after a reload gets weight 0, as no sample can land
// there before `base` cycles have passed. Weights are scaled by the mean
// period, so they read as cycles. Without a drawn period (a run started
// before the plugin read one, tests) every cycle counts alike.
// - Kernel code at IPL 5 and above is the other blind spot of §4.1.3: the
//   counter's overflow comes through the ALARM, which QEMU takes at IPL 4 or
//   below (target/alpha/helper.c), so cycles at a higher IPL are visible
//   where the IPL drops (the block after a lowering swpipl, or where PAL's
//   rti returns). The plugin tells the IPL (set_ipl); until it does, every
//   IPL counts as low.
// A masked stretch (PAL, high IPL) delivers at most one sample however long
// it is: overflows while the interrupt is pending are one interrupt, and the
// handler's reload restarts the count at the delivery. Its weight (the
// hazard summed up to the overflow) lands where it is delivered; without a
// drawn period a stretch of L cycles lands as E[min(X, L)], X the period.
//
// Counters 1 and 2 (issue 26) follow the same rules with events for cycles
// (for_events()): each counted event books one unit, the count restarts at
// wrperfmon 9's write of the counter (arm()) and stops at the delivery
// through PAL's counter vector after the model raised the overflow; the
// 21164's counter interrupt is at IPL 6 (IPL_PERFCTR), so kernel code at
// IPL 6 and above and PALcode are its blind spots. Their expectation is the
// truth's `pcevent PC visible_EVENT` lines.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>

#include "qemu/machine/plugins/ev5/block_timing.h"
#include "qemu/machine/plugins/ev5/count_cache.h"
#include "qemu/machine/truth/truth_space.h"

namespace dcpi::ev5 {

using truth::truth_key;

class SampleVisibility {
 public:
  enum class State : uint8_t { kOff, kCounting, kPal, kHighIpl };
  // The lowest IPL that masks the counter's overflow (QEMU's clock interrupt).
  static constexpr uint8_t kMaskingIpl = 5;

  // `sampling`: the run samples the cycle counter; else nothing is recorded.
  // `period`, `range`: the driver's periods, uniform in [period, period +
  // range] cycles (0: unknown, every masked cycle lands as one).
  explicit SampleVisibility(bool sampling = false, uint32_t period = 0, uint32_t range = 0)
      : enabled_(sampling), period_(period), range_(range) {}
  // A counter of events whose drawn periods are uniform in [period, period +
  // range) events, masked at `masking_ipl` and above.
  static SampleVisibility for_events(uint32_t period, uint32_t range, uint8_t masking_ipl);
  bool enabled() const { return enabled_; }
  bool counts_events() const { return events_; }

  // The model enters `timing`'s block (after the previous block, whose
  // instructions then count). `last_word`: the block's last instruction (a
  // CALL_PAL says what PAL does next).
  void enter(const BlockTiming& timing, uint32_t last_word);
  // An exact exit left the current block before instruction `index`.
  void cut(size_t index) { ran_ = index; }
  // Books `cycles` spent at `pc` (negative: a correction).
  void book(uint64_t pc, int64_t cycles);
  // Books a sleep the CPU reported (PAL's CSERVE_SLEPT, at IPL 7): it lands
  // whole with the masked stretch around it, not as at most one period,
  // since a sleep ends at the first overflow in it (the ALARM wakes it).
  void book_sleep(int64_t cycles);
  // The CPU waited `cycles` of the one virtual clock for its round-robin
  // turn (other CPUs ran; docs/ev5-machine.md "SMP"): its counter counted
  // them, and an overflow among them is taken where it resumes, before
  // `head` is entered (so before enter()); when `head` is PAL's, where PAL
  // returns to. Not after a wtint: the reported sleep holds that wait.
  void waited(int64_t cycles, uint64_t head);
  // Events (for_events()): the counter was written with `remaining` events
  // to its overflow: a new count, or, while one is in progress (a mux
  // rotation gave the counter back), the rest of the same one.
  void arm(uint64_t remaining);
  // The model raised this counter's overflow: the next entry into PAL's
  // counter vector delivers it.
  void overflowed() { overflowed_ = true; }
  State state() const { return state_; }
  // The processor's IPL from now on (PAL's mtpr PS, the kernel's swpipl).
  void set_ipl(uint8_t ipl) { ipl_ = ipl; }

  // Visible cycles per truth key (truth_space.h): the address space the
  // CPU runs from now on.
  void set_space(uint32_t space) { space_ = space; }
  // The period the driver drew for the next count (read at its reload):
  // from the reload on, cycles weigh by its hazard and stop at it.
  void next_period(uint64_t cycles) { next_period_ = cycles; }
  // The wrperfmon about to run is not counter 0's write (the event
  // counters' write, read or mux, issue 26): counter 0's count goes on.
  void keeps_count() { called_reload_ = false; }
  // PALcode recorded the sample itself (firmware/pal_abi.h
  // PERFMON_PAL_RECORDS) and restarts the count at `pc`, in the block being
  // run, with the period given to next_period(): as at rtiperf's PAL entry,
  // its remaining PAL cycles count towards the new period, and PAL returns
  // to the interrupted PC.
  void reloaded_in_pal(uint64_t pc);
  // Unordered (the truth file's writer sorts): each instruction of a block
  // adds to its PC's weight, a tree's walk per instruction (issue 31).
  using VisibleCycles = CountMap<uint64_t, std::hash<uint64_t>, double>;
  const VisibleCycles& visible() const { return visible_; }
  // Of those, the cycles booked for waits for the round-robin turn (not
  // this CPU's own; the truth's `event waited_cycles`).
  int64_t waited_total() const { return waited_total_; }

 private:
  void add(uint64_t pc, int64_t cycles);
  void count_previous_block();
  void count_ran_before(uint64_t pc);
  void count_instructions(size_t end);
  // The weight of the next `cycles` counted cycles (above), as cycles.
  double weight(int64_t cycles);
  double cumulative_hazard(double elapsed) const;
  // The drawn periods' mean in cycles: hazards times it read as cycles.
  double mean_period() const { return period_ + range_ / 2.0; }
  void enter_pal(uint64_t offset);
  void leave_pal(uint64_t head);
  void land_deferred(uint64_t head);
  bool masked() const { return ipl_ >= masking_ipl_; }
  // Where a counted cycle (event) goes now, in PAL (`pal`) or not.
  State state_at(bool pal) const {
    return !armed_    ? State::kOff
           : pal      ? State::kPal
           : masked() ? State::kHighIpl
                      : State::kCounting;
  }
  void delivered();
  double landing(double stretch) const;
  uint64_t resume_pc(uint64_t head) const;

  bool enabled_ = false;
  uint32_t period_ = 0, range_ = 0;
  bool events_ = false;  // counts events (for_events()), not cycles
  uint8_t masking_ipl_ = kMaskingIpl;
  bool overflowed_ = false;  // events: raised, not yet delivered
  bool even_ = false;        // events: a count not drawn by the driver (arm())
  State state_ = State::kOff;
  // Counting towards an overflow: from a reload to the delivery.
  bool armed_ = false;
  // The block being run: its instructions count when the next one enters.
  const BlockTiming* block_ = nullptr;
  size_t ran_ = 0;
  size_t counted_ = 0;  // its instructions whose static cycles are booked
  // The count since the reload, and the period drawn for it (0: unknown).
  double elapsed_ = 0;
  uint64_t drawn_ = 0, next_period_ = 0;
  bool in_pal_ = false;
  // What the last block outside PAL called: the reload (wrperfmon,
  // rtiperf), the return from an interrupt (rti, rtiperf), or neither.
  bool called_reload_ = false, called_return_ = false, returning_ = false;
  bool called_wtint_ = false;
  // PAL cycles of this stretch, and of stretches an interrupt cut short,
  // which land where the interrupted context resumes.
  double deferred_ = 0, held_ = 0;
  double slept_ = 0;  // reported sleeps of the masked stretch
  // Weight that lands where PAL returns to, the interrupted PC: a wait that
  // ended in PAL (an interrupt taken at the resume, waited()) and the rest
  // of a sleep the overflow ended (enter_pal()).
  double wait_at_return_ = 0;
  int64_t waited_total_ = 0;
  bool interrupted_ = false;
  uint32_t space_ = 0;
  uint8_t ipl_ = 0;
  VisibleCycles visible_;
};

}  // namespace dcpi::ev5
