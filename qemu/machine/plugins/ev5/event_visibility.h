// Counters 1 and 2's sample-placement expectation (issue 26): where an
// event sample can land, per event the counters sample, with the rules of
// counter 0's cycles (sample_visibility.h for_events()): the truth's
// `pcevent PC visible_EVENT` lines. One SampleVisibility per event, made
// when the driver first writes a counter that counts it in a sampling run;
// the model tells the active ones what it tells counter 0's.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "qemu/machine/plugins/ev5/perf_counters.h"
#include "qemu/machine/plugins/ev5/sample_visibility.h"

namespace dcpi::ev5 {

class EventVisibility {
 public:
  // `sampling`: the run samples and writes a truth; else nothing is kept.
  explicit EventVisibility(bool sampling = false) : sampling_(sampling) {}
  bool enabled() const { return sampling_; }

  // A counter counting `event` was written `remaining` events before its
  // overflow (wrperfmon 9).
  void armed(ModelEvent event, uint64_t remaining);
  // The counter counted `n` of `event` at `pc`; `overflow`: they made it wrap.
  void counted(ModelEvent event, uint64_t pc, uint64_t n, bool overflow) {
    SampleVisibility* v = slots_[static_cast<size_t>(event)].get();
    if (!v) return;
    v->book(pc, static_cast<int64_t>(n));
    if (overflow) v->overflowed();
  }
  // The visible events of `event`, or none when no counter counted it.
  const SampleVisibility* of(ModelEvent event) const {
    return slots_[static_cast<size_t>(event)].get();
  }

  void enter(const BlockTiming& timing, uint32_t last_word) {
    for (SampleVisibility* v : active_) v->enter(timing, last_word);
  }
  void cut(size_t index) {
    for (SampleVisibility* v : active_) v->cut(index);
  }
  void set_ipl(uint8_t ipl) {
    ipl_ = ipl;
    for (SampleVisibility* v : active_) v->set_ipl(ipl);
  }
  void set_space(uint32_t space) {
    space_ = space;
    for (SampleVisibility* v : active_) v->set_space(space);
  }

 private:
  bool sampling_ = false;
  uint8_t ipl_ = 0;
  uint32_t space_ = 0;
  std::array<std::unique_ptr<SampleVisibility>, static_cast<size_t>(ModelEvent::kCount)> slots_;
  std::vector<SampleVisibility*> active_;
};

}  // namespace dcpi::ev5
