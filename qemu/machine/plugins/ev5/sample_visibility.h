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
// Every other cycle counts alike. Weighting each by the hazard of the drawn
// period (1 / (smallest + range - elapsed)) would be exact if the counter
// stopped the model at the overflow; the model completes the charge the
// overflow falls in first, and the hazard-weighted expectation put 7 % more
// samples on long stalls than they got (docs/ev5-machine.md). So no cycle's
// time is needed here, only its state.
// - Kernel code at IPL 5 and above is the other blind spot of §4.1.3: the
//   counter's overflow comes through the ALARM, which QEMU takes at IPL 4 or
//   below (target/alpha/helper.c), so cycles at a higher IPL are visible
//   where the IPL drops (the block after a lowering swpipl, or where PAL's
//   rti returns). The plugin tells the IPL (set_ipl); until it does, every
//   IPL counts as low.
// A masked stretch (PAL, high IPL) delivers at most one sample however long
// it is: overflows while the interrupt is pending are one interrupt, and the
// handler's reload restarts the count at the delivery. So a stretch of L
// cycles lands as E[min(X, L)] visible cycles, X the drawn period: the
// chance that an overflow falls in it times the mean period (a renewal
// process's residual time). PAL's short stretches land whole; a long sleep
// or an address space torn down at IPL 7 lands as about one period.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>

#include "qemu/machine/plugins/ev5/block_timing.h"
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
  bool enabled() const { return enabled_; }

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
  // `head` is entered (so before enter()). Not after a wtint: the reported
  // sleep holds that wait.
  void waited(int64_t cycles, uint64_t head);
  State state() const { return state_; }
  // The processor's IPL from now on (PAL's mtpr PS, the kernel's swpipl).
  void set_ipl(uint8_t ipl) { ipl_ = ipl; }

  // Visible cycles per truth key (truth_space.h): the address space the
  // CPU runs from now on.
  void set_space(uint32_t space) { space_ = space; }
  const std::map<uint64_t, int64_t>& visible() const { return visible_; }
  // Of those, the cycles booked for waits for the round-robin turn (not
  // this CPU's own; the truth's `event waited_cycles`).
  int64_t waited_total() const { return waited_total_; }

 private:
  void add(uint64_t pc, int64_t cycles);
  void count_previous_block();
  void enter_pal(uint64_t offset);
  void leave_pal(uint64_t head);
  void land_deferred(uint64_t head);
  bool masked() const { return ipl_ >= kMaskingIpl; }
  int64_t landing(int64_t stretch) const;
  uint64_t resume_pc(uint64_t head) const;

  bool enabled_ = false;
  uint32_t period_ = 0, range_ = 0;
  State state_ = State::kOff;
  // Counting towards an overflow: from a reload to the delivery.
  bool armed_ = false;
  // The block being run: its instructions count when the next one enters.
  const BlockTiming* block_ = nullptr;
  size_t ran_ = 0;
  bool in_pal_ = false;
  // What the last block outside PAL called: the reload (wrperfmon,
  // rtiperf), the return from an interrupt (rti, rtiperf), or neither.
  bool called_reload_ = false, called_return_ = false, returning_ = false;
  bool called_wtint_ = false;
  // PAL cycles of this stretch, and of stretches an interrupt cut short,
  // which land where the interrupted context resumes.
  int64_t deferred_ = 0, held_ = 0;
  int64_t slept_ = 0;  // reported sleeps of the masked stretch
  int64_t waited_total_ = 0;
  bool interrupted_ = false;
  uint32_t space_ = 0;
  uint8_t ipl_ = 0;
  std::map<uint64_t, int64_t> visible_;
};

}  // namespace dcpi::ev5
