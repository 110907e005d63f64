#include "qemu/machine/plugins/ev5/perf_counters.h"

#include "firmware/ev5_counters.h"
#include "firmware/memory_map.h"

namespace dcpi::ev5 {

namespace {

constexpr int kNone = -1;

// The model event a counter's selection counts, or kNone for the HRM
// selections this model has no events for (refused, never faked).
int selected_event(int counter, uint8_t select) {
  if (counter == 1) {
    switch (select) {
      case EV5_SEL1_LOADS:
        return static_cast<int>(ModelEvent::kLoad);
      case EV5_SEL1_STORES:
        return static_cast<int>(ModelEvent::kStore);
      case EV5_SEL1_NONISSUE_CYCLES:
        return static_cast<int>(ModelEvent::kNonIssue);
      case EV5_SEL1_SINGLE_ISSUE_CYCLES:
        return static_cast<int>(ModelEvent::kIssue1);
      case EV5_SEL1_DUAL_ISSUE_CYCLES:
        return static_cast<int>(ModelEvent::kIssue2);
      case EV5_SEL1_TRIPLE_ISSUE_CYCLES:
        return static_cast<int>(ModelEvent::kIssue3);
      case EV5_SEL1_QUAD_ISSUE_CYCLES:
        return static_cast<int>(ModelEvent::kIssue4);
      default:
        return kNone;
    }
  }
  switch (select) {
    case EV5_SEL2_BRANCH_MISPREDICTS:
      return static_cast<int>(ModelEvent::kBranchMispredict);
    case EV5_SEL2_PC_MISPREDICTS:
      return static_cast<int>(ModelEvent::kPcMispredict);
    case EV5_SEL2_LDU_REPLAYS:
      return static_cast<int>(ModelEvent::kLoadReplay);
    case EV5_SEL2_ICACHE_MISSES:
      return static_cast<int>(ModelEvent::kICacheMiss);
    case EV5_SEL2_ITB_MISSES:
      return static_cast<int>(ModelEvent::kItbMiss);
    case EV5_SEL2_DCACHE_MISSES:
      return static_cast<int>(ModelEvent::kDCacheMiss);
    case EV5_SEL2_DTB_MISSES:
      return static_cast<int>(ModelEvent::kDtbMiss);
    case EV5_SEL2_LONG_STALLS:
      return static_cast<int>(ModelEvent::kLongStall);
    default:
      return kNone;
  }
}

uint64_t kill_bit(Mode mode) {
  switch (mode) {
    case Mode::kUser:
      return EV5_KILL_USER;
    case Mode::kKernel:
      return EV5_KILL_KERNEL;
    case Mode::kPal:
      return EV5_KILL_PAL;
  }
  return 0;
}

void fail(std::string* error, const std::string& why) {
  if (error) *error = why;
}

}  // namespace

Mode mode_of(uint64_t pc) {
  if (is_palcode_address(pc)) return Mode::kPal;
  return (pc >> 63) ? Mode::kKernel : Mode::kUser;
}

int PerfCounters::width(int counter) {
  return counter == 0 ? EV5_CTR0_WIDTH : counter == 1 ? EV5_CTR1_WIDTH : EV5_CTR2_WIDTH;
}

bool PerfCounters::mux(uint64_t value, std::string* error) {
  if (value & ~uint64_t{EV5_MUX_COUNTERS_1_2 | EV5_MUX_SEL0_ISSUES}) {
    fail(error, "mux bits outside SEL0, SEL1 and SEL2");
    return false;
  }
  const uint8_t sel1 = (value >> EV5_MUX_SEL1_SHIFT) & EV5_MUX_SEL_MASK;
  const uint8_t sel2 = (value >> EV5_MUX_SEL2_SHIFT) & EV5_MUX_SEL_MASK;
  // Only a counter that counts must select a countable event.
  if (control_[1] != EV5_CTL_OFF && selected_event(1, sel1) == kNone) {
    fail(error, "counter 1 selection " + std::to_string(sel1) + " is not modelled");
    return false;
  }
  if (control_[2] != EV5_CTL_OFF && selected_event(2, sel2) == kNone) {
    fail(error, "counter 2 selection " + std::to_string(sel2) + " is not modelled");
    return false;
  }
  // SEL0 = issues: counter 0 is this model's (cycles: PALcode's clock).
  select_[0] = (value & EV5_MUX_SEL0_ISSUES) ? 1 : 0;
  select_[1] = sel1;
  select_[2] = sel2;
  update_counted();
  return true;
}

bool PerfCounters::options(uint64_t value, std::string* error) {
  if (value & ~uint64_t{EV5_KILL_MASK}) {
    fail(error, "options bits other than KILLU, KILLK and KILLP");
    return false;
  }
  kill_ = value;
  return true;
}

bool PerfCounters::frequency(uint64_t value, std::string* error) {
  const uint64_t ctl0 = (value >> EV5_CTL0_SHIFT) & 3;
  if ((value & ~uint64_t{EV5_CTL_COUNTERS_1_2 | 3u << EV5_CTL0_SHIFT}) ||
      (ctl0 != EV5_CTL_OFF && ctl0 != EV5_CTL_WRAP)) {
    fail(error, "counter 0 interrupts only when its 16 bits wrap");
    return false;
  }
  const uint8_t ctl1 = (value >> EV5_CTL1_SHIFT) & 3, ctl2 = (value >> EV5_CTL2_SHIFT) & 3;
  if ((ctl1 != EV5_CTL_OFF && selected_event(1, select_[1]) == kNone) ||
      (ctl2 != EV5_CTL_OFF && selected_event(2, select_[2]) == kNone)) {
    fail(error, "a counter set to count selects an event that is not modelled");
    return false;
  }
  control_[0] = static_cast<uint8_t>(ctl0);
  control_[1] = ctl1;
  control_[2] = ctl2;
  update_counted();
  return true;
}

void PerfCounters::enable(uint64_t counters) {
  for (int c = 0; c < kCounters; ++c)
    if (counters & (1u << c)) enabled_[c] = true;
  update_counted();
}

void PerfCounters::disable(uint64_t counters) {
  for (int c = 0; c < kCounters; ++c)
    if (counters & (1u << c)) enabled_[c] = false;
  update_counted();
}

void PerfCounters::write(uint64_t values) {
  if (select_[0]) value_[0] = (values >> EV5_CTR0_SHIFT) & ((1u << EV5_CTR0_WIDTH) - 1);
  value_[1] = (values >> EV5_CTR1_SHIFT) & ((1u << EV5_CTR1_WIDTH) - 1);
  value_[2] = (values >> EV5_CTR2_SHIFT) & ((1u << EV5_CTR2_WIDTH) - 1);
}

uint64_t PerfCounters::read() const {
  const uint64_t counter0 = select_[0] ? uint64_t{value_[0]} << EV5_CTR0_SHIFT : 0;
  return counter0 | uint64_t{value_[1]} << EV5_CTR1_SHIFT | uint64_t{value_[2]} << EV5_CTR2_SHIFT;
}

ModelEvent PerfCounters::event_of(int counter) const {
  if (counter < 1 || counter >= kCounters || control_[counter] == EV5_CTL_OFF)
    return ModelEvent::kCount;
  const int event = selected_event(counter, select_[counter]);
  return event == kNone ? ModelEvent::kCount : static_cast<ModelEvent>(event);
}

bool PerfCounters::kills(uint64_t pc) const { return (kill_ & kill_bit(mode_of(pc))) != 0; }

void PerfCounters::update_counted() {
  issues_counted_ = select_[0] && enabled_[0] && control_[0] != EV5_CTL_OFF;
  counted_ = 0;
  for (int& c : event_counter_) c = 0;
  for (int c = 1; c < kCounters; ++c) {
    if (!enabled_[c] || control_[c] == EV5_CTL_OFF) continue;
    const int event = selected_event(c, select_[c]);
    if (event == kNone) continue;
    counted_ |= 1u << event;
    event_counter_[event] = c;
  }
}

uint64_t PerfCounters::count(ModelEvent event, uint64_t pc, uint64_t n) {
  if (n == 0 || !counts(event) || (kill_ & kill_bit(mode_of(pc)))) return 0;
  const int c = event_counter_[static_cast<int>(event)];
  const uint32_t mask = (1u << width(c)) - 1;
  // n events at once (a stall's non-issue cycles): an interrupt when they
  // crossed the wrap (or a multiple of 256), one however many they crossed.
  const uint64_t sum = uint64_t{value_[c]} + n;
  value_[c] = static_cast<uint32_t>(sum) & mask;
  const bool interrupts = control_[c] == EV5_CTL_WRAP  ? sum > mask
                          : control_[c] == EV5_CTL_256 ? (sum >> 8) != (uint64_t{sum - n} >> 8)
                                                       : false;
  if (!interrupts) return 0;
  ++interrupts_[c];
  return c == 1 ? EV5_OVERFLOW_CTR1 : EV5_OVERFLOW_CTR2;
}

// The HRM's counter 0 counts issues in the modes its kill bits allow; the
// model issues each instruction once (no speculation), so issues are the
// instructions the truth counts. Only the 16-bit wrap interrupts (CTL0).
uint64_t PerfCounters::count_issues(uint64_t n, uint64_t pc) {
  if (!issues_counted_ || n == 0 || (kill_ & kill_bit(mode_of(pc)))) return 0;
  const uint32_t sum = value_[0] + static_cast<uint32_t>(n);
  value_[0] = sum & ((1u << EV5_CTR0_WIDTH) - 1);
  if (sum >> EV5_CTR0_WIDTH == 0) return 0;
  ++interrupts_[0];
  return EV5_OVERFLOW_CTR0;
}

}  // namespace dcpi::ev5
