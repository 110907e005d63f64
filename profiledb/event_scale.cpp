#include "profiledb/event_scale.h"

#include <fmt/format.h>

#include "firmware/ev5_counters.h"
#include "firmware/events.h"
#include "firmware/profileme.h"
#include "profiledb/profile_format.h"

namespace dcpi {

std::optional<double> EventScale::events_per_sample() const {
  if (mean_period <= 0 || share <= 0) return std::nullopt;
  return mean_period / share;
}

namespace {

bool on_counter0(uint16_t event) {
  return event == static_cast<uint16_t>(Event::kCycles) ||
         event == static_cast<uint16_t>(Event::kIssues);
}

// The counter (1 or 2) whose time an event shares with the others it
// rotates with; counter 0's events are not here.
EventSet counter_mates(uint16_t event) {
  if (event >= static_cast<uint16_t>(Event::kCount)) return kCounter2Events;
  const EventSet bit = EventSet{1} << event;
  return (kCounter1Events & bit) ? kCounter1Events : kCounter2Events;
}

uint64_t stat_of(const CpuStats& stats, const std::string& name) {
  const auto found = stats.find(name);
  return found == stats.end() ? 0 : found->second;
}

}  // namespace

EventScale event_scale(const EpochMetadata& metadata, uint16_t event) {
  EventScale scale;
  if (is_profileme_event(event)) {  // a record per mean interval of fetched instructions
    for (const auto& [cpu, stats] : metadata.cpu_stats)
      if (const uint64_t mean = stat_of(stats, "profileme_mean"); mean != 0) {
        // 1 + floor(mean · E) (firmware/park_miller.h): mean + 1/2. Paired,
        // each position is a sample of its own: a record stands for S/2.
        scale.mean_period = static_cast<double>(mean) + 0.5;
        scale.pair_window = static_cast<uint32_t>(stat_of(stats, "profileme_pair_window"));
        if (scale.pair_window != 0) scale.mean_period /= 2;
        break;
      }
    return scale;
  }
  if (on_counter0(event)) {
    scale.mean_period = metadata.period.known() ? metadata.period.mean() : 0;
    return scale;
  }
  scale.mean_period = mean_period(EV5_EVENT_PERIOD_BASE, EV5_EVENT_PERIOD_RANGE);
  uint64_t mine = 0, all = 0;
  for (const auto& [cpu, stats] : metadata.cpu_stats)
    for (uint32_t e = 0; e < static_cast<uint32_t>(Event::kCount); ++e) {
      if (on_counter0(static_cast<uint16_t>(e))) continue;
      if (!(counter_mates(event) & (EventSet{1} << e))) continue;  // another counter's time
      const uint64_t cycles = stat_of(stats, profile_format::counted_cycles_stat_name(e));
      all += cycles;
      if (e == event) mine += cycles;
    }
  if (all != 0) {
    scale.shared = true;
    scale.share = static_cast<double>(mine) / static_cast<double>(all);
  }
  return scale;
}

bool is_profileme_event(uint16_t event) {
  return event >= PROFILEME_EVENT_BASE && event < PROFILEME_EVENT_END;
}

std::string describe_scale(const EventScale& scale, const std::string& event) {
  if (scale.mean_period <= 0) return "period not recorded";
  if (event.starts_with("pm_"))
    return fmt::format("a record every {:.1f} fetched instructions (mean)", scale.mean_period);
  std::string text = fmt::format("a sample every {:.1f} {} (mean)", scale.mean_period,
                                 event == "cycles" ? "cycles" : event + " events");
  if (scale.shared) text += fmt::format(", counted {:.1f} % of the time", 100.0 * scale.share);
  return text;
}

}  // namespace dcpi
