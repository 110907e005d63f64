#include "qemu/machine/plugins/ev5/sample_visibility.h"

#include <algorithm>
#include <cmath>

#include "firmware/memory_map.h"
#include "firmware/pal_abi.h"
#include "isa/decode.h"

namespace dcpi::ev5 {

namespace {

bool is_call_pal(const isa::Instruction& in, uint32_t function) {
  return in.is(isa::Operation::kCallPal) && in.pal_function == function;
}

}  // namespace

void SampleVisibility::add(uint64_t pc, int64_t cycles) {
  if (cycles == 0) return;
  if (state_ == State::kPal || state_ == State::kHighIpl)
    deferred_ += cycles;
  else
    visible_[truth_key(pc, space_)] += cycles;
}

void SampleVisibility::book(uint64_t pc, int64_t cycles) {
  if (enabled_ && state_ != State::kOff) add(pc, cycles);
}

void SampleVisibility::book_sleep(int64_t cycles) {
  if (enabled_ && state_ != State::kOff) slept_ += cycles;
}

void SampleVisibility::waited(int64_t cycles, uint64_t head) {
  if (!enabled_ || cycles <= 0 || state_ == State::kOff || called_wtint_) return;
  waited_total_ += cycles;  // landed capped: the total bounds what landed
  if (state_ != State::kCounting) {
    deferred_ += cycles;
    return;
  }
  visible_[truth_key(resume_pc(head), space_)] += landing(cycles);
}

// Where the CPU goes on before `head` is entered: `head`, or, when it is
// PAL's (an interrupt pending there is taken at once), where the block
// before it stopped.
uint64_t SampleVisibility::resume_pc(uint64_t head) const {
  return is_palcode_address(head) && block_ ? block_->pc + 4 * ran_ : head;
}

// The static cycles of the instructions the previous block ran (the
// dynamic stalls are booked where they happen).
void SampleVisibility::count_previous_block() {
  if (!block_ || state_ == State::kOff) return;
  const size_t n = std::min(ran_, block_->instructions.size());
  for (size_t i = 0; i < n; ++i)
    add(block_->instructions[i].pc, static_cast<int64_t>(block_->instructions[i].cost));
}

void SampleVisibility::enter(const BlockTiming& timing, uint32_t last_word) {
  if (!enabled_) return;
  count_previous_block();
  const uint64_t resume = resume_pc(timing.pc);
  block_ = &timing;
  ran_ = timing.instructions.size();
  const uint64_t head = timing.pc;
  const bool pal = is_palcode_address(head);
  bool reload = false;
  if (pal && !in_pal_) {
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
  if (reload) armed_ = true;  // the PAL entry that writes the counter
  state_ = !armed_    ? State::kOff
           : pal      ? State::kPal
           : masked() ? State::kHighIpl
                      : State::kCounting;
  if (!pal) {
    const isa::Instruction last = isa::decode(last_word);
    called_reload_ = is_call_pal(last, CALL_PAL_WRPERFMON) || is_call_pal(last, CALL_PAL_RTIPERF);
    called_return_ = is_call_pal(last, CALL_PAL_RTI) || is_call_pal(last, CALL_PAL_RTIPERF);
    called_wtint_ = is_call_pal(last, CALL_PAL_WTINT);
  }
}

void SampleVisibility::enter_pal(uint64_t offset) {
  if (offset == PAL_COUNTER_DELIVERY) {
    // A sample: the interrupt's own PAL cycles came after the overflow,
    // and none counts until the reload.
    armed_ = false;
    deferred_ = 0;
    slept_ = 0;
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

// E[min(X, L)] for X uniform in [period, period + range].
int64_t SampleVisibility::landing(int64_t stretch) const {
  const double l = static_cast<double>(stretch), a = period_, r = range_;
  if (period_ == 0 || l <= a) return stretch;
  if (l >= a + r) return std::llround(a + r / 2);
  return std::llround(((l * l - a * a) / 2 + l * (a + r - l)) / r);
}

void SampleVisibility::land_deferred(uint64_t head) {
  const int64_t cycles = landing(deferred_) + slept_;
  deferred_ = 0;
  slept_ = 0;
  if (cycles != 0) visible_[truth_key(head, space_)] += cycles;
}

}  // namespace dcpi::ev5
