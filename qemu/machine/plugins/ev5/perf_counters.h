// The 21164's counters 1 and 2 on the ev5 machine (issue 26 item 1;
// firmware/ev5_counters.h has the HRM's fields): the model counts the
// events they select, in the modes their kill bits allow, and reports an
// overflow the plugin then delivers at the instruction the event belongs to
// (qemu_plugin_icount_interrupt_at_charge, docs/ev5-machine.md "Event
// counters"). Counter 0 counting cycles is PALcode's clock
// (palcode/README.md) and not here; counting issues (SEL0, the HRM's other
// counter-0 selection) it is: the model counts each instruction once, as
// the truth does, in the modes the kill bits allow (count_issues).
// One per vCPU, touched only by its vCPU.
#pragma once
#include <cstdint>
#include <string>

namespace dcpi::ev5 {

// What the model sees happen; each is counted by the selection naming it.
enum class ModelEvent : uint8_t {
  kLoad,
  kStore,
  kBranchMispredict,
  kICacheMiss,
  kItbMiss,
  kDCacheMiss,  // a D-cache load miss
  kDtbMiss,
  // Counter 1's issue-width cycles: nothing issued while an instruction
  // waits at the head (a static or dynamic stall; fetch stalls leave the
  // pipeline dry, not frozen), and the cycles an issue group of 1-4
  // instructions issues in (its first instruction's PC).
  kNonIssue,
  kIssue1,
  kIssue2,
  kIssue3,
  kIssue4,
  kLongStall,  // counter 2: a stall longer than 15 cycles, at its instruction
  // Counter 2's PC mispredicts (SEL2 0x2): a JMP, JSR, RET or JSR_COROUTINE
  // whose predicted target was wrong (jump_predictor.h), at the first
  // instruction of the block it led to, as a branch mispredict.
  kPcMispredict,
  // Counter 2's LDU replay traps (SEL2 0x9): a load issued one cycle after
  // a store to the same address replays (vcpu_model.cpp load_after_store).
  kLoadReplay,
  kCount,
};

// The processor mode an event happened in (the kill bits' modes).
enum class Mode : uint8_t { kUser, kKernel, kPal };
// By the instruction's address: PALcode's region, KSEG (our kernel runs
// there only), else user.
Mode mode_of(uint64_t pc);

class PerfCounters {
 public:
  static constexpr int kCounters = 3;  // 0 here only when it counts issues

  // wrperfmon's functions as PALcode accepts them; a refused argument
  // (an event this model does not count) changes nothing and returns false
  // with the reason in `error` (PALcode refuses it with v0 = -1 too).
  bool mux(uint64_t value, std::string* error = nullptr);
  bool options(uint64_t value, std::string* error = nullptr);
  bool frequency(uint64_t value, std::string* error = nullptr);
  void enable(uint64_t counters);  // bit N: counter N
  void disable(uint64_t counters);
  // wrperfmon 9: counters 1 and 2's fields, and counter 0's when it counts
  // issues (ours: wrperfmon 6 is PALcode's counter 0).
  void write(uint64_t values);
  uint64_t read() const;  // the same fields

  // One event at `pc`: returns the overflow bits (EV5_OVERFLOW_CTR1/2) of
  // the counters it made interrupt, 0 when none.
  uint64_t count(ModelEvent event, uint64_t pc, uint64_t n = 1);
  // Whether any counter counts `event` now (for the callers' fast path).
  bool counts(ModelEvent event) const { return (counted_ >> static_cast<int>(event)) & 1; }
  // Whether any counter counts the events of an issue group or its static
  // wait (counted when the next block is entered: VcpuModel::issue_entered).
  bool counts_issue_groups() const { return (counted_ & kIssueGroupEvents) != 0; }
  // `n` instructions issued at `pc`'s mode (counter 0's issues selection):
  // EV5_OVERFLOW_CTR0 when they made it wrap, else 0.
  uint64_t count_issues(uint64_t n, uint64_t pc);
  bool counts_issues() const { return issues_counted_; }

  uint32_t value(int counter) const { return value_[counter]; }
  // Counter 1 or 2's event while it is set to count one (enabled or not),
  // else ModelEvent::kCount.
  ModelEvent event_of(int counter) const;
  // Events the counter counts before it wraps (its width's when at 0).
  uint64_t remaining(int counter) const {
    return (uint64_t{1} << width(counter)) - value_[counter];
  }
  // Whether the kill bits keep every counter from counting at `pc`.
  bool kills(uint64_t pc) const;
  uint64_t interrupts(int counter) const { return interrupts_[counter]; }

 private:
  void update_counted();
  static int width(int counter);

  uint8_t select_[kCounters] = {0, 0, 0};   // SEL fields; counter 0: 1 = issues
  uint8_t control_[kCounters] = {0, 0, 0};  // CTL fields (EV5_CTL_*)
  bool enabled_[kCounters] = {false, false, false};
  uint64_t kill_ = 0;
  uint32_t value_[kCounters] = {0, 0, 0};
  uint64_t interrupts_[kCounters] = {0, 0, 0};
  static constexpr uint32_t kIssueGroupEvents = (1u << static_cast<int>(ModelEvent::kNonIssue)) |
                                                (1u << static_cast<int>(ModelEvent::kIssue1)) |
                                                (1u << static_cast<int>(ModelEvent::kIssue2)) |
                                                (1u << static_cast<int>(ModelEvent::kIssue3)) |
                                                (1u << static_cast<int>(ModelEvent::kIssue4)) |
                                                (1u << static_cast<int>(ModelEvent::kLongStall));
  uint32_t counted_ = 0;  // bit per ModelEvent some counter counts
  bool issues_counted_ = false;
  int event_counter_[static_cast<int>(ModelEvent::kCount)] = {};  // 0: none
};

}  // namespace dcpi::ev5
