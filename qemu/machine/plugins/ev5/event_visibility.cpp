#include "qemu/machine/plugins/ev5/event_visibility.h"

#include "firmware/ev5_counters.h"
#include "firmware/pal_abi.h"

namespace dcpi::ev5 {

void EventVisibility::armed(ModelEvent event, uint64_t remaining) {
  if (!sampling_ || event >= ModelEvent::kCount) return;
  std::unique_ptr<SampleVisibility>& slot = slots_[static_cast<size_t>(event)];
  if (!slot) {
    // The driver's periods (firmware/ev5_counters.h); the 21164's counter
    // interrupt is at IPL 6 (pal_abi.h IPL_PERFCTR): masked there and above.
    slot = std::make_unique<SampleVisibility>(
        SampleVisibility::for_events(EV5_EVENT_PERIOD_BASE, EV5_EVENT_PERIOD_RANGE, IPL_PERFCTR));
    slot->set_ipl(ipl_);
    slot->set_space(space_);
    active_.push_back(slot.get());
  }
  slot->arm(remaining);
}

}  // namespace dcpi::ev5
