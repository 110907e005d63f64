#include "qemu/machine/plugins/ev5/sample_visibility.h"

#include <algorithm>
#include <cmath>

#include "firmware/ev5_counters.h"
#include "firmware/memory_map.h"
#include "firmware/pal_abi.h"
#include "isa/decode.h"

namespace dcpi::ev5 {

namespace {

bool is_call_pal(const isa::Instruction& in, uint32_t function) {
  return in.is(isa::Operation::kCallPal) && in.pal_function == function;
}

}  // namespace

SampleVisibility SampleVisibility::for_events(uint32_t period, uint32_t range,
                                              uint8_t masking_ipl) {
  SampleVisibility v(true, period, range);
  v.events_ = true;
  v.masking_ipl_ = masking_ipl;
  return v;
}

void SampleVisibility::arm(uint64_t remaining) {
  if (!enabled_ || !events_) return;
  if (armed_ && !overflowed_ && remaining <= drawn_) {
    // Given back (a mux rotation, or the other counter's reload writing
    // both): the count goes on from where the counter says it is.
    elapsed_ = static_cast<double>(drawn_ - remaining);
    return;
  }
  armed_ = true;
  overflowed_ = false;
  elapsed_ = 0;
  drawn_ = remaining;
  // A count the driver did not draw (a partial count given back after it
  // wrapped, whose overflow a rotation left to the next event): no hazard
  // of the drawn periods applies; its one sample spreads evenly over it.
  even_ = remaining < period_ || remaining > static_cast<uint64_t>(period_) + range_;
  if (state_ == State::kOff) state_ = state_at(in_pal_);
}

// A sample was taken: nothing counts until the next write (the few events
// after the overflow are dropped by the driver's reload).
void SampleVisibility::delivered() {
  armed_ = false;
  overflowed_ = false;
  deferred_ = 0;
  slept_ = 0;
  drawn_ = 0;
}

// H(t) = -ln S(t) for the period uniform in [base, base + range): 0 before
// base; a fixed period (range 0) is a step at base.
double SampleVisibility::cumulative_hazard(double elapsed) const {
  const double a = period_, r = range_;
  if (elapsed < a) return 0;
  if (r == 0) return 1;
  return -std::log(std::max(a + r - elapsed, 1e-9) / r);
}

double SampleVisibility::weight(int64_t cycles) {
  const double from = elapsed_, to = elapsed_ + static_cast<double>(cycles);
  elapsed_ = to;
  if (drawn_ == 0 || period_ == 0) return static_cast<double>(cycles);
  const double end = static_cast<double>(drawn_);  // no cycle after the overflow weighs
  if (even_) return mean_period() * (std::min(to, end) - std::min(from, end)) / end;
  return mean_period() *
         (cumulative_hazard(std::min(to, end)) - cumulative_hazard(std::min(from, end)));
}

void SampleVisibility::add(uint64_t pc, int64_t cycles) {
  if (cycles == 0) return;
  const double w = weight(cycles);
  if (state_ == State::kPal || state_ == State::kHighIpl)
    deferred_ += w;
  else if (w != 0)
    visible_[truth_key(pc, space_)] += w;
}

void SampleVisibility::book(uint64_t pc, int64_t cycles) {
  if (!enabled_ || state_ == State::kOff) return;
  count_ran_before(pc);
  add(pc, cycles);
}

void SampleVisibility::book_sleep(int64_t cycles) {
  if (enabled_ && state_ != State::kOff) slept_ += weight(cycles);
}

void SampleVisibility::waited(int64_t cycles, uint64_t head) {
  if (!enabled_ || cycles <= 0 || state_ == State::kOff || called_wtint_) return;
  waited_total_ += cycles;  // landed capped: the total bounds what landed
  const bool drawn = drawn_ != 0 && period_ != 0;
  const double w = weight(cycles);
  if (state_ != State::kCounting) {
    deferred_ += drawn ? w : static_cast<double>(cycles);
    return;
  }
  const double landed = drawn ? w : landing(static_cast<double>(cycles));
  // Into PAL: an overflow pending at the resume is taken at once, at the
  // interrupted PC, which is where PAL returns to. After a block that ran
  // to its end that PC is not known yet (a taken branch goes elsewhere than
  // the fall-through): it lands where PAL returns (enter()).
  if (is_palcode_address(head)) {
    wait_at_return_ += landed;
    return;
  }
  visible_[truth_key(head, space_)] += landed;
}

// Where the CPU goes on before `head` is entered: `head`, or, when it is
// PAL's (an interrupt pending there is taken at once), where the block
// before it stopped.
uint64_t SampleVisibility::resume_pc(uint64_t head) const {
  return is_palcode_address(head) && block_ ? block_->pc + 4 * ran_ : head;
}

// The static cycles of the instructions the previous block ran (the
// dynamic stalls are booked where they happen).
void SampleVisibility::count_previous_block() { count_instructions(ran_); }

// The static cycles of the block's instructions before the one at `pc`
// (stalled there now): the count reaches it in the order the CPU ran them.
void SampleVisibility::count_ran_before(uint64_t pc) {
  if (!block_ || pc < block_->pc) return;
  const uint64_t index = (pc - block_->pc) / 4;
  if (index < block_->instructions.size()) count_instructions(static_cast<size_t>(index));
}

void SampleVisibility::count_instructions(size_t end) {
  if (events_ || !block_ || state_ == State::kOff) return;  // events are booked one by one
  const size_t n = std::min(end, block_->instructions.size());
  for (; counted_ < n; ++counted_)
    add(block_->instructions[counted_].pc,
        static_cast<int64_t>(block_->instructions[counted_].cost));
}

void SampleVisibility::enter(const BlockTiming& timing, uint32_t last_word) {
  if (!enabled_) return;
  count_previous_block();
  const uint64_t resume = resume_pc(timing.pc);
  block_ = &timing;
  ran_ = timing.instructions.size();
  counted_ = 0;
  const uint64_t head = timing.pc;
  const bool pal = is_palcode_address(head);
  bool reload = false;
  if (pal && !in_pal_ && !events_) {
    reload = called_reload_;
    returning_ = called_return_;
  }
  // From kernel code at a masking IPL through a swpipl that lowered it (which
  // ends its block): where the kernel goes on, or where an interrupt pending
  // meanwhile is taken at once.
  if (!in_pal_ && !masked() && (deferred_ != 0 || slept_ != 0)) land_deferred(resume);
  if (pal) enter_pal(head - kKsegBase);
  if (!pal && in_pal_) leave_pal(head);
  in_pal_ = pal;
  if (reload) {  // the PAL entry that writes the counter: a new count
    armed_ = true;
    elapsed_ = 0;
    drawn_ = next_period_;
    next_period_ = 0;
  }
  state_ = state_at(pal);
  if (state_ == State::kCounting && wait_at_return_ != 0) {  // back where it was interrupted
    visible_[truth_key(head, space_)] += wait_at_return_;
    wait_at_return_ = 0;
  }
  if (!pal) {
    const isa::Instruction last = isa::decode(last_word);
    called_reload_ = is_call_pal(last, CALL_PAL_WRPERFMON) || is_call_pal(last, CALL_PAL_RTIPERF);
    called_return_ = is_call_pal(last, CALL_PAL_RTI) || is_call_pal(last, CALL_PAL_RTIPERF);
    called_wtint_ = is_call_pal(last, CALL_PAL_WTINT);
  }
}

void SampleVisibility::reloaded_in_pal(uint64_t pc) {
  if (!enabled_ || events_) return;
  count_ran_before(pc);
  // The delivery's cycles up to here count for nothing (kOff, which
  // count_ran_before leaves uncounted): the new count starts at `pc`.
  if (block_ && pc >= block_->pc)
    counted_ = std::max(counted_, std::min(static_cast<size_t>((pc - block_->pc) / 4),
                                           block_->instructions.size()));
  armed_ = true;
  elapsed_ = 0;
  drawn_ = next_period_;
  next_period_ = 0;
  returning_ = true;
  state_ = state_at(true);
}

void SampleVisibility::enter_pal(uint64_t offset) {
  if (events_) {
    if (offset == EV5_PAL_VECTOR_COUNTER && overflowed_) delivered();
    return;
  }
  if (offset == PAL_COUNTER_DELIVERY && drawn_ != 0 && period_ != 0 &&
      elapsed_ < static_cast<double>(drawn_)) {
    // The overflow came before the model's count reached the drawn period:
    // the CPU slept through the rest in an unreported wtint (QEMU runs it
    // inline: the halt's cycles are no instruction's), at IPL 0 or, as the
    // boot CPU's idle loop does, at IPL 7 until a swpipl lowers it. The
    // rest of the weight is the sleep's; it lands where the interrupt is
    // taken, which is where PAL returns to (after the wtint, or after the
    // swpipl).
    wait_at_return_ += mean_period() * (cumulative_hazard(static_cast<double>(drawn_)) -
                                        cumulative_hazard(elapsed_));
  }
  if (offset == PAL_COUNTER_DELIVERY) {
    // A sample: the interrupt's own PAL cycles came after the overflow,
    // and none counts until the reload.
    armed_ = false;
    deferred_ = 0;
    slept_ = 0;
    drawn_ = 0;
  }
  if (offset == PAL_VECTOR_IPI || offset == PAL_VECTOR_CLOCK || offset == PAL_VECTOR_DEVICE) {
    // An interrupt: PAL's cycles so far land where the interrupted
    // context resumes, after the handler's return.
    held_ += deferred_;
    deferred_ = 0;
    interrupted_ = true;
  }
}

// PAL returns to `head`: where its deferred samples land, unless the IPL
// there still masks the overflow.
void SampleVisibility::leave_pal(uint64_t head) {
  if (interrupted_ && !returning_) {  // into the interrupt's handler: wait for its return
    held_ += deferred_;
    deferred_ = 0;
    return;
  }
  if (interrupted_) {  // returned: what the interrupt held waits with the rest
    deferred_ += held_;
    held_ = 0;
    interrupted_ = false;
  }
  if (!masked()) land_deferred(head);
}

// E[min(X, L)] for X uniform in [period, period + range]: a stretch's
// weight when the drawn period is unknown.
double SampleVisibility::landing(double stretch) const {
  const double l = stretch, a = period_, r = range_;
  if (period_ == 0 || l <= a) return stretch;
  if (l >= a + r) return mean_period();
  return ((l * l - a * a) / 2 + l * (a + r - l)) / r;
}

void SampleVisibility::land_deferred(uint64_t head) {
  const bool drawn = drawn_ != 0 && period_ != 0;  // weighed already
  const double cycles = (drawn ? deferred_ : landing(deferred_)) + slept_;
  deferred_ = 0;
  slept_ = 0;
  if (cycles != 0) visible_[truth_key(head, space_)] += cycles;
}

}  // namespace dcpi::ev5
